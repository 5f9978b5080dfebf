/*
 * catparse.c - read a model: the cfg file, then the cat language of the
 * bell and cat files and of every file they include, into one flat list
 * of statements (includes are spliced in where they appear).
 *
 * The grammar and operator precedences follow herd7's cat language, from
 * loosest to tightest:  |  ++  ;  \  &  then ~, postfix * + ?, cartesian *,
 * then ^-1, then application.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catast.h"

enum tok {
	T_EOF, T_NAME, T_TAGNAME, T_STRING,
	T_LPAR, T_RPAR, T_LACC, T_RACC, T_LBRAC, T_RBRAC,
	T_UNDERSCORE, T_ZERO, T_BAR, T_BARBAR, T_AMP, T_AMPAMP, T_STAR, T_TILDE,
	T_PLUS, T_PLUSPLUS, T_HAT, T_INV, T_BACKSLASH, T_QUESTION, T_EQUAL,
	T_SEMI, T_COMMA, T_ARROW,
	/* keywords */
	T_LET, T_REC, T_AND, T_IN, T_FUN, T_TRY, T_WITH, T_FROM, T_AS,
	T_ACYCLIC, T_IRREFLEXIVE, T_EMPTYKW, T_FLAG, T_SHOW, T_UNSHOW,
	T_INCLUDE, T_ENUM, T_INSTRUCTIONS, T_DEFAULT, T_BEGIN, T_END,
	T_IF, T_THEN, T_ELSE, T_VARIANT, T_NOT,
	T_UNSUPPORTED,		/* a keyword of herd's we do not implement */
};

static const struct { const char *word; enum tok tok; } keywords[] = {
	{ "let", T_LET }, { "rec", T_REC }, { "and", T_AND }, { "in", T_IN },
	{ "fun", T_FUN }, { "try", T_TRY }, { "with", T_WITH },
	{ "from", T_FROM }, { "as", T_AS }, { "acyclic", T_ACYCLIC },
	{ "irreflexive", T_IRREFLEXIVE }, { "empty", T_EMPTYKW },
	{ "flag", T_FLAG }, { "show", T_SHOW }, { "unshow", T_UNSHOW },
	{ "include", T_INCLUDE }, { "enum", T_ENUM },
	{ "instructions", T_INSTRUCTIONS }, { "default", T_DEFAULT },
	{ "begin", T_BEGIN }, { "end", T_END },
	{ "if", T_IF }, { "then", T_THEN }, { "else", T_ELSE },
	{ "variant", T_VARIANT }, { "not", T_NOT },
	{ "when", T_UNSUPPORTED }, { "subset", T_UNSUPPORTED },
	{ "undefined_unless", T_UNSUPPORTED }, { "assert", T_UNSUPPORTED },
	{ "procedure", T_UNSUPPORTED },
	{ "call", T_UNSUPPORTED }, { "debug", T_UNSUPPORTED },
	{ "match", T_UNSUPPORTED }, { "forall", T_UNSUPPORTED },
	{ "do", T_UNSUPPORTED }, { "catdep", T_UNSUPPORTED },
};

struct parser {
	struct cat_model *m;
	const char *file;
	const char *src;
	const char *p;		/* next character */
	int line;
	const char *line_start;
	/* current token */
	enum tok tok;
	struct srcpos pos;
	const char *text;	/* T_NAME, T_TAGNAME, T_STRING: interned */
	int depth;		/* include nesting */
	struct vec *enums;	/* enum statements seen, for `instructions` */
};

