/*
 * parse.c - litmus test parser: header, init section, processes written in
 * herd7's subset of C, and the final condition.
 *
 * One hand-written lexer serves the whole file.  OCaml comments "(* *)" are
 * comments only outside process bodies, where "(*" can start a dereference
 * instead; C comments are accepted everywhere.
 */
#include "litmus.h"

#include <stdlib.h>
#include <string.h>

enum tok_kind { T_EOF, T_IDENT, T_NUMBER, T_STRING, T_PUNCT };

struct token {
	enum tok_kind kind;
	struct srcpos pos;
	const char *start;
	int len;
	long long number;
};

struct parser {
	const char *file;
	const char *text;
	const char *p;		/* next unread character */
	const char *line_start;	/* the first character of p's line: columns count from it */
	int line;
	bool in_code;		/* inside a process body: no OCaml comments */
	struct arena *arena;	/* where the tree is allocated */
	int depth;		/* nesting of expressions and statements */
	struct token tok;	/* current token */
};

/* The length of the punctuator at p: the two-character ones are /\ \/ == != <= >= && || << >> ->. */
static int punctuator_len(const char *p)
{
	switch (p[0]) {
	case '/': return p[1] == '\\' ? 2 : 1;
	case '\\': return p[1] == '/' ? 2 : 1;
	case '=': case '!': return p[1] == '=' ? 2 : 1;
	case '<': return p[1] == '=' || p[1] == '<' ? 2 : 1;
	case '>': return p[1] == '=' || p[1] == '>' ? 2 : 1;
	case '&': return p[1] == '&' ? 2 : 1;
	case '|': return p[1] == '|' ? 2 : 1;
	case '-': return p[1] == '>' ? 2 : 1;
	default: return 1;
	}
}

/*
 * The C locale's classes, inline: <ctype.h>'s look the character up
 * through a call for the locale's table, once for every character read.
 */
static inline bool is_alpha(char c)
{
	return (unsigned)((c | 32) - 'a') < 26;
}

static inline bool is_digit(char c)
{
	return (unsigned)(c - '0') < 10;
}

static inline bool is_ident_char(char c)
{
	return is_alpha(c) || is_digit(c) || c == '_';
}

static inline bool is_space(char c)
{
	return c == ' ' || (unsigned)(c - '\t') < 5;	/* \t \n \v \f \r */
}

static struct srcpos here(const struct parser *ps)
{
	return (struct srcpos){ ps->file, ps->line, (int)(ps->p - ps->line_start) + 1 };
}

static void advance_char(struct parser *ps)
{
	if (*ps->p++ == '\n') {
		ps->line++;
		ps->line_start = ps->p;
	}
}

/*
 * p moved on to q, its lines counted by memchr(): comments and strings
 * are skipped by the library's scans, not a character at a time.
 */
static void skip_to(struct parser *ps, const char *q)
{
	const char *nl;

	while ((nl = memchr(ps->p, '\n', q - ps->p))) {
		ps->line++;
		ps->p = ps->line_start = nl + 1;
	}
	ps->p = q;
}

/* q, or the end of the text when q is NULL (a scan that found nothing). */
static const char *or_end(const char *q, const struct parser *ps)
{
	return q ? q : ps->p + strlen(ps->p);
}

static void skip_ocaml_comment(struct parser *ps)
{
	struct srcpos start = here(ps);
	int depth = 0;

	do {
		/* Nothing but a '(' or a '*' can open or close one. */
		skip_to(ps, or_end(strpbrk(ps->p, "(*"), ps));
		if (!*ps->p)
			die_at(start, "unterminated comment '(*'");
		if (ps->p[0] == '(' && ps->p[1] == '*') {
			depth++;
			advance_char(ps);
		} else if (ps->p[0] == '*' && ps->p[1] == ')') {
			depth--;
			advance_char(ps);
		}
		advance_char(ps);
	} while (depth > 0);
}

static void skip_space_and_comments(struct parser *ps)
{
	for (;;) {
		if (is_space(*ps->p)) {
			advance_char(ps);
		} else if (ps->p[0] == '/' && ps->p[1] == '/') {
			skip_to(ps, or_end(strchr(ps->p, '\n'), ps));
		} else if (ps->p[0] == '/' && ps->p[1] == '*') {
			struct srcpos start = here(ps);
			const char *end = strstr(ps->p + 2, "*/");

			if (!end)
				die_at(start, "unterminated comment '/*'");
			skip_to(ps, end + 2);
		} else if (!ps->in_code && ps->p[0] == '(' && ps->p[1] == '*') {
			skip_ocaml_comment(ps);
		} else {
			return;
		}
	}
}

