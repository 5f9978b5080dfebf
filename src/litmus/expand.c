/*
 * expand.c - macro expansion: every call of a linux-kernel.def macro in a
 * process is replaced by the macro's body, its parameters bound to the
 * call's (already expanded) arguments, as herd7 does before running a test.
 */
#include "litmus.h"

#include <string.h>

/* The macros, and the arena of the test the expanded trees join. */
struct expander {
	const struct macro_table *table;
	struct arena *arena;
};

/*
 * Parameter bindings of the macro being expanded, and where the test
 * called it: what the body expands to is stamped with that position, so
 * that an event names the test's line, not the .def file's.
 */
struct frame {
	const struct macro *macro;
	struct expr **args;
	struct srcpos call_pos;
};

const struct macro *macro_find(const struct macro_table *table, const char *name)
{
	int i;

	for (i = 0; i < table->n; i++)
		if (!strcmp(table->macros[i].name, name))
			return &table->macros[i];
	return NULL;
}

static struct expr *bound_arg(const struct frame *f, const char *name)
{
	int i;

	if (!f)
		return NULL;
	for (i = 0; i < f->macro->nparams; i++)
		if (!strcmp(f->macro->params[i], name))
			return f->args[i];
	return NULL;
}

static struct expr *expand_expr(struct expr *e, const struct expander *x, const struct frame *f);

static struct expr **expand_args(struct expr **args, int n,
				 const struct expander *x, const struct frame *f)
{
	struct expr **out = arena_alloc(x->arena, n * sizeof(*out));
	int i;

	for (i = 0; i < n; i++)
		out[i] = expand_expr(args[i], x, f);
	return out;
}

static void check_arity(const struct macro *m, int nargs, struct srcpos pos)
{
	if (m->nparams != nargs)
		die_at(pos, "macro %s takes %d argument%s, %d given", m->name,
		       m->nparams, m->nparams == 1 ? "" : "s", nargs);
}

/*
 * atomic_add_unless() is known to herd7 without the .def file (6.14 and
 * older define no macro for it), with no annotation: under lkmmv1 it is
 * fenced whatever its annotation (events.c), under lkmmv2 it orders
 * nothing of itself.
 */
static struct expr *builtin_call(const struct expander *x, struct expr *call,
				 struct expr **args)
{
	struct expr *e;

	if (strcmp(call->name, "atomic_add_unless") || call->nargs != 3)
		die_at(call->pos, "Unknown macro %s", call->name);
	e = arena_alloc(x->arena, sizeof(*e));
	e->kind = X_ADD_UNLESS;
	e->pos = call->pos;
	e->nargs = 3;
	e->args = args;
	return e;
}

static struct expr *expand_call(struct expr *call, const struct expander *x, const struct frame *f)
{
	const struct macro *m = macro_find(x->table, call->name);
	struct expr **args = expand_args(call->args, call->nargs, x, f);
	struct frame inner;

	if (!m)
		return builtin_call(x, call, args);
	if (!m->expr)
		die_at(call->pos, "macro %s is a statement and has no value", m->name);
	check_arity(m, call->nargs, call->pos);
	inner.macro = m;
	inner.args = args;
	inner.call_pos = f ? f->call_pos : call->pos;
	return expand_expr(m->expr, x, &inner);
}

static struct expr *expand_expr(struct expr *e, const struct expander *x, const struct frame *f)
{
	struct expr *copy, *arg;

	if (e->kind == X_NAME && (arg = bound_arg(f, e->name)))
		return arg;
	if (e->kind == X_CALL)
		return expand_call(e, x, f);
	copy = arena_alloc(x->arena, sizeof(*copy));
	*copy = *e;
	if (f)
		copy->pos = f->call_pos;
	copy->args = expand_args(e->args, e->nargs, x, f);
	return copy;
}

static struct stmt *expand_stmt(struct stmt *s, const struct expander *x, const struct frame *f);

static struct stmt *expand_proc_call(struct stmt *s, const struct expander *x,
				     const struct frame *f)
{
	const struct macro *m = macro_find(x->table, s->name);
	struct expr **args = expand_args(s->args, s->nargs, x, f);
	struct frame inner;
	struct stmt *value;

	if (m && m->body) {
		check_arity(m, s->nargs, s->pos);
		inner.macro = m;
		inner.args = args;
		inner.call_pos = f ? f->call_pos : s->pos;
		return expand_stmt(m->body, x, &inner);
	}
	/* An expression macro called for its effect, e.g. "xchg(x, 1);". */
	value = arena_alloc(x->arena, sizeof(*value));
	value->kind = S_ASSIGN;
	value->pos = s->pos;
	value->nargs = 1;
	value->args = arena_alloc(x->arena, sizeof(*value->args));
	value->args[0] = arena_alloc(x->arena, sizeof(struct expr));
	value->args[0]->kind = X_CALL;
	value->args[0]->pos = s->pos;
	value->args[0]->name = s->name;
	value->args[0]->nargs = s->nargs;
	value->args[0]->args = s->args;
	return expand_stmt(value, x, f);
}

/* "V = e" inside a macro whose V is bound: a register or a '*p' store. */
static struct stmt *expand_assign_to_param(const struct expander *x, struct stmt *s,
					   struct expr *target)
{
	if (target->kind == X_NAME) {
		s->name = target->name;
		return s;
	}
	if (target->kind == X_LOAD && !target->annot.n) {
		struct expr *value = s->args[0];

		s->kind = S_STORE;
		s->name = NULL;
		s->nargs = 2;
		s->args = arena_alloc(x->arena, 2 * sizeof(*s->args));
		s->args[0] = target->args[0];
		s->args[1] = value;
		return s;
	}
	die_at(s->pos, "bad assignment target for macro argument %s", s->name);
}

static struct stmt *expand_stmt(struct stmt *s, const struct expander *x, const struct frame *f)
{
	struct stmt *copy;
	struct expr *target;
	int i;

	if (!s)
		return NULL;
	if (s->kind == S_CALL)
		return expand_proc_call(s, x, f);
	copy = arena_alloc(x->arena, sizeof(*copy));
	*copy = *s;
	if (f)
		copy->pos = f->call_pos;
	copy->args = expand_args(s->args, s->nargs, x, f);
	copy->body = arena_alloc(x->arena, s->nbody * sizeof(*copy->body));
	for (i = 0; i < s->nbody; i++)
		copy->body[i] = expand_stmt(s->body[i], x, f);
	if (s->kind == S_ASSIGN && s->name && (target = bound_arg(f, s->name)))
		return expand_assign_to_param(x, copy, target);
	return copy;
}

void litmus_expand(struct litmus *t, const struct macro_table *macros)
{
	const struct expander x = { macros, &t->arena };
	int i;

	for (i = 0; i < t->nprocs; i++)
		t->procs[i].body = expand_stmt(t->procs[i].body, &x, NULL);
}