static size_t name_hash(const char *s, size_t len)
{
	size_t h = 2166136261u;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* The slot of the table where s is, or where it would go. */
static size_t name_slot(const struct cat_model *m, const char *s, size_t len)
{
	size_t i = name_hash(s, len) & (m->name_slots - 1);

	for (;; i = (i + 1) & (m->name_slots - 1)) {
		int k = m->name_index[i];
		const char *name = k ? m->names.items[k - 1] : NULL;

		if (!k || (!strncmp(name, s, len) && name[len] == '\0'))
			return i;
	}
}

/* Twice the slots, every name placed again: the table stays at most half full. */
static void grow_names(struct cat_model *m)
{
	size_t old = m->name_slots;
	int *table = m->name_index;

	m->name_slots = old ? 2 * old : 256;
	m->name_index = xcalloc(m->name_slots, sizeof(*m->name_index));
	for (size_t i = 0; i < old; i++) {
		if (table[i]) {
			const char *name = m->names.items[table[i] - 1];

			m->name_index[name_slot(m, name, strlen(name))] = table[i];
		}
	}
	free(table);
}

/*
 * Every name of every model file comes through here: a hash table, not a
 * scan.  The name's index in m->names, interned first if new.
 */
static int intern_index(struct cat_model *m, const char *s, size_t len)
{
	size_t slot;

	if (2 * (size_t)(m->names.len + 1) > m->name_slots)
		grow_names(m);
	slot = name_slot(m, s, len);
	if (!m->name_index[slot]) {
		vec_push(&m->names, arena_strndup(&m->syntax, s, len));
		m->name_index[slot] = m->names.len;
	}
	return m->name_index[slot] - 1;
}

const char *cat_intern(struct cat_model *m, const char *s, size_t len)
{
	int k = intern_index(m, s, len);	/* first: it may move m->names.items */

	return m->names.items[k];
}

/* ---- Lexer ---- */

static struct srcpos here(struct parser *ps)
{
	return (struct srcpos){ ps->file, ps->line,
				(int)(ps->p - ps->line_start) + 1 };
}

static void newline(struct parser *ps)
{
	ps->line++;
	ps->line_start = ps->p + 1;
}

static void skip_comment(struct parser *ps)
{
	struct srcpos start = here(ps);
	int depth = 0;

	do {
		/* Only these characters matter: jump over the others at once. */
		ps->p += strcspn(ps->p, "(*\n");
		if (!*ps->p)
			die_at(start, "unterminated comment");
		if (ps->p[0] == '(' && ps->p[1] == '*') {
			depth++;
			ps->p += 2;
		} else if (ps->p[0] == '*' && ps->p[1] == ')') {
			depth--;
			ps->p += 2;
		} else {
			if (*ps->p == '\n')
				newline(ps);
			ps->p++;
		}
	} while (depth);
}

static void skip_blanks(struct parser *ps)
{
	for (;;) {
		char c = *ps->p;

		if (c == '\n') {
			newline(ps);
			ps->p++;
		} else if (c == ' ' || c == '\t' || c == '\r') {
			ps->p++;
		} else if (c == '#' || (c == '/' && ps->p[1] == '/')) {
			ps->p += strcspn(ps->p, "\n");
		} else if (c == '(' && ps->p[1] == '*') {
			skip_comment(ps);
		} else {
			return;
		}
	}
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_name_char(char c)
{
	return is_alpha(c) || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
	       c == '-';
}

/* herd's names: '_'? alpha (alpha|digit|'_'|'.'|'-')* '\''? */
static size_t name_length(const char *s)
{
	size_t n = s[0] == '_';

	if (!is_alpha(s[n]))
		return 0;
	while (is_name_char(s[n]))
		n++;
	return n + (s[n] == '\'');
}

#define NKEYWORDS (int)(sizeof(keywords) / sizeof(keywords[0]))

/* The keywords are the model's first names (intern_keywords()): its index says which. */
static enum tok lex_name(struct parser *ps, size_t len)
{
	int k = intern_index(ps->m, ps->p, len);

	ps->text = ps->m->names.items[k];
	ps->p += len;
	return k < NKEYWORDS ? keywords[k].tok : T_NAME;
}

static void intern_keywords(struct cat_model *m)
{
	for (int i = 0; i < NKEYWORDS; i++)
		intern_index(m, keywords[i].word, strlen(keywords[i].word));
}

static enum tok lex_string(struct parser *ps)
{
	const char *end = strchr(ps->p + 1, '"');

	if (!end)
		die_at(ps->pos, "unterminated string");
	for (const char *q = ps->p; q < end; q++)
		if (*q == '\n')
			die_at(ps->pos, "newline in string");
	ps->text = cat_intern(ps->m, ps->p + 1, end - ps->p - 1);
	ps->p = end + 1;
	return T_STRING;
}

/* The token `c` stands for alone, or `two` when `second` follows it. */
static enum tok either(struct parser *ps, enum tok one, char second, enum tok two)
{
	if (*ps->p != second)
		return one;
	ps->p++;
	return two;
}

/* An operator: its first character decides, but for || && ++ -> -1. */
static enum tok lex_operator(struct parser *ps)
{
	switch (*ps->p++) {
	case '|': return either(ps, T_BAR, '|', T_BARBAR);
	case '+': return either(ps, T_PLUS, '+', T_PLUSPLUS);
	case '-':
		if (*ps->p == '>' || *ps->p == '1')
			return *ps->p++ == '>' ? T_ARROW : T_INV;
		break;
	case '(': return T_LPAR;
	case ')': return T_RPAR;
	case '{': return T_LACC;
	case '}': return T_RACC;
	case '[': return T_LBRAC;
	case ']': return T_RBRAC;
	case '0': return T_ZERO;
	case '&': return either(ps, T_AMP, '&', T_AMPAMP);
	case '*': return T_STAR;
	case '~': return T_TILDE;
	case '^': return T_HAT;
	case '\\': return T_BACKSLASH;
	case '?': return T_QUESTION;
	case '=': return T_EQUAL;
	case ';': return T_SEMI;
	case ',': return T_COMMA;
	}
	ps->p--;
	die_at(ps->pos, "unexpected character '%c'", *ps->p);
}

static enum tok lex(struct parser *ps)
{
	size_t len;

	skip_blanks(ps);
	ps->pos = here(ps);
	if (!*ps->p)
		return T_EOF;
	if (*ps->p == '"')
		return lex_string(ps);
	if (*ps->p == '\'') {
		len = name_length(ps->p + 1);
		if (!len)
			die_at(ps->pos, "tag name expected after '");
		ps->p++;
		lex_name(ps, len);
		return T_TAGNAME;
	}
	len = name_length(ps->p);
	if (len)
		return lex_name(ps, len);
	if (*ps->p == '_') {
		ps->p++;
		return T_UNDERSCORE;
	}
	return lex_operator(ps);
}

static void next(struct parser *ps)
{
	ps->tok = lex(ps);
	if (ps->tok == T_UNSUPPORTED)
		die_at(ps->pos, "'%s' is not supported by this cat interpreter",
		       ps->text);
}

static bool accept(struct parser *ps, enum tok tok)
{
	if (ps->tok != tok)
		return false;
	next(ps);
	return true;
}

static _Noreturn void syntax_error(struct parser *ps, const char *what)
{
	if (ps->tok == T_EOF)
		die_at(ps->pos, "%s expected, found end of file", what);
	die_at(ps->pos, "%s expected", what);
}

static void expect(struct parser *ps, enum tok tok, const char *what)
{
	if (!accept(ps, tok))
		syntax_error(ps, what);
}

static const char *expect_name(struct parser *ps)
{
	const char *name = ps->text;

	expect(ps, T_NAME, "name");
	return name;
}

/* ---- Expressions ---- */

/*
 * The tree lives in the model's syntax arena (m->syntax), freed at once
 * with the model: no node has to be freed on its own, not even those a
 * parse drops, and a load makes no malloc() per node.
 */
struct cat_expr *cat_new_expr(struct cat_model *m, enum cat_expr_kind kind, struct srcpos pos,
			      int n)
{
	struct cat_expr *e = arena_alloc(&m->syntax, sizeof(*e));

	e->kind = kind;
	e->pos = pos;
	e->slot = -1;
	e->n = n;
	e->args = n ? arena_alloc(&m->syntax, n * sizeof(*e->args)) : NULL;
	e->id = m->nexprs++;
	return e;
}

static struct cat_expr *unary(struct parser *ps, enum cat_expr_kind kind,
			      struct srcpos pos, struct cat_expr *a)
{
	struct cat_expr *e = cat_new_expr(ps->m, kind, pos, 1);

	e->args[0] = a;
	return e;
}

static struct cat_expr *binary(struct parser *ps, enum cat_expr_kind kind,
			       struct srcpos pos, struct cat_expr *a,
			       struct cat_expr *b)
{
	struct cat_expr *e = cat_new_expr(ps->m, kind, pos, 2);

	e->args[0] = a;
	e->args[1] = b;
	return e;
}

/* Union and sequence are n-ary, so that sequences can stop early. */
static struct cat_expr *nary(struct parser *ps, enum cat_expr_kind kind,
			     struct srcpos pos, struct cat_expr *a,
			     struct cat_expr *b)
{
	struct cat_expr *e = cat_new_expr(ps->m, kind, pos, 0);

	for (int i = 0; i < 2; i++) {
		struct cat_expr *x = i ? b : a;

		if (x->kind != kind) {
			arena_push(&ps->m->syntax, e->args, e->n, x);
			continue;
		}
		for (int j = 0; j < x->n; j++)
			arena_push(&ps->m->syntax, e->args, e->n, x->args[j]);
	}
	return e;
}

static struct cat_expr *expr(struct parser *ps);
static struct cat_expr *base(struct parser *ps);
static int bindings(struct parser *ps, struct cat_bind **binds);

static bool starts_simple(enum tok tok)
{
	switch (tok) {
	case T_ZERO: case T_TAGNAME: case T_LACC: case T_UNDERSCORE:
	case T_LPAR: case T_BEGIN: case T_LBRAC:
		return true;
	default:
		return false;
	}
}

static bool starts_operand(enum tok tok)
{
	return starts_simple(tok) || tok == T_NAME || tok == T_TILDE;
}

/*
 * Comma-separated bases up to `close`, for {..} and instructions [..]:
 * the args of e.
 */
static void base_list(struct parser *ps, struct cat_expr *e, enum tok close,
		      const char *what)
{
	if (accept(ps, close))
		return;
	do {
		struct cat_expr *item = base(ps);

		arena_push(&ps->m->syntax, e->args, e->n, item);
	} while (accept(ps, T_COMMA));
	expect(ps, close, what);
}

/* Whether an enum seen so far declares the tag. */
static bool tag_declared(struct parser *ps, const char *tag)
{
	for (int i = 0; i < ps->enums->len; i++) {
		struct cat_stmt *s = ps->enums->items[i];
		struct cat_expr *tags = s->binds->e;

		for (int j = 0; j < tags->n; j++)
			if (tags->args[j]->name == tag)
				return true;
	}
	return false;
}

static struct cat_expr *simple(struct parser *ps)
{
	struct srcpos pos = ps->pos;
	struct cat_expr *e;

	switch (ps->tok) {
	case T_ZERO:
		next(ps);
		return cat_new_expr(ps->m, X_ZERO, pos, 0);
	case T_UNDERSCORE:
		next(ps);
		return cat_new_expr(ps->m, X_UNIV, pos, 0);
	case T_TAGNAME:
		if (!tag_declared(ps, ps->text))
			die_at(pos, "tag '%s is not declared by any enum", ps->text);
		e = cat_new_expr(ps->m, X_TAG, pos, 0);
		e->name = ps->text;
		next(ps);
		return e;
	case T_LACC:
		next(ps);
		e = cat_new_expr(ps->m, X_SET, pos, 0);
		base_list(ps, e, T_RACC, "'}'");
		if (!e->n)
			e->kind = X_EMPTY;
		return e;
	case T_LPAR:
		next(ps);
		if (accept(ps, T_RPAR))
			return cat_new_expr(ps->m, X_TUPLE, pos, 0);
		e = expr(ps);
		expect(ps, T_RPAR, "')'");
		return e;
	case T_BEGIN:
		next(ps);
		e = expr(ps);
		expect(ps, T_END, "'end'");
		return e;
	case T_LBRAC:
		next(ps);
		e = expr(ps);
		expect(ps, T_RBRAC, "']'");
		return unary(ps, X_TOID, pos, e);
	default:
		syntax_error(ps, "expression");
	}
}

/* A name applied to arguments: names or simple expressions. */
static struct cat_expr *application(struct parser *ps)
{
	struct cat_expr *e = cat_new_expr(ps->m, X_VAR, ps->pos, 0);

	e->name = expect_name(ps);
	while (ps->tok == T_NAME || starts_simple(ps->tok)) {
		struct srcpos pos = ps->pos;
		struct cat_expr *arg;

		if (ps->tok == T_NAME) {
			arg = cat_new_expr(ps->m, X_VAR, pos, 0);
			arg->name = ps->text;
			next(ps);
		} else {
			arg = simple(ps);
		}
		e = binary(ps, X_APP, pos, e, arg);
	}
	return e;
}

static struct cat_expr *inverse(struct parser *ps)
{
	struct cat_expr *e = ps->tok == T_NAME ? application(ps) : simple(ps);

	while (ps->tok == T_HAT) {
		struct srcpos pos = ps->pos;

		next(ps);
		expect(ps, T_INV, "'-1' after '^'");
		e = unary(ps, X_INV, pos, e);
	}
	return e;
}

static struct cat_expr *prefix(struct parser *ps)
{
	struct srcpos pos = ps->pos;

	if (accept(ps, T_TILDE))
		return unary(ps, X_COMP, pos, prefix(ps));
	return inverse(ps);
}

/* Postfix closures; a star followed by an operand is a cartesian product. */
static struct cat_expr *postfix(struct parser *ps)
{
	struct cat_expr *e = prefix(ps);

	for (;;) {
		struct srcpos pos = ps->pos;

		if (accept(ps, T_STAR))
			e = starts_operand(ps->tok)
				    ? binary(ps, X_CART, pos, e, prefix(ps))
				    : unary(ps, X_STAR, pos, e);
		else if (accept(ps, T_PLUS))
			e = unary(ps, X_PLUS, pos, e);
		else if (accept(ps, T_QUESTION))
			e = unary(ps, X_OPT, pos, e);
		else
			return e;
	}
}

static struct cat_expr *inter(struct parser *ps)
{
	struct cat_expr *e = postfix(ps);
	struct srcpos pos = ps->pos;

	if (accept(ps, T_AMP))
		return binary(ps, X_INTER, pos, e, inter(ps));
	return e;
}

static struct cat_expr *diff(struct parser *ps)
{
	struct cat_expr *e = inter(ps);

	for (;;) {
		struct srcpos pos = ps->pos;

		if (!accept(ps, T_BACKSLASH))
			return e;
		e = binary(ps, X_DIFF, pos, e, inter(ps));
	}
}

static struct cat_expr *seq(struct parser *ps)
{
	struct cat_expr *e = diff(ps);
	struct srcpos pos = ps->pos;

	if (accept(ps, T_SEMI))
		return nary(ps, X_SEQ, pos, e, seq(ps));
	return e;
}

static struct cat_expr *add(struct parser *ps)
{
	struct cat_expr *e = seq(ps);
	struct srcpos pos = ps->pos;

	if (accept(ps, T_PLUSPLUS))
		return binary(ps, X_ADD, pos, e, add(ps));
	return e;
}

static struct cat_expr *base(struct parser *ps)
{
	struct cat_expr *e = add(ps);
	struct srcpos pos = ps->pos;

	if (accept(ps, T_BAR))
		return nary(ps, X_UNION, pos, e, base(ps));
	return e;
}

/* A name or _ in a pattern. */
static const char *pat_name(struct parser *ps)
{
	if (accept(ps, T_UNDERSCORE))
		return NULL;
	return expect_name(ps);
}

/* Names and _ separated by commas, into pat. */
static void pat_names(struct parser *ps, struct cat_pat *pat)
{
	do {
		const char *name = pat_name(ps);

		arena_push(&ps->m->syntax, pat->names, pat->n, name);
	} while (accept(ps, T_COMMA));
}

/* Formal parameters "(a, b)" or "(a)" or "()", the '(' already read. */
static struct cat_pat formals(struct parser *ps)
{
	struct cat_pat pat = { 0 };

	if (ps->tok != T_RPAR)
		pat_names(ps, &pat);
	expect(ps, T_RPAR, "')'");
	pat.tuple = pat.n != 1;
	return pat;
}

static struct cat_pat single(struct parser *ps, const char *name)
{
	struct cat_pat pat = { 0 };

	arena_push(&ps->m->syntax, pat.names, pat.n, name);
	return pat;
}

static struct cat_expr *function(struct parser *ps, struct srcpos pos,
				 struct cat_pat param, struct cat_expr *body)
{
	struct cat_expr *e = unary(ps, X_FUN, pos, body);

	e->param = param;
	return e;
}

/*
 * Whether a variant is set: given on the command line or by the cfg
 * (herd7's -variant, case does not matter).  lkmm knows the variants it
 * acts on, lkmmv1 and lkmmv2; another name, as herd7 does, is warned of
 * and taken as unset.
 */
static bool variant_set(struct parser *ps, const char *name, struct srcpos pos)
{
	static const char *const known[] = { "lkmmv1", "lkmmv2" };

	if (cat_variant(ps->m, name))
		return true;
	for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++)
		if (!strcasecmp(known[i], name))
			return false;
	warn_at(pos, "unknown variant \"%s\", taken as unset", name);
	return false;
}

static bool variant_any(struct parser *ps);

/* "NAME", variant "NAME", not C, (C): herd7's tightest-binding conditions. */
static bool variant_term(struct parser *ps)
{
	struct srcpos pos = ps->pos;
	const char *name;
	bool set;

	if (accept(ps, T_NOT))
		return !variant_term(ps);
	if (accept(ps, T_LPAR)) {
		set = variant_any(ps);
		expect(ps, T_RPAR, "')'");
		return set;
	}
	accept(ps, T_VARIANT);
	name = ps->text;
	if (ps->tok != T_STRING)
		syntax_error(ps, "a variant condition (\"NAME\", not, &&, ||)");
	next(ps);
	return variant_set(ps, name, pos);
}

/* C && C ..., tighter than ||.  Both sides are read, whatever the first says. */
static bool variant_all(struct parser *ps)
{
	bool set = variant_term(ps);

	while (accept(ps, T_AMPAMP))
		set = variant_term(ps) && set;
	return set;
}

static bool variant_any(struct parser *ps)
{
	bool set = variant_all(ps);

	while (accept(ps, T_BARBAR))
		set = variant_all(ps) || set;
	return set;
}

/*
 * "if COND then E1 else E2", after the 'if'.  The variants are known when
 * the model is read, so the condition is decided here and the branch not
 * taken dropped, as herd7 never evaluates it: what follows sees a plain
 * expression.  (herd7's other conditions, E = E, E subset E, E in E, are
 * not used by any kernel's model and not supported.)
 */
static struct cat_expr *if_variant(struct parser *ps)
{
	bool set = variant_any(ps);
	struct cat_expr *then, *otherwise;

	expect(ps, T_THEN, "'then'");
	then = expr(ps);
	expect(ps, T_ELSE, "'else'");
	otherwise = expr(ps);
	return set ? then : otherwise;
}

static struct cat_expr *expr(struct parser *ps)
{
	struct srcpos pos = ps->pos;
	struct cat_expr *e, *tuple;

	if (accept(ps, T_LET)) {
		e = cat_new_expr(ps->m, accept(ps, T_REC) ? X_LETREC : X_LET, pos, 1);
		e->nbinds = bindings(ps, &e->binds);
		expect(ps, T_IN, "'in'");
		e->args[0] = expr(ps);
		return e;
	}
	if (accept(ps, T_FUN)) {
		struct cat_pat param;

		param = accept(ps, T_LPAR) ? formals(ps) : single(ps, pat_name(ps));
		expect(ps, T_ARROW, "'->'");
		return function(ps, pos, param, expr(ps));
	}
	if (accept(ps, T_IF))
		return if_variant(ps);
	if (accept(ps, T_TRY)) {
		e = cat_new_expr(ps->m, X_TRY, pos, 2);
		e->args[0] = expr(ps);
		expect(ps, T_WITH, "'with'");
		e->args[1] = expr(ps);
		return e;
	}
	e = base(ps);
	if (ps->tok != T_COMMA)
		return e;
	tuple = cat_new_expr(ps->m, X_TUPLE, pos, 0);
	arena_push(&ps->m->syntax, tuple->args, tuple->n, e);
	while (accept(ps, T_COMMA)) {
		e = base(ps);
		arena_push(&ps->m->syntax, tuple->args, tuple->n, e);
	}
	return tuple;
}

/*
 * One binding: "x = e", "x, y = e", "(x, y) = e", or a function
 * "f x = e", "f(x, y) = e".
 */
static struct cat_bind binding(struct parser *ps)
{
	struct cat_bind b = { .pos = ps->pos, .slot = -1 };

	if (accept(ps, T_LPAR)) {
		b.pat = formals(ps);
		b.pat.tuple = true;
	} else {
		const char *name = pat_name(ps);
		struct srcpos fpos = ps->pos;
		struct cat_pat param;

		if (name && (ps->tok == T_NAME || ps->tok == T_UNDERSCORE ||
			     ps->tok == T_LPAR)) {
			param = accept(ps, T_LPAR) ? formals(ps)
						   : single(ps, pat_name(ps));
			expect(ps, T_EQUAL, "'='");
			b.pat = single(ps, name);
			b.e = function(ps, fpos, param, expr(ps));
			return b;
		}
		arena_push(&ps->m->syntax, b.pat.names, b.pat.n, name);
		if (accept(ps, T_COMMA))
			pat_names(ps, &b.pat);
		b.pat.tuple = b.pat.n > 1;
	}
	expect(ps, T_EQUAL, "'='");
	b.e = expr(ps);
	return b;
}

static int bindings(struct parser *ps, struct cat_bind **binds)
{
	int n = 0;

	*binds = NULL;
	do {
		struct cat_bind b = binding(ps);

		arena_push(&ps->m->syntax, *binds, n, b);
	} while (accept(ps, T_AND));
	return n;
}

/* ---- Statements ---- */

static struct cat_stmt *new_stmt(struct parser *ps, enum cat_stmt_kind kind,
				 struct srcpos pos)
{
	struct cat_stmt *s = arena_alloc(&ps->m->syntax, sizeof(*s));

	s->kind = kind;
	s->pos = pos;
	vec_push(&ps->m->stmts, s);
	return s;
}

static void test(struct parser *ps, struct srcpos pos, bool flag)
{
	struct cat_stmt *s = new_stmt(ps, flag ? S_FLAG : S_CHECK, pos);

	s->negated = accept(ps, T_TILDE);
	if (accept(ps, T_ACYCLIC))
		s->test = TEST_ACYCLIC;
	else if (accept(ps, T_IRREFLEXIVE))
		s->test = TEST_IRREFLEXIVE;
	else if (accept(ps, T_EMPTYKW))
		s->test = TEST_EMPTY;
	else
		syntax_error(ps, "'acyclic', 'irreflexive' or 'empty'");
	s->e = expr(ps);
	if (accept(ps, T_AS))
		s->name = expect_name(ps);
	if (flag && !s->name)
		die_at(pos, "a flag needs a name ('as NAME')");
}

static void add_bell_tag(struct cat_model *m, const char *tag)
{
	for (int i = 0; i < m->bell_tags.len; i++)
		if (m->bell_tags.items[i] == tag)
			return;
	vec_push(&m->bell_tags, (void *)tag);
}

/* "enum Name = 'a || 'b" binds Name to the set of its tags. */
static void enumeration(struct parser *ps, struct srcpos pos)
{
	struct cat_stmt *s = new_stmt(ps, S_LET, pos);
	struct cat_expr *tags = cat_new_expr(ps->m, X_SET, pos, 0);

	s->binds = arena_alloc(&ps->m->syntax, sizeof(*s->binds));
	s->nbinds = 1;
	s->binds->pos = pos;
	s->binds->slot = -1;
	s->binds->pat = single(ps, expect_name(ps));
	expect(ps, T_EQUAL, "'='");
	accept(ps, T_BARBAR);
	do {
		struct cat_expr *tag = cat_new_expr(ps->m, X_TAG, ps->pos, 0);

		tag->name = ps->text;
		expect(ps, T_TAGNAME, "tag");
		arena_push(&ps->m->syntax, tags->args, tags->n, tag);
	} while (accept(ps, T_BARBAR));
	s->binds->e = tags;
	vec_push(ps->enums, s);
}

/* The tags an `instructions` argument stands for: 'a, {'a,'b} or an enum. */
static void instruction_tags(struct parser *ps, struct cat_expr *arg)
{
	if (arg->kind == X_TAG) {
		add_bell_tag(ps->m, arg->name);
		return;
	}
	if (arg->kind == X_SET) {
		for (int i = 0; i < arg->n; i++)
			instruction_tags(ps, arg->args[i]);
		return;
	}
	if (arg->kind == X_VAR)
		for (int i = ps->enums->len - 1; i >= 0; i--) {
			struct cat_stmt *s = ps->enums->items[i];

			if (s->binds->pat.names[0] == arg->name) {
				instruction_tags(ps, s->binds->e);
				return;
			}
		}
	die_at(arg->pos, "tags or an enum name expected");
}

/* "instructions R[...]": the tags become event sets, e.g. 'once -> Once. */
static void instructions(struct parser *ps)
{
	struct cat_expr *args = cat_new_expr(ps->m, X_TUPLE, ps->pos, 0);

	expect_name(ps);
	expect(ps, T_LBRAC, "'['");
	base_list(ps, args, T_RBRAC, "']'");
	for (int i = 0; i < args->n; i++)
		instruction_tags(ps, args->args[i]);
}

static void parse_file(struct cat_model *m, const char *name,
		       struct srcpos from, int depth, struct vec *enums);

static void if_statements(struct parser *ps);

static void statement(struct parser *ps)
{
	struct srcpos pos = ps->pos;
	struct cat_stmt *s;

	switch (ps->tok) {
	case T_LET:
		next(ps);
		s = new_stmt(ps, accept(ps, T_REC) ? S_LETREC : S_LET, pos);
		s->nbinds = bindings(ps, &s->binds);
		accept(ps, T_IN);
		return;
	case T_WITH:
		next(ps);
		s = new_stmt(ps, S_WITH, pos);
		s->binds = arena_alloc(&ps->m->syntax, sizeof(*s->binds));
		s->nbinds = 1;
		s->binds->pos = pos;
		s->binds->slot = -1;
		s->binds->pat = single(ps, expect_name(ps));
		expect(ps, T_FROM, "'from'");
		s->binds->e = expr(ps);
		return;
	case T_FLAG:
		next(ps);
		test(ps, pos, true);
		return;
	case T_TILDE: case T_ACYCLIC: case T_IRREFLEXIVE: case T_EMPTYKW:
		test(ps, pos, false);
		return;
	case T_SHOW:
	case T_UNSHOW:
		/* Only graphs use these: parse and drop. */
		next(ps);
		expr(ps);
		if (accept(ps, T_AS))
			expect_name(ps);
		return;
	case T_INCLUDE:
		next(ps);
		if (ps->tok != T_STRING)
			syntax_error(ps, "file name string");
		parse_file(ps->m, ps->text, pos, ps->depth + 1, ps->enums);
		next(ps);
		return;
	case T_ENUM:
		next(ps);
		enumeration(ps, pos);
		return;
	case T_INSTRUCTIONS:
	case T_DEFAULT:
		next(ps);
		instructions(ps);
		return;
	case T_IF:
		next(ps);
		if_statements(ps);
		return;
	default:
		syntax_error(ps, "statement");
	}
}

/* Statements up to 'else' or 'end': kept, or parsed and dropped. */
static void branch_statements(struct parser *ps, bool taken)
{
	int stmts = ps->m->stmts.len, enums = ps->enums->len, tags = ps->m->bell_tags.len;

	while (ps->tok != T_ELSE && ps->tok != T_END) {
		if (ps->tok == T_EOF)
			syntax_error(ps, "'end'");
		statement(ps);
	}
	if (!taken) {
		ps->m->stmts.len = stmts;
		ps->enums->len = enums;
		ps->m->bell_tags.len = tags;
	}
}

/* "if COND STATEMENTS [else STATEMENTS] end", after the 'if' (see if_variant()). */
static void if_statements(struct parser *ps)
{
	bool set = variant_any(ps);

	branch_statements(ps, set);
	if (accept(ps, T_ELSE))
		branch_statements(ps, !set);
	expect(ps, T_END, "'end'");
}

/* ---- Files ---- */

char *model_file_read(const struct model_spec *spec, const char *path)
{
	size_t dir_len = strlen(spec->dir);
	const char *name = path;

	if (!spec->files)
		return read_file(path, NULL);
	if (!strncmp(path, spec->dir, dir_len) && path[dir_len] == '/')
		name = path + dir_len + 1;
	for (int i = 0; i < spec->nfiles; i++)
		if (!strcmp(spec->files[i].name, name))
			return xstrdup(spec->files[i].text);
	errno = ENOENT;
	return NULL;
}

static const char *find_lib(const char *name)
{
	for (int i = 0; i < cat_lib_nfiles; i++)
		if (!strcmp(cat_lib_files[i].name, name))
			return cat_lib_files[i].text;
	return NULL;
}

/* The path of file `name` relative to the model directory, in the model's arena. */
static char *in_dir(struct cat_model *m, const char *name)
{
	char *path = arena_alloc(&m->syntax, strlen(m->dir) + strlen(name) + 2);

	if (name[0] == '/')
		strcpy(path, name);
	else
		sprintf(path, "%s/%s", m->dir, name);
	return path;
}

/* How a file of our library is named in messages: <lib>/NAME. */
static const char lib_prefix[] = "<lib>/";

/* A model file: from the model directory, else from our built-in library. */
static char *load_text(struct cat_model *m, const char *name,
		       struct srcpos from, char **path)
{
	const char *lib;
	char *text;

	*path = in_dir(m, name);
	text = model_file_read(m->spec, *path);
	if (text)
		return text;
	lib = find_lib(name);
	if (!lib)
		die_at(from, "cannot read model file %s: %s", *path, strerror(errno));
	*path = arena_alloc(&m->syntax, strlen(lib_prefix) + strlen(name) + 1);
	sprintf(*path, "%s%s", lib_prefix, name);
	return xstrdup(lib);
}

void cat_each_source(struct cat_model *m,
		     void (*fn)(void *arg, const char *path, const char *text), void *arg)
{
	for (int i = 0; i < m->texts.len; i++) {
		const char *path = m->files.items[i];
		size_t n = strlen(lib_prefix);

		if (strncmp(path, lib_prefix, n))
			fn(arg, path, m->texts.items[i]);
		else
			fn(arg, in_dir(m, path + n), NULL);
	}
}

static void parse_file(struct cat_model *m, const char *name,
		       struct srcpos from, int depth, struct vec *enums)
{
	struct parser ps = { .m = m, .line = 1, .depth = depth,
			     .enums = enums };
	char *path, *text = load_text(m, name, from, &path);

	vec_push(&m->files, path);
	vec_push(&m->texts, text);
	if (depth > 20)
		die_at(from, "includes nested too deeply");
	ps.file = path;
	ps.src = ps.p = ps.line_start = text;
	next(&ps);
	/* The identity, skipped: "TITLE", "NAME", "NAME TITLE" or "NAME NAME". */
	if (ps.tok == T_NAME || ps.tok == T_STRING) {
		bool named = ps.tok == T_NAME;

		next(&ps);
		if (named && (ps.tok == T_NAME || ps.tok == T_STRING))
			next(&ps);
	}
	while (ps.tok != T_EOF)
		statement(&ps);
}

static const char *cfg_value(const char *line, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n) || (line[n] != ' ' && line[n] != '\t'))
		return NULL;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	return line;
}