static void next(struct parser *ps)
{
	struct token *t = &ps->tok;

	skip_space_and_comments(ps);
	t->pos = here(ps);
	t->start = ps->p;
	if (!*ps->p) {
		t->kind = T_EOF;
		t->len = 0;
		return;
	}
	/* No newline in a name, a number or a punctuator: p moves on without advance_char(). */
	if (is_alpha(*ps->p) || *ps->p == '_') {
		t->kind = T_IDENT;
		while (is_ident_char(*ps->p))
			ps->p++;
	} else if (is_digit(*ps->p)) {
		char *end;

		t->kind = T_NUMBER;
		t->number = strtoll(ps->p, &end, 0);
		ps->p = end;
		if (is_alpha(*ps->p) || *ps->p == '_')
			die_at(t->pos, "malformed number");
	} else if (*ps->p == '"') {
		t->kind = T_STRING;
		skip_to(ps, or_end(strchr(ps->p + 1, '"'), ps));
		if (!*ps->p)
			die_at(t->pos, "unterminated string");
		advance_char(ps);
	} else {
		t->kind = T_PUNCT;
		ps->p += punctuator_len(ps->p);
	}
	t->len = (int)(ps->p - t->start);
}

/* Deeper nesting is an error, not a stack overflow. */
#define MAX_NESTING 200

static void enter(struct parser *ps)
{
	if (++ps->depth > MAX_NESTING)
		die_at(ps->tok.pos, "nesting deeper than %d levels", MAX_NESTING);
}

/* Inlined: most texts are constants, whose first character rejects most tokens at once. */
static inline __attribute__((always_inline)) bool is(const struct parser *ps, const char *text)
{
	const struct token *t = &ps->tok;

	/* No strlen(): this is the parser's innermost loop. */
	return t->kind != T_EOF && t->kind != T_STRING && t->start[0] == text[0] &&
	       !strncmp(t->start, text, t->len) && text[t->len] == '\0';
}

static _Noreturn void expected(const struct parser *ps, const char *what)
{
	const struct token *t = &ps->tok;

	if (t->kind == T_EOF)
		die_at(t->pos, "expected %s, found end of file", what);
	die_at(t->pos, "expected %s, found '%.*s'", what, t->len, t->start);
}

static bool accept(struct parser *ps, const char *text)
{
	if (!is(ps, text))
		return false;
	next(ps);
	return true;
}

static void expect(struct parser *ps, const char *text)
{
	char what[32];

	if (!accept(ps, text)) {
		snprintf(what, sizeof(what), "'%s'", text);
		expected(ps, what);
	}
}

static char *expect_ident(struct parser *ps, const char *what)
{
	char *name;

	if (ps->tok.kind != T_IDENT)
		expected(ps, what);
	name = arena_strndup(ps->arena, ps->tok.start, ps->tok.len);
	next(ps);
	return name;
}

/*
 * Words that start a type; herd7 accepts these and struct tags.  Sorted
 * as strcmp() orders them, for bsearch(): a statement starts with a test.
 */
static const char *const type_words[] = {
	"_Bool", "atomic_int", "atomic_long_t", "atomic_t", "bool", "char", "const",
	"int", "int16_t", "int32_t", "int64_t", "int8_t", "intptr_t", "long", "mtx_t",
	"s16", "s32", "s64", "s8", "short", "signed", "size_t", "spinlock_t", "struct",
	"u16", "u32", "u64", "u8", "uint16_t", "uint32_t", "uint64_t", "uint8_t",
	"uintptr_t", "unsigned", "void", "volatile",
};

/* A token against a word, as strcmp() orders them. */
static int token_cmp(const void *token, const void *word)
{
	const struct token *t = token;
	const char *w = *(const char *const *)word;
	int c = strncmp(t->start, w, t->len);

	return c ? c : -(w[t->len] != '\0');
}

static bool at_type(const struct parser *ps)
{
	return ps->tok.kind == T_IDENT &&
	       bsearch(&ps->tok, type_words, sizeof(type_words) / sizeof(*type_words),
		       sizeof(*type_words), token_cmp);
}

/* a + sep + b in the arena (a may be NULL), so that an error leaks nothing. */
static char *join(struct parser *ps, const char *a, const char *sep, const char *b, int blen)
{
	size_t alen = a ? strlen(a) : 0, slen = a ? strlen(sep) : 0;
	char *joined = arena_alloc(ps->arena, alen + slen + blen + 1);

	if (a) {
		memcpy(joined, a, alen);
		memcpy(joined + alen, sep, slen);
	}
	memcpy(joined + alen + slen, b, blen);
	joined[alen + slen + blen] = '\0';
	return joined;
}

