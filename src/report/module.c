/*
 * module.c - a litmus test as a Linux kernel module.
 *
 * The processes of a C litmus test are kernel C already, so each becomes
 * a function whose body is the test's, printed back from the parsed tree
 * with the kernel's own READ_ONCE(), smp_store_release(), spin_lock() ...
 * doing what linux-kernel.def models.  The shared locations become the
 * members of one instance, each on its own cache line; the registers the
 * final state names are copied out when a process ends.  The rest, the
 * kthreads, the barrier before each instance and the histogram, is the
 * same for every test: kernel/litmus/lkmm-runtime.h, which the module
 * includes.
 */
#include <string.h>

#include "report.h"

struct emitter {
	const struct litmus *test;
	const struct program *prog;
	const struct outcomes *vars;
	/* The registers copied out: the final state's, then the filter's. */
	int nrecorded;
	const struct state_var *recorded;
	const char **loc_type;		/* C type of each location */
	struct arena *scratch;		/* freed by the caller, even after die_at() */
	struct strbuf *out;
};

/*
 * Kernel functions whose first argument must point at a location of a
 * given type, so a test that says "int *v" but calls atomic_inc(v) still
 * compiles: the use decides.  Longer prefixes first.
 */
static const struct {
	const char *prefix;
	const char *type;
} typed_calls[] = {
	{ "atomic_long_", "atomic_long_t" },
	{ "atomic_", "atomic_t" },
	{ "spin_", "spinlock_t" },
	{ "srcu_", "struct srcu_struct" },
	{ "synchronize_srcu", "struct srcu_struct" },
	{ "call_srcu", "struct srcu_struct" },
};

static const char *call_arg_type(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(typed_calls) / sizeof(typed_calls[0]); i++)
		if (!strncmp(name, typed_calls[i].prefix, strlen(typed_calls[i].prefix)))
			return typed_calls[i].type;
	return NULL;
}

static void infer_from_call(struct emitter *em, const char *name, int nargs,
			    struct expr **args)
{
	const char *type = call_arg_type(name);
	int loc;

	if (!type || !nargs || args[0]->kind != X_NAME)
		return;
	loc = program_loc(em->prog, args[0]->name);
	if (loc >= 0 && !em->loc_type[loc])
		em->loc_type[loc] = type;
}

static void infer_expr(struct emitter *em, const struct expr *e)
{
	int i;

	if (!e)
		return;
	if (e->kind == X_CALL)
		infer_from_call(em, e->name, e->nargs, e->args);
	for (i = 0; i < e->nargs; i++)
		infer_expr(em, e->args[i]);
}

static void infer_stmt(struct emitter *em, const struct stmt *s)
{
	int i;

	if (!s)
		return;
	if (s->kind == S_CALL)
		infer_from_call(em, s->name, s->nargs, s->args);
	for (i = 0; i < s->nargs; i++)
		infer_expr(em, s->args[i]);
	for (i = 0; i < s->nbody; i++)
		infer_stmt(em, s->body[i]);
}

/* The type a pointer type points to: "int **" -> "int *"; NULL if none. */
static const char *pointee(struct emitter *em, const char *type)
{
	size_t len = strlen(type);

	if (!len || type[len - 1] != '*')
		return NULL;
	len--;
	while (len && type[len - 1] == ' ')
		len--;
	return arena_strndup(em->scratch, type, len);
}

/*
 * Each location's type: the init section's, else what the kernel
 * functions applied to it need, else its parameters' pointee, else int
 * (int * when it starts out holding an address).
 */
static void choose_types(struct emitter *em)
{
	const struct litmus *t = em->test;
	const struct program *p = em->prog;
	int i, k, loc;

	em->loc_type = arena_alloc(em->scratch, (p->nlocs ? p->nlocs : 1) * sizeof(*em->loc_type));
	for (i = 0; i < t->ninit; i++)
		if (t->init[i].proc < 0 && t->init[i].type)
			em->loc_type[program_loc(p, t->init[i].name)] = t->init[i].type;
	for (k = 0; k < t->nprocs; k++)
		infer_stmt(em, t->procs[k].body);
	for (k = 0; k < t->nprocs; k++) {
		for (i = 0; i < t->procs[k].nparams; i++) {
			const struct param *pa = &t->procs[k].params[i];
			const char *type;

			loc = program_loc(p, pa->name);
			if (loc < 0 || em->loc_type[loc] || !pa->type)
				continue;
			type = pointee(em, pa->type);
			if (type)
				em->loc_type[loc] = type;
		}
	}
	for (loc = 0; loc < p->nlocs; loc++)
		if (!em->loc_type[loc])
			em->loc_type[loc] = p->loc_init[loc].is_addr ? "int *" : "int";
}