bool cat_variant(const struct cat_model *m, const char *name)
{
	for (int i = 0; i < m->variants.len; i++)
		if (!strcasecmp(m->variants.items[i], name))
			return true;
	return false;
}

/* Set each variant of a list separated by commas or blanks, as herd7's -variant does. */
static void add_variants(struct cat_model *m, const char *list)
{
	static const char separators[] = ", \t";

	for (const char *p = list + strspn(list, separators); *p; p += strspn(p, separators)) {
		size_t len = strcspn(p, separators);
		char *name = xstrndup(p, len);

		for (char *c = name; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		if (!cat_variant(m, name))
			vec_push(&m->variants, (void *)cat_intern(m, name, len));
		free(name);
		p += len;
	}
}

/* Where the cfg's "bell" and "model" lines name their files. */
struct cfg_files {
	const char *bell, *model;
	struct srcpos bell_pos, model_pos;
};

/* One line of the cfg, without its end of line. */
static void cfg_line(struct cat_model *m, const char *line, struct srcpos pos,
		     struct cfg_files *cfg)
{
	const char *v;

	if ((v = cfg_value(line, "macros"))) {
		m->macros = in_dir(m, v);
	} else if ((v = cfg_value(line, "bell"))) {
		cfg->bell = cat_intern(m, v, strlen(v));
		cfg->bell_pos = pos;
	} else if ((v = cfg_value(line, "model"))) {
		cfg->model = cat_intern(m, v, strlen(v));
		cfg->model_pos = pos;
	} else if ((v = cfg_value(line, "variant"))) {
		add_variants(m, v);
	}
}

/*
 * The cfg: "macros FILE", "bell FILE", "model FILE", "variant NAMES"; the
 * other settings only concern graphs.  stdlib.cat comes first, then the
 * bell, the cat.  The text is kept as read (cat_each_source() hands it on).
 */
void cat_parse_cfg(struct cat_model *m, const struct model_spec *spec)
{
	struct vec *enums = &m->enums;
	struct srcpos pos = { NULL, 0, 1 };
	struct cfg_files cfg = { NULL, NULL, pos, pos };
	char *path = in_dir(m, spec->cfg_name);
	char *text;

	intern_keywords(m);
	if (spec->variants)
		add_variants(m, spec->variants);
	vec_push(&m->files, path);
	text = model_file_read(spec, path);
	if (!text)
		die(EXIT_BAD_INPUT, "cannot read %s: %s", path, strerror(errno));
	vec_push(&m->texts, text);
	pos.file = path;
	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		char *copy = xstrndup(line, strcspn(line, "\r\n"));

		pos.line++;
		cfg_line(m, copy, pos, &cfg);
		free(copy);
		line += len + (line[len] == '\n');
	}
	if (!cfg.model)
		die_at(pos, "no 'model' line in the cfg file");
	parse_file(m, "stdlib.cat", pos, 0, enums);
	if (cfg.bell)
		parse_file(m, cfg.bell, cfg.bell_pos, 0, enums);
	parse_file(m, cfg.model, cfg.model_pos, 0, enums);
	vec_free(enums);
}

/* ---- Freeing ---- */

void cat_free_syntax(struct cat_model *m)
{
	vec_free(&m->enums);	/* a parse that failed leaves them */
	vec_free(&m->stmts);
	vec_free(&m->invariants);
	arena_free(&m->syntax);
}