/* Parse a type: words then stars.  Returns it as written, one space apart. */
static char *parse_type(struct parser *ps)
{
	char *type = NULL;

	while (at_type(ps)) {
		bool is_struct = is(ps, "struct");

		type = join(ps, type, " ", ps->tok.start, ps->tok.len);
		next(ps);
		if (is_struct) {
			const char *tag = expect_ident(ps, "a struct tag");

			type = join(ps, type, " ", tag, (int)strlen(tag));
		}
	}
	if (!type)
		expected(ps, "a type");
	while (is(ps, "*")) {
		type = join(ps, type, type[strlen(type) - 1] == '*' ? "" : " ", "*", 1);
		next(ps);
	}
	return type;
}

static struct expr *new_expr(struct parser *ps, enum expr_kind kind, struct srcpos pos)
{
	struct expr *e = arena_alloc(ps->arena, sizeof(*e));

	e->kind = kind;
	e->pos = pos;
	return e;
}


static struct expr *parse_expr(struct parser *ps);

/* "{tag, tag-with-dashes}" after a primitive's name. */
static struct annot parse_annot(struct parser *ps)
{
	struct annot a = { 0 };

	expect(ps, "{");
	do {
		char *tag = expect_ident(ps, "an annotation");

		while (accept(ps, "-")) {
			const char *part = expect_ident(ps, "an annotation");

			tag = join(ps, tag, "-", part, (int)strlen(part));
		}
		arena_push(ps->arena, a.tags, a.n, tag);
	} while (accept(ps, ","));
	expect(ps, "}");
	return a;
}

static void parse_call_args(struct parser *ps, struct expr *call)
{
	expect(ps, "(");
	if (!is(ps, ")")) {
		do
			arena_push(ps->arena, call->args, call->nargs, parse_expr(ps));
		while (accept(ps, ","));
	}
	expect(ps, ")");
}

/* The operator argument of __atomic_op and friends: + - & | ^ &~ */
static int parse_rmw_operator(struct parser *ps)
{
	static const struct { const char *text; int op; } ops[] = {
		{ "+", OP_ADD }, { "-", OP_SUB }, { "|", OP_OR }, { "^", OP_XOR },
	};
	size_t i;

	if (accept(ps, "&"))
		return accept(ps, "~") ? OP_ANDNOT : OP_AND;
	for (i = 0; i < sizeof(ops) / sizeof(*ops); i++)
		if (accept(ps, ops[i].text))
			return ops[i].op;
	expected(ps, "an operator (+ - & | ^ &~)");
}

struct primitive {
	const char *name;
	enum expr_kind kind;
	int nargs;		/* expression operands */
	bool annotated;		/* takes {annot} */
	bool rmw_operator;	/* second operand is an operator */
	bool fetch;
};

static const struct primitive expr_primitives[] = {
	{ "__load", X_LOAD, 1, true, false, false },
	{ "__xchg", X_XCHG, 2, true, false, false },
	{ "__cmpxchg", X_CMPXCHG, 3, true, false, false },
	{ "__atomic_op_return", X_ATOMIC_RETURN, 2, true, true, false },
	{ "__atomic_fetch_op", X_ATOMIC_RETURN, 2, true, true, true },
	{ "__atomic_add_unless", X_ADD_UNLESS, 3, true, false, false },
	{ "__trylock", X_TRYLOCK, 1, false, false, false },
	{ "__islocked", X_ISLOCKED, 1, false, false, false },
	{ "__srcu", X_SRCU, 1, true, false, false },
};

static struct expr *parse_primitive(struct parser *ps, const struct primitive *prim)
{
	struct expr *e = new_expr(ps, prim->kind, ps->tok.pos);
	int i;

	next(ps);
	e->fetch = prim->fetch;
	if (prim->annotated)
		e->annot = parse_annot(ps);
	expect(ps, "(");
	for (i = 0; i < prim->nargs; i++) {
		if (i)
			expect(ps, ",");
		if (prim->rmw_operator && i == 1) {
			e->op = parse_rmw_operator(ps);
			expect(ps, ",");
		}
		arena_push(ps->arena, e->args, e->nargs, parse_expr(ps));
	}
	expect(ps, ")");
	return e;
}

static struct expr *parse_unary(struct parser *ps);

static struct expr *parse_primary(struct parser *ps)
{
	struct srcpos pos = ps->tok.pos;
	struct expr *e;
	size_t i;

