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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "catast.h"

struct resolver {
	struct cat_model *m;
	struct vec locals;	/* local names in scope, innermost last */
	int probing;		/* inside the body of a `try` */
	bool unbound;		/* a probed name was unbound */
	struct vec reads;	/* slots read by the current statement */
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
		vec_push(&r->reads, (void *)(intptr_t)e->slot);
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
	int nreads = r->reads.len;

	r->probing++;
	r->unbound = false;
	resolve_expr(r, e->args[0]);
	r->probing--;
	e->use_handler = r->unbound;
	r->unbound = unbound;
	if (e->use_handler) {
		r->reads.len = nreads;
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

/* ---- Hoisting ---- */

/*
 * The level e's value belongs to, or -1 when e cannot be kept apart
 * (it reads or binds local names).
 */
static int closed_level(struct cat_model *m, struct cat_expr *e)
{
	int level = LEVEL_STATIC;

	switch (e->kind) {
	case X_VAR:
		return e->slot < 0 ? -1 : m->slots[e->slot].level;
	case X_FUN:
	case X_LET:
	case X_LETREC:
		return -1;
	case X_TRY:
		return closed_level(m, e->args[e->use_handler]);
	default:
		break;
	}
	for (int i = 0; i < e->n; i++) {
		int arg = closed_level(m, e->args[i]);

		if (arg < 0)
			return -1;
		if (arg > level)
			level = arg;
	}
	return level;
}

/* A new slot of `level` bound to e, and a reference to it. */
static struct cat_expr *keep(struct cat_model *m, struct cat_expr *e, int level)
{
	struct cat_stmt *s = arena_alloc(&m->syntax, sizeof(*s));
	struct cat_expr *var = cat_new_expr(m, X_VAR, e->pos, 0);
	const char *name = cat_intern(m, "(invariant)", 11);

	s->kind = S_LET;
	s->pos = e->pos;
	s->level = level;
	s->nbinds = 1;
	s->binds = arena_alloc(&m->syntax, sizeof(*s->binds));
	s->binds->pos = e->pos;
	s->binds->e = e;
	s->binds->pat.n = 1;
	s->binds->pat.names = arena_alloc(&m->syntax, sizeof(char *));
	s->binds->pat.names[0] = name;
	s->binds->slot = new_slot(m, name);
	s->end_slot = s->binds->slot + 1;
	m->slots[s->binds->slot].level = level;
	m->slots[s->binds->slot].definer = s;
	vec_push(&m->invariants, s);
	var->name = name;
	var->slot = s->binds->slot;
	return var;
}

/* Gather the operands of e[from..to) into one operand of e's kind. */
static void group(struct cat_model *m, struct cat_expr *e, int from, int to)
{
	struct cat_expr *g = cat_new_expr(m, e->kind, e->args[from]->pos, to - from);

	memcpy(g->args, e->args + from, g->n * sizeof(*g->args));
	e->args[from] = g;
	memmove(e->args + from + 1, e->args + to, (e->n - to) * sizeof(*e->args));
	e->n -= to - from - 1;
}

/*
 * In a union, the operands that vary less than `level` make one group;
 * in a sequence, each run of consecutive such operands does.
 */
static void group_invariants(struct cat_model *m, struct cat_expr *e, int level)
{
	for (int i = 0; i < e->n; i++) {
		int end = i, l;

		if (e->kind == X_UNION) {
			for (int j = i; j < e->n; j++) {
				l = closed_level(m, e->args[j]);
				if (l >= 0 && l < level) {
					struct cat_expr *t = e->args[end];

					e->args[end++] = e->args[j];
					e->args[j] = t;
				}
			}
		} else {
			while (end < e->n && (l = closed_level(m, e->args[end])) >= 0 &&
			       l < level)
				end++;
		}
		if (end - i >= 2)
			group(m, e, i, end);
		if (e->kind == X_UNION)
			return;
	}
}

/*
 * Give the parts of *ep that vary less than `level` slots of their own,
 * computed once per generation of their level rather than of `level`:
 * e.g. the fence parts of mb do not depend on a coherence order.
 */
static void hoist(struct cat_model *m, struct cat_expr **ep, int level)
{
	struct cat_expr *e = *ep;
	int l;

	if (e->kind == X_FUN || e->kind == X_LET || e->kind == X_LETREC)
		return;
	if (e->kind == X_TRY) {
		hoist(m, &e->args[e->use_handler], level);
		return;
	}
	l = closed_level(m, e);
	if (l >= 0 && l < level && cat_worth_keeping(e)) {
		*ep = keep(m, e, l);
		return;
	}
	if (e->kind == X_UNION || e->kind == X_SEQ)
		group_invariants(m, e, level);
	for (int i = 0; i < e->n; i++)
		hoist(m, &e->args[i], level);
}

/*
 * The names a let rec binds change from one round of its fixpoint to the
 * next, while the parts of its bindings that do not read them hold for
 * the whole fixpoint: they get slots of their own, computed once rather
 * than every round (in the LKMM, rcu-order's (rcu-gp ; rcu-link ;
 * rcu-rscsi) and the rcu-gp ; rcu-link before its rcu-order).  For
 * hoist(), the names count as of a level above the statement's.
 */
static void hoist_letrec(struct cat_model *m, struct cat_stmt *s)
{
	int first = s->binds[0].slot;

	for (int slot = first; slot < s->end_slot; slot++)
		m->slots[slot].level = s->level + 1;
	for (int i = 0; i < s->nbinds; i++)
		hoist(m, &s->binds[i].e, s->level + 1);
	for (int slot = first; slot < s->end_slot; slot++)
		m->slots[slot].level = s->level;
}

static void hoist_stmt(struct cat_model *m, struct cat_stmt *s)
{
	if (s->kind == S_LETREC) {
		hoist_letrec(m, s);
		return;
	}
	if (s->kind == S_WITH || s->level == LEVEL_STATIC)
		return;
	for (int i = 0; i < s->nbinds; i++)
		hoist(m, &s->binds[i].e, s->level);
	if (s->e)
		hoist(m, &s->e, s->level);
}

/*
 * Common terms: a closed term written more than once (in the LKMM, hb*
 * in pb, rcu-link and rb; pb* in the last two) is computed once per
 * generation of its level, in a slot of its own, rather than once per
 * place.  Equal terms read the same slots, so they have the same value.
 * Not in a let rec, whose names change from round to round (its parts
 * that do not read them have their slots already, see hoist_letrec()),
 * nor in a with's choices.
 */
struct common {
	struct cat_expr **at;	/* where the term is */
	unsigned long hash;
	int size;		/* its nodes: the largest are shared first */
	int order;		/* its place in the text, for a stable result */
	int level;		/* closed_level()'s */
};

struct commons {
	struct cat_model *m;
	struct common *terms;
	int n, cap;
};

static bool same_term(const struct cat_expr *a, const struct cat_expr *b)
{
	if (a->kind != b->kind || a->n != b->n || a->slot != b->slot || a->name != b->name)
		return false;
	for (int i = 0; i < a->n; i++)
		if (!same_term(a->args[i], b->args[i]))
			return false;
	return true;
}

/*
 * Gather the closed terms worth a slot below *ep, as hoist() walks them,
 * in one pass from the leaves up: e's level as closed_level() gives it,
 * and its hash and size, are worked out from its operands'.
 */
static int gather_terms(struct commons *c, struct cat_expr **ep, unsigned long *hash, int *size)
{
	struct cat_expr *e = *ep;
	int level = LEVEL_STATIC;

	*hash = (unsigned long)e->kind * 31 + (unsigned long)e->slot * 1021 +
		(unsigned long)(uintptr_t)e->name;
	*size = 1;
	switch (e->kind) {
	case X_FUN:
	case X_LET:
	case X_LETREC:
		return -1;
	case X_TRY:
		return gather_terms(c, &e->args[e->use_handler], hash, size);
	case X_VAR:
		level = e->slot < 0 ? -1 : c->m->slots[e->slot].level;
		break;
	default:
		break;
	}
	for (int i = 0; i < e->n; i++) {
		unsigned long h;
		int n, l = gather_terms(c, &e->args[i], &h, &n);

		*hash = *hash * 1000003 ^ h;
		*size += n;
		level = l < 0 || level < 0 ? -1 : l > level ? l : level;
	}
	if (level >= 0 && cat_worth_keeping(e)) {
		c->terms = grow_array(c->terms, c->n, &c->cap, sizeof(*c->terms));
		c->terms[c->n] = (struct common){ ep, *hash, *size, c->n, level };
		c->n++;
	}
	return level;
}

static int by_size_then_hash(const void *a, const void *b)
{
	const struct common *x = a, *y = b;

	if (x->size != y->size)
		return y->size - x->size;
	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->order - y->order;
}

/* A term no longer in the model: its parts are not shared from there. */
static void mark_gone(bool *gone, const struct cat_expr *e)
{
	gone[e->id] = true;
	for (int i = 0; i < e->n; i++)
		mark_gone(gone, e->args[i]);
}

/* A reference to the slot var reads, for another place. */
static struct cat_expr *same_var(struct cat_model *m, const struct cat_expr *var,
				 struct srcpos pos)
{
	struct cat_expr *ref = cat_new_expr(m, X_VAR, pos, 0);

	ref->name = var->name;
	ref->slot = var->slot;
	return ref;
}

/*
 * Leave out the terms whose hash no other term has, most of them, before
 * the rest are sorted: this runs whenever a model is loaded and not
 * found in the cache.  The hashes are counted in a table of twice their
 * number or more, a power of two, by open addressing.
 */
static void keep_repeated(struct commons *c)
{
	size_t size = 16;
	struct { unsigned long hash; int count; } *table;
	int kept = 0;

	while (size < 2 * (size_t)c->n)
		size *= 2;
	table = xcalloc(size, sizeof(*table));
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < c->n; i++) {
			size_t at = c->terms[i].hash & (size - 1);

			while (table[at].count && table[at].hash != c->terms[i].hash)
				at = (at + 1) & (size - 1);
			if (!pass) {
				table[at].hash = c->terms[i].hash;
				table[at].count++;
			} else if (table[at].count > 1) {
				c->terms[kept++] = c->terms[i];
			}
		}
	c->n = kept;
	free(table);
}

static void share_common_terms(struct cat_model *m)
{
	struct commons c = { m, NULL, 0, 0 };
	int nstmts = m->stmts.len, ninvariants = m->invariants.len, nexprs = m->nexprs;
	bool *gone = xcalloc(nexprs + 1, sizeof(*gone));
	unsigned long hash;
	int size;

	for (int i = 0; i < nstmts + ninvariants; i++) {
		struct cat_stmt *s = i < nstmts ? m->stmts.items[i] : m->invariants.items[i - nstmts];

		if (s->kind == S_WITH || s->kind == S_LETREC)
			continue;
		for (int j = 0; j < s->nbinds; j++)
			gather_terms(&c, &s->binds[j].e, &hash, &size);
		if (s->e)
			gather_terms(&c, &s->e, &hash, &size);
	}
	keep_repeated(&c);
	qsort(c.terms, c.n, sizeof(*c.terms), by_size_then_hash);
	for (int i = 0; i < c.n; i++) {
		struct cat_expr *first = *c.terms[i].at, *var = NULL;

		if (first->id >= nexprs || gone[first->id])
			continue;	/* shared already, or in a place shared */
		for (int j = i + 1; j < c.n && c.terms[j].size == c.terms[i].size &&
				    c.terms[j].hash == c.terms[i].hash; j++) {
			struct cat_expr *e = *c.terms[j].at;

			if (e->id >= nexprs || gone[e->id] || !same_term(first, e))
				continue;
			if (!var)
				var = keep(m, first, c.terms[i].level);
			if (e != first)
				mark_gone(gone, e);
			*c.terms[j].at = same_var(m, var, e->pos);
		}
		if (var)
			*c.terms[i].at = var;
	}
	free(gone);
	free(c.terms);
}

/* Resolve every statement, giving it and the slots it binds a level. */
static void resolve_each(void *arg)
{
	struct resolver *r = arg;
	struct cat_model *m = r->m;
	int withs = LEVEL_EXECUTION;

	for (int i = 0; i < m->stmts.len; i++) {
		struct cat_stmt *s = m->stmts.items[i];
		int first;

		s->index = i;
		r->reads.len = 0;
		first = s->nbinds ? -1 : m->nslots;
		s->end_slot = resolve_stmt(r, s);
		s->level = s->kind == S_WITH ? ++withs : read_level(m, &r->reads);
		if (first < 0)
			first = s->binds[0].slot;
		for (int slot = first; slot < s->end_slot; slot++) {
			m->slots[slot].level = s->level;
			m->slots[slot].definer = s;
		}
		hoist_stmt(m, s);
	}
}

/* The resolver's scopes are freed when an unbound name ends the load too. */
static void resolve_all(struct cat_model *m)
{
	struct resolver r = { .m = m };
	int status = catch_die(resolve_each, &r);

	vec_free(&r.locals);
	vec_free(&r.reads);
	if (status)
		die_again(status);
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
	share_common_terms(m);
	for (int i = 0; i < m->stmts.len; i++) {
		struct cat_stmt *s = m->stmts.items[i];

		if (s->kind == S_CHECK || s->kind == S_WITH)
			vec_push(&m->steps, s);
		else if (s->kind == S_FLAG)
			vec_push(&m->flag_stmts, s);
		if (s->level >= m->nlevels)
			m->nlevels = s->level + 1;
	}
	/* An evaluation's state of a statement is by index: the invariants' follow. */
	for (int i = 0; i < m->invariants.len; i++)
		((struct cat_stmt *)m->invariants.items[i])->index = m->stmts.len + i;
	sort_by_level(&m->steps);
	sort_by_level(&m->flag_stmts);
	if (m->nlevels <= LEVEL_EXECUTION)
		m->nlevels = LEVEL_EXECUTION + 1;
}
