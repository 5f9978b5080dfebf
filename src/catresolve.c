/*
 * catresolve.c - prepare the statement list for fast evaluation.
 *
 * Every top-level binding gets its own slot (a redefinition such as
 * "let rf = rf | rf-lf" makes a new one), and every name is resolved to
 * the slot visible where it is written.  The statements then only depend
 * on each other through slots, so a slot can be computed when first
 * needed (see cateval.c) and kept as long as its level says: what does
 * not depend on a `with` choice is computed once for all choices, and
 * what depends on the event structure only (see catprim.c for which
 * predefined names do) once for all its executions.  The checks run by
 * level, each right after the last `with` it depends on.
 */
#include <stdlib.h>
#include <string.h>

#include "catast.h"

struct resolver {
	struct cat_model *m;
	struct vec locals;	/* local names in scope, innermost last */
	int probing;		/* inside the body of a `try` */
	bool unbound;		/* a probed name was unbound */
	struct vec *reads;	/* slots read by the current statement */
};

static int new_slot(struct cat_model *m, const char *name)
{
	m->slots = xrealloc(m->slots, (m->nslots + 1) * sizeof(*m->slots));
	memset(&m->slots[m->nslots], 0, sizeof(*m->slots));
	m->slots[m->nslots].name = name;
	return m->nslots++;
}

static int find_slot(struct cat_model *m, const char *name)
{
	for (int i = m->nslots - 1; i >= 0; i--)
		if (m->slots[i].name == name)
			return i;
	return -1;
}

static bool is_local(struct resolver *r, const char *name)
{
	for (int i = r->locals.len - 1; i >= 0; i--)
		if (r->locals.items[i] == name)
			return true;
	return false;
}

static void push_pat(struct resolver *r, const struct cat_pat *pat)
{
	for (int i = 0; i < pat->n; i++)
		vec_push(&r->locals, (void *)pat->names[i]);
}

static void pop_pat(struct resolver *r, const struct cat_pat *pat)
{
	r->locals.len -= pat->n;
}

static void resolve_expr(struct resolver *r, struct cat_expr *e);

static void resolve_var(struct resolver *r, struct cat_expr *e)
{
	if (is_local(r, e->name))
		return;
	e->slot = find_slot(r->m, e->name);
	if (e->slot >= 0) {
		vec_push(r->reads, (void *)(intptr_t)e->slot);
		return;
	}
	if (!r->probing)
		die_at(e->pos, "unbound name '%s'", e->name);
	r->unbound = true;
}

static void resolve_let(struct resolver *r, struct cat_expr *e)
{
	bool rec = e->kind == X_LETREC;

	if (rec)
		for (int i = 0; i < e->nbinds; i++)
			push_pat(r, &e->binds[i].pat);
	for (int i = 0; i < e->nbinds; i++)
		resolve_expr(r, e->binds[i].e);
	if (!rec)
		for (int i = 0; i < e->nbinds; i++)
			push_pat(r, &e->binds[i].pat);
	resolve_expr(r, e->args[0]);
	for (int i = 0; i < e->nbinds; i++)
		pop_pat(r, &e->binds[i].pat);
}

/* try e1 with e2: e2 stands in when e1 names something undefined. */
static void resolve_try(struct resolver *r, struct cat_expr *e)
{
	bool unbound = r->unbound;
	int nreads = r->reads->len;

	r->probing++;
	r->unbound = false;
	resolve_expr(r, e->args[0]);
	r->probing--;
	e->use_handler = r->unbound;
	r->unbound = unbound;
	if (e->use_handler) {
		r->reads->len = nreads;
		resolve_expr(r, e->args[1]);
	}
}

static void resolve_expr(struct resolver *r, struct cat_expr *e)
{
	switch (e->kind) {
	case X_VAR:
		resolve_var(r, e);
		return;
	case X_FUN:
		push_pat(r, &e->param);
		resolve_expr(r, e->args[0]);
		pop_pat(r, &e->param);
		return;
	case X_LET:
	case X_LETREC:
		resolve_let(r, e);
		return;
	case X_TRY:
		resolve_try(r, e);
		return;
	default:
		for (int i = 0; i < e->n; i++)
			resolve_expr(r, e->args[i]);
	}
}