	if (ps->tok.kind == T_NUMBER) {
		e = new_expr(ps, X_CONST, pos);
		e->value = ps->tok.number;
		next(ps);
		return e;
	}
	if (accept(ps, "(")) {
		if (at_type(ps)) {	/* a cast: herd7 ignores it */
			parse_type(ps);
			expect(ps, ")");
			return parse_unary(ps);
		}
		e = parse_expr(ps);
		expect(ps, ")");
		return e;
	}
	if (ps->tok.kind != T_IDENT)
		expected(ps, "an expression");
	for (i = 0; i < sizeof(expr_primitives) / sizeof(*expr_primitives); i++)
		if (is(ps, expr_primitives[i].name))
			return parse_primitive(ps, &expr_primitives[i]);
	e = new_expr(ps, X_NAME, pos);
	e->name = expect_ident(ps, "an expression");
	if (is(ps, "(")) {
		e->kind = X_CALL;
		parse_call_args(ps, e);
	}
	return e;
}

static struct expr *parse_unary_nested(struct parser *ps)
{
	struct srcpos pos = ps->tok.pos;
	struct expr *e;

	if (accept(ps, "*")) {
		e = new_expr(ps, X_LOAD, pos);
		arena_push(ps->arena, e->args, e->nargs, parse_unary(ps));
		return e;
	}
	if (accept(ps, "&")) {
		e = new_expr(ps, X_ADDR_OF, pos);
		e->name = expect_ident(ps, "a variable name after '&'");
		return e;
	}
	if (is(ps, "-") || is(ps, "!") || is(ps, "~")) {
		int op = *ps->tok.start;

		next(ps);
		e = parse_unary(ps);
		if (op == '-' && e->kind == X_CONST) {
			e->value = -e->value;
			return e;
		}
		{
			struct expr *u = new_expr(ps, X_UNARY, pos);

			u->op = op;
			arena_push(ps->arena, u->args, u->nargs, e);
			return u;
		}
	}
	return parse_primary(ps);
}

static struct expr *parse_unary(struct parser *ps)
{
	struct expr *node;

	enter(ps);
	node = parse_unary_nested(ps);
	ps->depth--;
	return node;
}

/* Binary operators by C precedence, loosest first. */
static const struct { const char *text; int op; int prec; } binops[] = {
	{ "||", OP_LOR, 1 }, { "&&", OP_LAND, 2 }, { "|", OP_OR, 3 },
	{ "^", OP_XOR, 4 }, { "&", OP_AND, 5 },
	{ "==", OP_EQ, 6 }, { "!=", OP_NE, 6 },
	{ "<", OP_LT, 7 }, { "<=", OP_LE, 7 }, { ">", OP_GT, 7 }, { ">=", OP_GE, 7 },
	{ "<<", OP_SHL, 8 }, { ">>", OP_SHR, 8 },
	{ "+", OP_ADD, 9 }, { "-", OP_SUB, 9 },
	{ "*", OP_MUL, 10 }, { "/", OP_DIV, 10 }, { "%", OP_MOD, 10 },
};

static int binop_at(const struct parser *ps)
{
	size_t i;

	for (i = 0; i < sizeof(binops) / sizeof(*binops); i++)
		if (is(ps, binops[i].text))
			return (int)i;
	return -1;
}

static struct expr *parse_binary(struct parser *ps, int min_prec)
{
	struct expr *left = parse_unary(ps);
	int i;

	while ((i = binop_at(ps)) >= 0 && binops[i].prec >= min_prec) {
		struct expr *e = new_expr(ps, X_BINARY, ps->tok.pos);

		next(ps);
		e->op = binops[i].op;
		arena_push(ps->arena, e->args, e->nargs, left);
		arena_push(ps->arena, e->args, e->nargs, parse_binary(ps, binops[i].prec + 1));
		left = e;
	}
	return left;
}

static struct expr *parse_expr(struct parser *ps)
{
	return parse_binary(ps, 1);
}

static struct stmt *new_stmt(struct parser *ps, enum stmt_kind kind, struct srcpos pos)
{
	struct stmt *s = arena_alloc(ps->arena, sizeof(*s));

	s->kind = kind;
	s->pos = pos;
	return s;
}


static struct stmt *parse_stmt(struct parser *ps);

/* A braced block; a process body ends with leave_code set. */
static struct stmt *parse_braced(struct parser *ps, bool leave_code)
{
	struct stmt *s = new_stmt(ps, S_BLOCK, ps->tok.pos);