static bool type_is(const char *type, const char *name)
{
	return !strcmp(type, name);
}

static bool is_atomic_type(const char *type)
{
	return type_is(type, "atomic_t") || type_is(type, "atomic_long_t");
}

/* "int r0", "int *r0": a declaration of name with a type as parse.c spells it. */
static void emit_declarator(struct emitter *em, const char *type, const char *name)
{
	sb_addf(em->out, "%s%s%s", type, type[strlen(type) - 1] == '*' ? "" : " ", name);
}

static void indent(struct emitter *em, int depth)
{
	while (depth-- > 0)
		sb_addf(em->out, "\t");
}

static const char *const binop_text[] = {
	[OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/",
	[OP_MOD] = "%", [OP_AND] = "&", [OP_OR] = "|", [OP_XOR] = "^",
	[OP_SHL] = "<<", [OP_SHR] = ">>", [OP_EQ] = "==", [OP_NE] = "!=",
	[OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=",
	[OP_LAND] = "&&", [OP_LOR] = "||",
};

static void emit_expr(struct emitter *em, const struct expr *e);

/*
 * A test may read an atomic_t with READ_ONCE(*v) or pass it to
 * smp_load_acquire(v), as herd7 takes any location for any access; in
 * the kernel's C, all but the atomic_*() calls take its counter.
 */
static bool is_atomic_location(struct emitter *em, const struct expr *e)
{
	int loc;

	if (e->kind != X_NAME)
		return false;
	loc = program_loc(em->prog, e->name);
	if (loc < 0)
		return false;
	return is_atomic_type(em->loc_type[loc]);
}

static void emit_args(struct emitter *em, const char *callee, int nargs, struct expr **args)
{
	const char *wanted = call_arg_type(callee);
	bool takes_atomic = wanted && is_atomic_type(wanted);
	int i;

	sb_addf(em->out, "(");
	for (i = 0; i < nargs; i++) {
		sb_addf(em->out, "%s", i ? ", " : "");
		if (!i && !takes_atomic && is_atomic_location(em, args[i]))
			sb_addf(em->out, "&%s->counter", args[i]->name);
		else
			emit_expr(em, args[i]);
	}
	sb_addf(em->out, ")");
}

/* herd7's own primitives (__load{once}, __xchg{mb} ...) have no kernel C. */
static _Noreturn void no_kernel_c(struct srcpos pos, const char *what)
{
	die_at(pos, "lkmm run cannot express %s in a kernel module (use the "
	       "kernel's macros, e.g. READ_ONCE(), as linux-kernel.def names them)", what);
}

static void emit_expr(struct emitter *em, const struct expr *e)
{
	switch (e->kind) {
	case X_CONST:
		sb_addf(em->out, "%lld", e->value);
		return;
	case X_NAME:
		sb_addf(em->out, "%s", e->name);
		return;
	case X_ADDR_OF:
		sb_addf(em->out, "&%s", e->name);
		return;
	case X_LOAD:
		if (e->annot.n)
			no_kernel_c(e->pos, "herd7's __load{}");
		if (is_atomic_location(em, e->args[0])) {
			sb_addf(em->out, "%s->counter", e->args[0]->name);
			return;
		}
		sb_addf(em->out, "*");
		if (e->args[0]->kind == X_NAME) {
			emit_expr(em, e->args[0]);
		} else {
			sb_addf(em->out, "(");
			emit_expr(em, e->args[0]);
			sb_addf(em->out, ")");
		}
		return;
	case X_UNARY:
		sb_addf(em->out, "%c(", e->op);
		emit_expr(em, e->args[0]);
		sb_addf(em->out, ")");
		return;
	case X_BINARY:
		sb_addf(em->out, "(");
		emit_expr(em, e->args[0]);
		sb_addf(em->out, " %s ", binop_text[e->op]);
		emit_expr(em, e->args[1]);
		sb_addf(em->out, ")");
		return;
	case X_CALL:
		sb_addf(em->out, "%s", e->name);
		emit_args(em, e->name, e->nargs, e->args);
		return;
	default:
		no_kernel_c(e->pos, "a primitive of herd7's own (__xchg, __cmpxchg, "
			    "__atomic_op_return, __trylock, __srcu ...)");
	}
}

/* The value a register starts with: the init section's, else 0. */
static void emit_reg_init(struct emitter *em, int proc, const char *name)
{
	const struct litmus *t = em->test;
	int i;

	for (i = 0; i < t->ninit; i++) {
		const struct init_item *it = &t->init[i];

		if (it->proc != proc || strcmp(it->name, name) || !it->has_value)
			continue;
		if (it->value.is_addr)
			sb_addf(em->out, "%s", it->value.addr_of);
		else
			sb_addf(em->out, "%lld", it->value.n);
		return;
	}
	sb_addf(em->out, "0");
}

/* The block parse.c makes of "int r0, r1;": its members belong to the enclosing scope. */
static bool is_declaration(const struct stmt *s)
{
	return s->kind == S_BLOCK && s->nbody && s->body[0]->kind == S_DECL;
}

static void emit_stmt(struct emitter *em, int proc, const struct stmt *s, int depth);

static void emit_body(struct emitter *em, int proc, const struct stmt *s, int depth)
{
	if (s->kind == S_BLOCK && !is_declaration(s)) {
		int i;

		for (i = 0; i < s->nbody; i++)
			emit_stmt(em, proc, s->body[i], depth);
	} else {
		emit_stmt(em, proc, s, depth);
	}
}

static void emit_branch(struct emitter *em, int proc, const struct stmt *s, int depth)
{
	sb_addf(em->out, " {\n");
	if (s)
		emit_body(em, proc, s, depth + 1);
	indent(em, depth);
	sb_addf(em->out, "}");
}

static void emit_stmt(struct emitter *em, int proc, const struct stmt *s, int depth)
{
	int i;

	if (is_declaration(s)) {
		for (i = 0; i < s->nbody; i++)
			emit_stmt(em, proc, s->body[i], depth);
		return;
	}
	indent(em, depth);
	switch (s->kind) {
	case S_BLOCK:
		sb_addf(em->out, "{\n");
		for (i = 0; i < s->nbody; i++)
			emit_stmt(em, proc, s->body[i], depth + 1);
		indent(em, depth);
		sb_addf(em->out, "}\n");
		return;
	case S_DECL:
		emit_declarator(em, s->type, s->name);
		sb_addf(em->out, " = ");
		emit_reg_init(em, proc, s->name);
		sb_addf(em->out, ";\n");
		return;
	case S_ASSIGN:
		if (s->name)
			sb_addf(em->out, "%s = ", s->name);
		emit_expr(em, s->args[0]);
		sb_addf(em->out, ";\n");
		return;
	case S_STORE:
		emit_expr(em, &(struct expr){ .kind = X_LOAD, .pos = s->pos, .nargs = 1,
					      .args = (struct expr *[]){ s->args[0] } });
		sb_addf(em->out, " = ");
		emit_expr(em, s->args[1]);
		sb_addf(em->out, ";\n");
		return;
	case S_IF:
	case S_WHILE:
		sb_addf(em->out, "%s (", s->kind == S_IF ? "if" : "while");
		emit_expr(em, s->args[0]);
		sb_addf(em->out, ")");
		emit_branch(em, proc, s->body[0], depth);
		if (s->kind == S_IF && s->nbody > 1 && s->body[1]) {
			sb_addf(em->out, " else");
			emit_branch(em, proc, s->body[1], depth);
		}
		sb_addf(em->out, "\n");
		return;
	case S_CALL:
		sb_addf(em->out, "%s", s->name);
		emit_args(em, s->name, s->nargs, s->args);
		sb_addf(em->out, ";\n");
		return;
	default:
		no_kernel_c(s->pos, "a statement of herd7's own (__fence, __lock, "
			    "__atomic_op, __srcu ...)");
	}
}

/* Names the process declares at its top level, where its end can see them. */
static bool declared_on_top(const struct stmt *body, const char *name)
{
	int i, j;

	for (i = 0; i < body->nbody; i++) {
		const struct stmt *s = body->body[i];

		if (s->kind == S_DECL && !strcmp(s->name, name))
			return true;
		if (!is_declaration(s))
			continue;
		for (j = 0; j < s->nbody; j++)
			if (s->body[j]->kind == S_DECL && !strcmp(s->body[j]->name, name))
				return true;
	}
	return false;
}

static const struct stmt *find_decl(const struct stmt *s, const char *name)
{
	int i;

	if (!s)
		return NULL;
	if (s->kind == S_DECL && !strcmp(s->name, name))
		return s;
	for (i = 0; i < s->nbody; i++) {
		const struct stmt *d = find_decl(s->body[i], name);

		if (d)
			return d;
	}
	return NULL;
}

struct names {
	int n;
	const char **items;
};

static void add_name(struct emitter *em, struct names *names, const char *name)
{
	int i;

	for (i = 0; i < names->n; i++)
		if (!strcmp(names->items[i], name))
			return;
	arena_push(em->scratch, names->items, names->n, name);
}

static void collect_assigned(struct emitter *em, const struct stmt *s, struct names *names)
{
	int i;

	if (!s)
		return;
	if (s->kind == S_ASSIGN && s->name)
		add_name(em, names, s->name);
	for (i = 0; i < s->nbody; i++)
		collect_assigned(em, s->body[i], names);
}

static bool is_param(const struct process *pr, const char *name)
{
	int i;

	for (i = 0; i < pr->nparams; i++)
		if (!strcmp(pr->params[i].name, name))
			return true;
	return false;
}

/*
 * Registers the test uses without declaring them at the top (herd7 does
 * not need declarations), declared here; one the final state reads but
 * the test declares inside a block is out of reach at the end.
 */
static int declare_registers(struct emitter *em, int proc)
{
	const struct litmus *t = em->test;
	const struct process *pr = &t->procs[proc];
	struct names names = { 0 };
	int i, declared = 0;

	collect_assigned(em, pr->body, &names);
	for (i = 0; i < t->ninit; i++)
		if (t->init[i].proc == proc)
			add_name(em, &names, t->init[i].name);
	for (i = 0; i < em->nrecorded; i++)
		if (em->recorded[i].proc == proc)
			add_name(em, &names, em->recorded[i].name);
	for (i = 0; i < names.n; i++) {
		const char *name = names.items[i];
		const struct stmt *d;
		const char *type = "int";
		int j;

		if (declared_on_top(pr->body, name) || is_param(pr, name))
			continue;
		d = find_decl(pr->body, name);
		if (d)
			die_at(d->pos, "lkmm run reads register %s when P%d ends, but it is "
			       "declared inside a block; declare it at the top of P%d",
			       name, proc, proc);
		for (j = 0; j < t->ninit; j++)
			if (t->init[j].proc == proc && !strcmp(t->init[j].name, name))
				type = t->init[j].type ? t->init[j].type :
				       t->init[j].value.is_addr ? "int *" : type;
		sb_addf(em->out, "\t");
		emit_declarator(em, type, name);
		sb_addf(em->out, " = ");
		emit_reg_init(em, proc, name);
		sb_addf(em->out, ";\n");
		declared++;
	}
	return declared;
}

static bool declares(const struct stmt *s)
{
	return s->kind == S_DECL || is_declaration(s);
}

/* The process' statements, a blank line after its declarations, as kernel style has it. */
static void emit_top(struct emitter *em, int proc, const struct stmt *body, bool declared)
{
	int i;

	if (body->kind != S_BLOCK || is_declaration(body)) {
		emit_stmt(em, proc, body, 1);
		return;
	}
	for (i = 0; i < body->nbody; i++) {
		if ((i ? declares(body->body[i - 1]) : declared) && !declares(body->body[i]))
			sb_addf(em->out, "\n");
		emit_stmt(em, proc, body->body[i], 1);
	}
}

static void emit_process(struct emitter *em, int proc)
{
	const struct process *pr = &em->test->procs[proc];
	int i;

	sb_addf(em->out, "static void lkmm_P%d(", proc);
	for (i = 0; i < pr->nparams; i++) {
		const char *type = em->loc_type[program_loc(em->prog, pr->params[i].name)];

		emit_declarator(em, type, "*");
		sb_addf(em->out, "%s, ", pr->params[i].name);
	}
	sb_addf(em->out, "long *lkmm_out)\n{\n");
	emit_top(em, proc, pr->body, declare_registers(em, proc) > 0);
	for (i = 0; i < em->nrecorded; i++)
		if (em->recorded[i].proc == proc)
			sb_addf(em->out, "\tlkmm_out[%d] = (long)%s;\n", i, em->recorded[i].name);
	sb_addf(em->out, "}\n\n");
}

static void emit_instance(struct emitter *em)
{
	const struct program *p = em->prog;
	int loc;

	sb_addf(em->out, "struct lkmm_inst {\n");
	for (loc = 0; loc < p->nlocs; loc++) {
		const char *type = em->loc_type[loc];

		sb_addf(em->out, "\t");
		emit_declarator(em, type, p->loc_names[loc]);
		sb_addf(em->out, " ____cacheline_aligned;\n");
	}
	sb_addf(em->out, "\tlong lkmm_out[%d] ____cacheline_aligned;\n};\n\n",
		em->nrecorded ? em->nrecorded : 1);
}

static void emit_loc_value(struct emitter *em, struct value v)
{
	if (v.is_addr)
		sb_addf(em->out, "&inst->%s", em->prog->loc_names[v.n]);
	else
		sb_addf(em->out, "%lld", v.n);
}

static void emit_init(struct emitter *em)
{
	const struct program *p = em->prog;
	bool srcu = false;
	int loc;

	sb_addf(em->out, "static void lkmm_init(void *data)\n{\n"
		"\tstruct lkmm_inst *inst = data;\n\n"
		"\tmemset(inst, 0, sizeof(*inst));\n");
	for (loc = 0; loc < p->nlocs; loc++) {
		const char *type = em->loc_type[loc], *name = p->loc_names[loc];

		if (type_is(type, "spinlock_t")) {
			sb_addf(em->out, "\tspin_lock_init(&inst->%s);\n", name);
		} else if (type_is(type, "struct srcu_struct")) {
			sb_addf(em->out, "\tinit_srcu_struct(&inst->%s);\n", name);
			srcu = true;
		} else if (is_atomic_type(type)) {
			sb_addf(em->out, "\t%s_set(&inst->%s, ",
				type_is(type, "atomic_t") ? "atomic" : "atomic_long", name);
			emit_loc_value(em, p->loc_init[loc]);
			sb_addf(em->out, ");\n");
		} else if (p->loc_init[loc].is_addr) {
			sb_addf(em->out, "\tinst->%s = (%s)", name, type);
			emit_loc_value(em, p->loc_init[loc]);
			sb_addf(em->out, ";\n");
		} else {
			sb_addf(em->out, "\tinst->%s = %lld;\n", name, p->loc_init[loc].n);
		}
	}
	sb_addf(em->out, "}\n\n");
	if (!srcu)
		return;
	sb_addf(em->out, "static void lkmm_fini(void *data)\n{\n"
		"\tstruct lkmm_inst *inst = data;\n\n");
	for (loc = 0; loc < p->nlocs; loc++)
		if (type_is(em->loc_type[loc], "struct srcu_struct"))
			sb_addf(em->out, "\tcleanup_srcu_struct(&inst->%s);\n", p->loc_names[loc]);
	sb_addf(em->out, "}\n\n");
}

static void emit_dispatch(struct emitter *em)
{
	const struct litmus *t = em->test;
	int k, i;

	sb_addf(em->out, "static void lkmm_proc(int k, void *data)\n{\n"
		"\tstruct lkmm_inst *inst = data;\n\n\tswitch (k) {\n");
	for (k = 0; k < t->nprocs; k++) {
		sb_addf(em->out, "\tcase %d:\n\t\tlkmm_P%d(", k, k);
		for (i = 0; i < t->procs[k].nparams; i++)
			sb_addf(em->out, "&inst->%s, ", t->procs[k].params[i].name);
		sb_addf(em->out, "inst->lkmm_out);\n\t\tbreak;\n");
	}
	sb_addf(em->out, "\t}\n}\n\n");
}

/* Where the condition names location name, for an error message. */
static bool find_cond_pos(const struct prop *pr, const char *name, struct srcpos *pos)
{
	if (!pr)
		return false;
	if (pr->kind == P_ATOM && pr->loc.proc < 0 && !strcmp(pr->loc.name, name)) {
		*pos = pr->loc.pos;
		return true;
	}
	return find_cond_pos(pr->left, name, pos) || find_cond_pos(pr->right, name, pos);
}

/* A location's value at the end, as a long: what the final state and the filter read. */
static void emit_location_value(struct emitter *em, int loc, struct srcpos pos)
{
	const char *type = em->loc_type[loc], *name = em->prog->loc_names[loc];

	if (type_is(type, "spinlock_t") || type_is(type, "struct srcu_struct"))
		die_at(pos, "lkmm run cannot read the final value of %s, a %s", name, type);
	if (is_atomic_type(type))
		sb_addf(em->out, "%s_read(&inst->%s)",
			type_is(type, "atomic_t") ? "atomic" : "atomic_long", name);
	else
		sb_addf(em->out, "(long)inst->%s", name);
}

/*
 * The final state: registers from where the processes left them,
 * locations from memory; a value equal to a location's address stands
 * for that location, as herd7 prints it.
 */
static void emit_final(struct emitter *em)
{
	const struct program *p = em->prog;
	const struct outcomes *o = em->vars;
	int i;

	sb_addf(em->out, "static long lkmm_loc_of(const struct lkmm_inst *inst, long v)\n{\n");
	for (i = 0; i < p->nlocs; i++)
		sb_addf(em->out, "\tif (v == (long)&inst->%s)\n\t\treturn %d;\n", p->loc_names[i], i);
	sb_addf(em->out, "\treturn -1;\n}\n\n");
	sb_addf(em->out, "static void lkmm_final(const void *data, struct lkmm_val *vals)\n{\n"
		"\tconst struct lkmm_inst *inst = data;\n\tint i;\n\n");
	for (i = 0; i < o->nvars; i++) {
		struct srcpos pos = { em->test->file, 1, 1 };

		sb_addf(em->out, "\tvals[%d].n = ", i);
		if (o->vars[i].proc >= 0) {
			sb_addf(em->out, "inst->lkmm_out[%d]", i);
		} else {
			find_cond_pos(em->test->cond, o->vars[i].name, &pos);
			emit_location_value(em, o->vars[i].index, pos);
		}
		sb_addf(em->out, ";\n");
	}
	sb_addf(em->out, "\tfor (i = 0; i < %d; i++)\n"
		"\t\tvals[i].loc = lkmm_loc_of(inst, vals[i].n);\n}\n\n", o->nvars);
}

static int recorded_index(const struct emitter *em, const struct cond_loc *l)
{
	int i;

	for (i = 0; i < em->nrecorded; i++)
		if (em->recorded[i].proc == l->proc && !strcmp(em->recorded[i].name, l->name))
			return i;
	die_internal_at(l->pos, "register %d:%s is not recorded", l->proc, l->name);
}

static void emit_filter_operand(struct emitter *em, const struct cond_loc *l)
{
	if (l->proc >= 0)
		sb_addf(em->out, "inst->lkmm_out[%d]", recorded_index(em, l));
	else
		emit_location_value(em, program_loc(em->prog, l->name), l->pos);
}

static void emit_filter_prop(struct emitter *em, const struct prop *pr)
{
	switch (pr->kind) {
	case P_TRUE:
	case P_FALSE:
		sb_addf(em->out, pr->kind == P_TRUE ? "true" : "false");
		break;
	case P_NOT:
		sb_addf(em->out, "!");
		emit_filter_prop(em, pr->left);
		break;
	case P_AND:
	case P_OR:
		sb_addf(em->out, "(");
		emit_filter_prop(em, pr->left);
		sb_addf(em->out, pr->kind == P_AND ? " && " : " || ");
		emit_filter_prop(em, pr->right);
		sb_addf(em->out, ")");
		break;
	case P_ATOM:
		sb_addf(em->out, "(");
		emit_filter_operand(em, &pr->loc);
		sb_addf(em->out, " == ");
		if (pr->rhs_is_loc)
			emit_filter_operand(em, &pr->rhs_loc);
		else if (pr->value.is_addr)
			sb_addf(em->out, "(long)&inst->%s", pr->value.addr_of);
		else
			sb_addf(em->out, "%lldL", pr->value.n);
		sb_addf(em->out, ")");
		break;
	}
}

/*
 * The filter clause: an instance whose final state fails it is not
 * counted, as herd7 does not count such executions.
 */
static void emit_filter(struct emitter *em)
{
	sb_addf(em->out, "static bool lkmm_keep(const void *data)\n{\n"
		"\tconst struct lkmm_inst *inst = data;\n\n\treturn ");
	emit_filter_prop(em, em->test->filter);
	sb_addf(em->out, ";\n}\n\n");
}

static void emit_c_string(struct strbuf *out, const char *s)
{
	sb_addf(out, "\"");
	for (; *s; s++)
		sb_addf(out, *s == '"' || *s == '\\' ? "\\%c" : "%c", *s);
	sb_addf(out, "\"");
}

static void emit_descriptor(struct emitter *em, bool has_fini)
{
	const struct program *p = em->prog;
	const struct outcomes *o = em->vars;
	struct strbuf vars = { 0 };
	int i;

	sb_addf(em->out, "static const char *const lkmm_loc_names[] = {");
	for (i = 0; i < p->nlocs; i++) {
		sb_addf(em->out, " ");
		emit_c_string(em->out, p->loc_names[i]);
		sb_addf(em->out, ",");
	}
	sb_addf(em->out, " NULL };\n\n");
	state_vars_print(o, &vars);
	sb_addf(em->out, "static const struct lkmm_test lkmm_this_test = {\n\t.name = ");
	emit_c_string(em->out, em->test->name);
	sb_addf(em->out, ",\n\t.nprocs = %d,\n\t.nvars = %d,\n\t.vars = ", em->test->nprocs,
		o->nvars);
	emit_c_string(em->out, vars.buf ? vars.buf : "");
	sb_addf(em->out, ",\n\t.loc_names = lkmm_loc_names,\n"
		"\t.inst_size = sizeof(struct lkmm_inst),\n"
		"\t.init = lkmm_init,\n\t.fini = %s,\n\t.proc = lkmm_proc,\n"
		"\t.final = lkmm_final,\n\t.keep = %s,\n};\n\n"
		"static int __init lkmm_module_init(void)\n{\n"
		"\treturn lkmm_run(&lkmm_this_test);\n}\n\n"
		"static void __exit lkmm_module_exit(void)\n{\n}\n\n"
		"module_init(lkmm_module_init);\nmodule_exit(lkmm_module_exit);\n"
		"MODULE_LICENSE(\"GPL\");\n"
		"MODULE_DESCRIPTION(\"a litmus test, run by lkmm run\");\n",
		has_fini ? "lkmm_fini" : "NULL", em->test->filter ? "lkmm_keep" : "NULL");
	sb_free(&vars);
}

/* What record_register() needs: the emitter and the list it grows. */
struct recorder {
	struct emitter *em;
	struct state_var **recorded;
};

/* A register the filter reads is recorded too, once. */
static void record_register(const struct cond_loc *l, void *ctx)
{
	struct recorder *r = ctx;
	struct emitter *em = r->em;
	int j;

	if (l->proc < 0)
		return;
	for (j = 0; j < em->nrecorded; j++)
		if ((*r->recorded)[j].proc == l->proc && !strcmp((*r->recorded)[j].name, l->name))
			return;
	arena_push(em->scratch, *r->recorded, em->nrecorded,
		   ((struct state_var){ l->proc, -1, l->name }));
}

void module_emit(const struct litmus *t, const struct program *p,
		 const struct outcomes *o, struct arena *scratch, struct strbuf *out)
{
	struct emitter em = { .test = t, .prog = p, .vars = o, .scratch = scratch, .out = out };
	struct state_var *recorded = NULL;
	bool has_fini = false;
	int i;

	for (i = 0; i < o->nvars; i++)
		arena_push(scratch, recorded, em.nrecorded, o->vars[i]);
	prop_each_loc(t->filter, record_register, &(struct recorder){ &em, &recorded });
	em.recorded = recorded;
	choose_types(&em);
	for (i = 0; i < p->nlocs; i++)
		has_fini |= type_is(em.loc_type[i], "struct srcu_struct");
	sb_addf(out, "// SPDX-License-Identifier: GPL-2.0\n"
		"/*\n * Generated by lkmm run from\n * %s\n */\n"
		"#include \"lkmm-runtime.h\"\n\n", t->file);
	emit_instance(&em);
	for (i = 0; i < t->nprocs; i++)
		emit_process(&em, i);
	emit_init(&em);
	emit_dispatch(&em);
	emit_final(&em);
	if (t->filter)
		emit_filter(&em);
	emit_descriptor(&em, has_fini);
}