/* Give the names of the bindings slots; a tuple pattern takes several. */
static void bind_slots(struct cat_model *m, struct cat_stmt *s)
{
	for (int i = 0; i < s->nbinds; i++) {
		const struct cat_pat *pat = &s->binds[i].pat;

		s->binds[i].slot = m->nslots;
		for (int j = 0; j < pat->n; j++)
			new_slot(m, pat->names[j] ? pat->names[j]
						  : cat_intern(m, "_", 1));
	}
}

static int resolve_stmt(struct resolver *r, struct cat_stmt *s)
{
	struct cat_model *m = r->m;

	if (s->kind == S_LETREC)
		bind_slots(m, s);
	for (int i = 0; i < s->nbinds; i++)
		resolve_expr(r, s->binds[i].e);
	if (s->e)
		resolve_expr(r, s->e);
	if (s->kind != S_LETREC)
		bind_slots(m, s);
	return m->nslots;
}

/* The level of a statement: the highest of the slots it reads. */
static int read_level(struct cat_model *m, struct vec *reads)
{
	int level = LEVEL_STATIC;

	for (int i = 0; i < reads->len; i++) {
		int slot = (int)(intptr_t)reads->items[i];

		if (m->slots[slot].level > level)
			level = m->slots[slot].level;
	}
	return level;
}

static void predefine(struct cat_model *m)
{
	struct vec defs = { 0 };

	cat_predefine(m, &defs);
	for (int i = 0; i < defs.len; i++) {
		const struct cat_predef *def = defs.items[i];
		int slot = new_slot(m, cat_intern(m, def->name, strlen(def->name)));

		m->slots[slot].predef = def;
		m->slots[slot].level = def->level;
	}
	vec_free(&defs);
}

/* Resolve every statement, giving it and the slots it binds a level. */
static void resolve_all(struct cat_model *m)
{
	struct resolver r = { .m = m };
	int withs = LEVEL_EXECUTION;

	for (int i = 0; i < m->stmts.len; i++) {
		struct cat_stmt *s = m->stmts.items[i];
		int first;

		s->index = i;
		r.reads = &s->reads;
		first = s->nbinds ? -1 : m->nslots;
		s->end_slot = resolve_stmt(&r, s);
		s->level = s->kind == S_WITH ? ++withs : read_level(m, &s->reads);
		if (first < 0)
			first = s->binds[0].slot;
		for (int slot = first; slot < s->end_slot; slot++) {
			m->slots[slot].level = s->level;
			m->slots[slot].definer = s;
		}
	}
	vec_free(&r.locals);
}

static int by_level(const void *a, const void *b)
{
	const struct cat_stmt *const *x = a, *const *y = b;

	if ((*x)->level != (*y)->level)
		return (*x)->level - (*y)->level;
	return (*x)->index - (*y)->index;	/* else keep the source order */
}

static void sort_by_level(struct vec *stmts)
{
	if (stmts->len)
		qsort(stmts->items, stmts->len, sizeof(void *), by_level);
}

void cat_resolve(struct cat_model *m)
{
	predefine(m);
	resolve_all(m);
	for (int i = 0; i < m->stmts.len; i++) {
		struct cat_stmt *s = m->stmts.items[i];

		if (s->kind == S_CHECK || s->kind == S_WITH)
			vec_push(&m->steps, s);
		else if (s->kind == S_FLAG)
			vec_push(&m->flag_stmts, s);
		if (s->level >= m->nlevels)
			m->nlevels = s->level + 1;
	}
	sort_by_level(&m->steps);
	sort_by_level(&m->flag_stmts);
	if (m->nlevels <= LEVEL_EXECUTION)
		m->nlevels = LEVEL_EXECUTION + 1;
}