	expect(ps, "{");
	while (!is(ps, "}")) {
		if (ps->tok.kind == T_EOF)
			expected(ps, "'}'");
		arena_push(ps->arena, s->body, s->nbody, parse_stmt(ps));
	}
	if (leave_code)
		ps->in_code = false;
	next(ps);
	return s;
}

static struct stmt *parse_block(struct parser *ps)
{
	return parse_braced(ps, false);
}

/* "int r0, *r1 = e;" becomes a block of declarations and assignments. */
static struct stmt *parse_declaration(struct parser *ps)
{
	struct stmt *block = new_stmt(ps, S_BLOCK, ps->tok.pos);
	char *type = parse_type(ps);

	do {
		struct stmt *decl = new_stmt(ps, S_DECL, ps->tok.pos);

		decl->type = type;
		while (accept(ps, "*"))
			decl->type = join(ps, decl->type,
					  decl->type[strlen(decl->type) - 1] == '*' ? "" : " ", "*", 1);
		decl->name = expect_ident(ps, "a variable name");
		arena_push(ps->arena, block->body, block->nbody, decl);
		if (accept(ps, "=")) {
			struct stmt *init = new_stmt(ps, S_ASSIGN, decl->pos);

			init->name = decl->name;
			arena_push(ps->arena, init->args, init->nargs, parse_expr(ps));
			arena_push(ps->arena, block->body, block->nbody, init);
		}
	} while (accept(ps, ","));
	expect(ps, ";");
	return block;
}

/* "if (cond) stmt [else stmt]" or "while (cond) stmt". */
static struct stmt *parse_conditional(struct parser *ps, enum stmt_kind kind)
{
	struct stmt *s = new_stmt(ps, kind, ps->tok.pos);

	next(ps);
	expect(ps, "(");
	arena_push(ps->arena, s->args, s->nargs, parse_expr(ps));
	expect(ps, ")");
	arena_push(ps->arena, s->body, s->nbody, parse_stmt(ps));
	if (kind == S_IF)
		arena_push(ps->arena, s->body, s->nbody,
			   accept(ps, "else") ? parse_stmt(ps) : NULL);
	return s;
}

/* Statement-level primitives: __fence{a}; __store{a}(l, v); __lock(l); ... */
static struct stmt *parse_stmt_primitive(struct parser *ps)
{
	struct srcpos pos = ps->tok.pos;
	struct stmt *s;

	if (accept(ps, "__fence")) {
		s = new_stmt(ps, S_FENCE, pos);
		s->annot = parse_annot(ps);
		expect(ps, ";");
		return s;
	}
	if (accept(ps, "__store")) {
		s = new_stmt(ps, S_STORE, pos);
		s->annot = parse_annot(ps);
	} else if (accept(ps, "__lock")) {
		s = new_stmt(ps, S_LOCK, pos);
	} else if (accept(ps, "__unlock")) {
		s = new_stmt(ps, S_UNLOCK, pos);
	} else if (accept(ps, "__atomic_op")) {
		s = new_stmt(ps, S_ATOMIC_OP, pos);
		if (is(ps, "{"))
			s->annot = parse_annot(ps);
	} else if (accept(ps, "__srcu")) {
		s = new_stmt(ps, S_SRCU, pos);
		s->annot = parse_annot(ps);
	} else {
		return NULL;
	}
	expect(ps, "(");
	arena_push(ps->arena, s->args, s->nargs, parse_expr(ps));
	if (s->kind == S_ATOMIC_OP) {
		expect(ps, ",");
		s->op = parse_rmw_operator(ps);
	}
	if (s->kind == S_STORE || s->kind == S_ATOMIC_OP ||
	    (s->kind == S_SRCU && is(ps, ","))) {
		expect(ps, ",");
		arena_push(ps->arena, s->args, s->nargs, parse_expr(ps));
	}
	expect(ps, ")");
	expect(ps, ";");
	return s;
}

/*
 * An expression statement: an assignment to a register ("r = e;"), a store
 * through a pointer ("*p = e;"), a macro call ("f(a);") or a bare value.
 */
static struct stmt *parse_expr_stmt(struct parser *ps)
{
	struct srcpos pos = ps->tok.pos;
	struct expr *lhs = parse_expr(ps);
	struct stmt *s;

	if (accept(ps, "=")) {
		if (lhs->kind == X_NAME) {
			s = new_stmt(ps, S_ASSIGN, pos);
			s->name = lhs->name;
		} else if (lhs->kind == X_LOAD && !lhs->annot.n) {
			s = new_stmt(ps, S_STORE, pos);
			arena_push(ps->arena, s->args, s->nargs, lhs->args[0]);
		} else {
			die_at(pos, "expected a register or '*pointer' on the left of '='");
		}
		arena_push(ps->arena, s->args, s->nargs, parse_expr(ps));
	} else if (lhs->kind == X_CALL) {
		s = new_stmt(ps, S_CALL, pos);
		s->name = lhs->name;
		s->nargs = lhs->nargs;
		s->args = lhs->args;
	} else {
		s = new_stmt(ps, S_ASSIGN, pos);
		arena_push(ps->arena, s->args, s->nargs, lhs);
	}
	expect(ps, ";");
	return s;
}

static struct stmt *parse_stmt_nested(struct parser *ps)
{
	struct stmt *s;

	if (is(ps, "{"))
		return parse_block(ps);
	if (is(ps, "if"))
		return parse_conditional(ps, S_IF);
	if (is(ps, "while"))
		return parse_conditional(ps, S_WHILE);
	if (accept(ps, ";"))
		return new_stmt(ps, S_BLOCK, ps->tok.pos);
	if (at_type(ps))
		return parse_declaration(ps);
	s = parse_stmt_primitive(ps);
	return s ? s : parse_expr_stmt(ps);
}

static struct stmt *parse_stmt(struct parser *ps)
{
	struct stmt *node;

	enter(ps);
	node = parse_stmt_nested(ps);
	ps->depth--;
	return node;
}

static bool at_process(const struct parser *ps)
{
	return ps->tok.kind == T_IDENT && ps->tok.start[0] == 'P' && ps->tok.len > 1 &&
	       is_digit(ps->tok.start[1]);
}

/* "P3(int *x, spinlock_t *lck)" then the body. */
static void parse_process(struct parser *ps, struct litmus *t)
{
	struct process *pr;
	char *end;
	long id = strtol(ps->tok.start + 1, &end, 10);

	if (end != ps->tok.start + ps->tok.len || id != t->nprocs)
		die_at(ps->tok.pos, "expected process P%d, found '%.*s'",
		       t->nprocs, ps->tok.len, ps->tok.start);
	t->procs = arena_extend(ps->arena, t->procs, t->nprocs, sizeof(*t->procs));
	pr = &t->procs[t->nprocs++];
	pr->id = (int)id;
	pr->pos = ps->tok.pos;
	ps->in_code = true;
	next(ps);
	expect(ps, "(");
	if (is(ps, "void")) {
		struct parser lookahead = *ps;

		next(&lookahead);
		if (is(&lookahead, ")"))
			next(ps);
	}
	if (!is(ps, ")")) {
		do {
			struct param *pa;

			pr->params = arena_extend(ps->arena, pr->params, pr->nparams,
					  sizeof(*pr->params));
			pa = &pr->params[pr->nparams++];
			pa->type = parse_type(ps);
			pa->name = expect_ident(ps, "a parameter name");
		} while (accept(ps, ","));
	}
	expect(ps, ")");
	if (!is(ps, "{"))
		expected(ps, "'{'");
	pr->body_text = ps->tok.start;
	pr->body = parse_braced(ps, true);
}

/* An initial value: 42, -1, x (the address of x) or &x. */
static struct init_value parse_init_value(struct parser *ps)
{
	struct init_value v = { 0 };
	bool negative = accept(ps, "-");

	if (ps->tok.kind == T_NUMBER) {
		v.n = negative ? -ps->tok.number : ps->tok.number;
		v.spelling = join(ps, negative ? "-" : NULL, "",
				  ps->tok.start, ps->tok.len);
		next(ps);
		return v;
	}
	if (negative)
		expected(ps, "a number after '-'");
	if (accept(ps, "ATOMIC_INIT")) {	/* atomic_t v = ATOMIC_INIT(1) */
		expect(ps, "(");
		v = parse_init_value(ps);
		expect(ps, ")");
		return v;
	}
	accept(ps, "&");
	v.is_addr = true;
	v.addr_of = expect_ident(ps, "a value (a number or a variable name)");
	v.spelling = v.addr_of;
	return v;
}

/* "N:" before a register name, or -1 when absent. */
static int parse_proc_prefix(struct parser *ps)
{
	struct parser lookahead = *ps;
	int proc;

	if (ps->tok.kind != T_NUMBER)
		return -1;
	proc = (int)ps->tok.number;
	next(&lookahead);
	if (!is(&lookahead, ":"))
		return -1;
	next(ps);
	next(ps);
	return proc;
}

/*
 * One init item: "x=1", "int x = 1", "int *y = &x", "atomic_t v",
 * "0:r1=x", "int 0:r1 = 1", "y=z".
 */
static void parse_init_item(struct parser *ps, struct litmus *t)
{
	struct init_item *it;

	t->init = arena_extend(ps->arena, t->init, t->ninit, sizeof(*t->init));
	it = &t->init[t->ninit++];
	it->pos = ps->tok.pos;
	if (at_type(ps))
		it->type = parse_type(ps);
	it->proc = parse_proc_prefix(ps);
	while (accept(ps, "*"))
		it->untyped_pointer = !it->type;
	it->name = expect_ident(ps, "a variable or register name");
	if (accept(ps, "=")) {
		it->has_value = true;
		it->value = parse_init_value(ps);
	}
}

static void parse_init(struct parser *ps, struct litmus *t)
{
	expect(ps, "{");
	while (!accept(ps, "}")) {
		if (accept(ps, ";"))
			continue;
		parse_init_item(ps, t);
		if (!is(ps, "}") && !accept(ps, ";") && !accept(ps, ","))
			expected(ps, "';' or '}'");
	}
}

static struct cond_loc parse_cond_loc(struct parser *ps)
{
	struct cond_loc loc;
	bool bracketed;

	loc.pos = ps->tok.pos;
	loc.proc = parse_proc_prefix(ps);
	bracketed = loc.proc < 0 && accept(ps, "[");
	loc.name = expect_ident(ps, "a location (N:reg or a variable)");
	if (bracketed)
		expect(ps, "]");
	return loc;
}

static struct prop *new_prop(struct parser *ps, enum prop_kind kind)
{
	struct prop *p = arena_alloc(ps->arena, sizeof(*p));

	p->kind = kind;
	return p;
}

static struct prop *parse_prop(struct parser *ps);
static struct prop *parse_prop_atom(struct parser *ps);
static void parse_atom_rhs(struct parser *ps, struct prop *p);

static struct prop *parse_prop_atom_nested(struct parser *ps)
{
	struct prop *p;

	if (accept(ps, "(")) {
		p = parse_prop(ps);
		expect(ps, ")");
		return p;
	}
	if (accept(ps, "~") || accept(ps, "not")) {
		p = new_prop(ps, P_NOT);
		p->left = parse_prop_atom(ps);
		return p;
	}
	if (accept(ps, "true"))
		return new_prop(ps, P_TRUE);
	if (accept(ps, "false"))
		return new_prop(ps, P_FALSE);
	p = new_prop(ps, P_ATOM);
	p->loc = parse_cond_loc(ps);
	if (accept(ps, "!=")) {		/* herd7 reads x!=v as not (x=v) */
		struct prop *n = new_prop(ps, P_NOT);

		n->left = p;
		parse_atom_rhs(ps, p);
		return n;
	}
	expect(ps, "=");
	parse_atom_rhs(ps, p);
	return p;
}

static struct prop *parse_prop_atom(struct parser *ps)
{
	struct prop *node;

	enter(ps);
	node = parse_prop_atom_nested(ps);
	ps->depth--;
	return node;
}

static void parse_atom_rhs(struct parser *ps, struct prop *p)
{
	struct parser lookahead = *ps;

	if (parse_proc_prefix(&lookahead) >= 0) {
		p->rhs_is_loc = true;
		p->rhs_loc = parse_cond_loc(ps);
	} else {
		p->value = parse_init_value(ps);
	}
}

static struct prop *parse_prop_and(struct parser *ps)
{
	struct prop *left = parse_prop_atom(ps);

	while (accept(ps, "/\\")) {
		struct prop *p = new_prop(ps, P_AND);

		p->left = left;
		p->right = parse_prop_atom(ps);
		left = p;
	}
	return left;
}

static struct prop *parse_prop(struct parser *ps)
{
	struct prop *left = parse_prop_and(ps);

	while (accept(ps, "\\/")) {
		struct prop *p = new_prop(ps, P_OR);

		p->left = left;
		p->right = parse_prop_and(ps);
		left = p;
	}
	return left;
}

static void parse_locations(struct parser *ps, struct litmus *t)
{
	expect(ps, "[");
	while (!accept(ps, "]")) {
		arena_push(ps->arena, t->locations, t->nlocations, parse_cond_loc(ps));
		if (!is(ps, "]") && !accept(ps, ";"))
			expected(ps, "';' or ']'");
	}
}

static void parse_final(struct parser *ps, struct litmus *t)
{
	if (accept(ps, "locations"))
		parse_locations(ps, t);
	if (accept(ps, "filter"))
		t->filter = parse_prop(ps);
	if (ps->tok.kind == T_EOF) {	/* no condition: herd7's forall (true) */
		t->quantifier = Q_FORALL;
		t->cond = new_prop(ps, P_TRUE);
		return;
	}
	if (accept(ps, "exists")) {
		t->quantifier = Q_EXISTS;
	} else if (accept(ps, "forall")) {
		t->quantifier = Q_FORALL;
	} else if (is(ps, "~") || is(ps, "not")) {
		next(ps);
		expect(ps, "exists");
		t->quantifier = Q_NOT_EXISTS;
	} else {
		expected(ps, "'exists', '~exists' or 'forall'");
	}
	t->cond = parse_prop(ps);
	accept(ps, ";");
	if (ps->tok.kind != T_EOF)
		expected(ps, "end of file after the condition");
}

/* "C name" on the first line; the name runs to the end of the line. */
static void parse_header(struct parser *ps, struct litmus *t)
{
	const char *start;

	if (ps->tok.kind != T_IDENT)
		expected(ps, "the architecture ('C') and the test name");
	t->arch = arena_strndup(ps->arena, ps->tok.start, ps->tok.len);
	if (strcmp(t->arch, "C"))
		die_at(ps->tok.pos, "unsupported architecture '%s': only C litmus tests are supported",
		       t->arch);
	while (*ps->p == ' ' || *ps->p == '\t')
		advance_char(ps);
	start = ps->p;
	while (*ps->p && !is_space(*ps->p))
		advance_char(ps);
	if (ps->p == start)
		die_at(here(ps), "expected the test name after 'C'");
	/* herd7 drops a ".litmus" some tests put in their name. */
	if (ps->p - start > 7 && !strncmp(ps->p - 7, ".litmus", 7))
		t->name = arena_strndup(ps->arena, start, ps->p - start - 7);
	else
		t->name = arena_strndup(ps->arena, start, ps->p - start);
	next(ps);
	if (ps->tok.kind == T_STRING) {
		t->doc = arena_strndup(ps->arena, ps->tok.start + 1, ps->tok.len - 2);
		next(ps);
	}
	/* Like herd7, ignore whatever else precedes the init section. */
	while (ps->tok.kind != T_EOF && !is(ps, "{") && !at_process(ps))
		next(ps);
}

struct litmus *litmus_parse(const char *file, const char *text)
{
	struct litmus *t = xcalloc(1, sizeof(*t));

	litmus_read(t, file, text);
	return t;
}

void litmus_read(struct litmus *t, const char *file, const char *text)
{
	struct parser ps = { .file = file, .text = text, .p = text, .line_start = text, .line = 1,
			     .arena = &t->arena };

	t->file = file;
	t->text = arena_strndup(&t->arena, text, strlen(text));
	next(&ps);
	parse_header(&ps, t);
	parse_init(&ps, t);
	while (at_process(&ps))
		parse_process(&ps, t);
	if (!t->nprocs)
		expected(&ps, "process P0");
	parse_final(&ps, t);
}

static void parse_macro(struct parser *ps, struct macro_table *table)
{
	struct macro *m;

	table->macros = arena_extend(ps->arena, table->macros, table->n, sizeof(*table->macros));
	m = &table->macros[table->n++];
	m->pos = ps->tok.pos;
	m->name = expect_ident(ps, "a macro name");
	expect(ps, "(");
	if (!is(ps, ")")) {
		do {
			arena_push(ps->arena, m->params, m->nparams,
				   expect_ident(ps, "a macro parameter"));
		} while (accept(ps, ","));
	}
	expect(ps, ")");
	if (is(ps, "{"))
		m->body = parse_block(ps);
	else
		m->expr = parse_expr(ps);
}

void macros_read(struct macro_table *table, const char *file, const char *text)
{
	struct parser ps = { .file = file, .text = text, .p = text, .line_start = text, .line = 1,
			     .in_code = true, .arena = &table->arena };

	next(&ps);
	while (ps.tok.kind != T_EOF)
		parse_macro(&ps, table);
}

void prop_each_loc(const struct prop *pr, void (*fn)(const struct cond_loc *l, void *ctx),
		   void *ctx)
{
	if (!pr)
		return;
	if (pr->kind == P_ATOM) {
		fn(&pr->loc, ctx);
		if (pr->rhs_is_loc)
			fn(&pr->rhs_loc, ctx);
	}
	prop_each_loc(pr->left, fn, ctx);
	prop_each_loc(pr->right, fn, ctx);
}

void litmus_free(struct litmus *t)
{
	arena_free(&t->arena);
	free(t);
}

void macros_free(struct macro_table *table)
{
	arena_free(&table->arena);
	free(table);
}
