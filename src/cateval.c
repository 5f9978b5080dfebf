/*
 * cateval.c - evaluate a resolved model on one execution.
 *
 * The steps (checks and withs, see catresolve.c) run in continuation
 * style: a `with` runs the steps after it once per choice.  A slot gets
 * its value when first needed, in the arena of its level, and keeps it
 * until its level's generation changes: so what a check does not need is
 * never computed, and what a choice does not change is computed once.
 * Flags are only evaluated for accepted executions.
 */
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "catast.h"

/* ---- Arena ---- */

enum { ARENA_BLOCK = 1 << 20 };

struct block {
	size_t cap;
	alignas(max_align_t) unsigned char data[];
};

static void *run_alloc(struct cat_model *m, size_t size)
{
	struct cat_arena *a = &m->arenas[m->arena];
	struct block *b;

	size = (size + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
	b = a->cur < a->blocks.len ? a->blocks.items[a->cur] : NULL;
	if (!b || a->used + size > b->cap) {
		if (b)
			a->cur++;
		if (a->cur == a->blocks.len)
			vec_push(&a->blocks, NULL);
		b = a->blocks.items[a->cur];
		if (!b || b->cap < size) {
			size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;

			free(b);
			b = xmalloc(sizeof(*b) + cap);
			b->cap = cap;
			a->blocks.items[a->cur] = b;
		}
		a->used = 0;
	}
	a->used += size;
	return b->data + a->used - size;
}

/* A new generation for `level` and the levels after it. */
static void renew_levels(struct cat_model *m, int level)
{
	for (; level < m->nlevels; level++) {
		m->gens[level]++;
		m->arenas[level].cur = 0;
		m->arenas[level].used = 0;
	}
}

/* ---- Values ---- */

static struct cat_value empty_value = { .kind = V_EMPTY };

static const char *kind_name(enum cat_value_kind kind)
{
	static const char *const names[] = {
		[V_EMPTY] = "empty", [V_SET] = "event set",
		[V_REL] = "relation", [V_EVENT] = "event", [V_PAIR] = "pair",
		[V_TAG] = "tag", [V_TUPLE] = "tuple", [V_VALSET] = "set",
		[V_CLO] = "function", [V_PRIM] = "function",
		[V_CROSS] = "set of relations",
	};
	return names[kind];
}

struct cat_value *cat_new_value(struct cat_model *m, enum cat_value_kind kind)
{
	struct cat_value *v = run_alloc(m, sizeof(*v));

	memset(v, 0, sizeof(*v));
	v->kind = kind;
	return v;
}

struct cat_value *cat_new_set(struct cat_model *m)
{
	struct cat_value *v = cat_new_value(m, V_SET);

	v->u.set = run_alloc(m, set_bytes(m->x->nevents));
	set_init(v->u.set, m->x->nevents);
	return v;
}

struct cat_value *cat_new_rel(struct cat_model *m)
{
	struct cat_value *v = cat_new_value(m, V_REL);

	v->u.rel = run_alloc(m, rel_bytes(m->x->nevents));
	rel_init(v->u.rel, m->x->nevents);
	return v;
}

static _Noreturn void type_error(struct srcpos pos, const char *want,
				 const struct cat_value *v)
{
	die_at(pos, "%s expected, found a %s", want, kind_name(v->kind));
}

struct set *cat_as_set(struct cat_model *m, struct cat_value *v,
		       struct srcpos pos)
{
	if (v->kind == V_EMPTY)
		return cat_new_set(m)->u.set;
	if (v->kind != V_SET)
		type_error(pos, "event set", v);
	return v->u.set;
}

struct rel *cat_as_rel(struct cat_model *m, struct cat_value *v,
		       struct srcpos pos)
{
	if (v->kind == V_EMPTY)
		return cat_new_rel(m)->u.rel;
	if (v->kind != V_REL)
		type_error(pos, "relation", v);
	return v->u.rel;
}

static int value_cmp(const struct cat_value *a, const struct cat_value *b)
{
	if (a->kind != b->kind)
		return (int)a->kind - (int)b->kind;
	switch (a->kind) {
	case V_SET:
		return set_cmp(a->u.set, b->u.set);
	case V_REL:
		return rel_cmp(a->u.rel, b->u.rel);
	case V_EVENT:
		return a->u.ev - b->u.ev;
	case V_PAIR:
		return a->u.pair.a != b->u.pair.a ? a->u.pair.a - b->u.pair.a
						  : a->u.pair.b - b->u.pair.b;
	case V_TAG:
		return strcmp(a->u.tag, b->u.tag);
	case V_TUPLE:
	case V_VALSET:
		if (a->u.list.n != b->u.list.n)
			return a->u.list.n - b->u.list.n;
		for (int i = 0; i < a->u.list.n; i++) {
			int c = value_cmp(a->u.list.items[i], b->u.list.items[i]);

			if (c)
				return c;
		}
		return 0;
	default:
		return a < b ? -1 : a > b;
	}
}

static int value_ptr_cmp(const void *a, const void *b)
{
	return value_cmp(*(struct cat_value *const *)a,
			 *(struct cat_value *const *)b);
}

/* A set of values from a list: sorted, without duplicates; frees items. */
struct cat_value *cat_valset(struct cat_model *m, struct vec *items)
{
	struct cat_value *v = cat_new_value(m, V_VALSET);
	int n = 0;

	qsort(items->items, items->len, sizeof(void *), value_ptr_cmp);
	v->u.list.items = run_alloc(m, items->len * sizeof(void *));
	for (int i = 0; i < items->len; i++)
		if (!n || value_cmp(v->u.list.items[n - 1], items->items[i]))
			v->u.list.items[n++] = items->items[i];
	v->u.list.n = n;
	vec_free(items);
	return v;
}

static void push_members(struct cat_model *m, struct cat_value *v, void *arg)
{
	(void)m;
	vec_push(arg, v);
}

/* v ++ coll: add an event, a pair or any value to a collection. */
struct cat_value *cat_add(struct cat_model *m, struct cat_value *v,
			  struct cat_value *coll, struct srcpos pos)
{
	struct cat_value *r;
	struct vec items = { 0 };

	if (coll->kind == V_EMPTY && v->kind == V_EVENT)
		coll = cat_new_set(m);
	else if (coll->kind == V_EMPTY && v->kind == V_PAIR)
		coll = cat_new_rel(m);
	switch (coll->kind) {
	case V_SET:
		if (v->kind != V_EVENT)
			type_error(pos, "event", v);
		r = cat_new_set(m);
		set_copy(r->u.set, coll->u.set);
		set_add(r->u.set, v->u.ev);
		return r;
	case V_REL:
		if (v->kind != V_PAIR)
			type_error(pos, "pair", v);
		r = cat_new_rel(m);
		rel_copy(r->u.rel, coll->u.rel);
		rel_add(r->u.rel, v->u.pair.a, v->u.pair.b);
		return r;
	case V_EMPTY:
	case V_VALSET:
		cat_each_member(m, coll, pos, push_members, &items);
		vec_push(&items, v);
		return cat_valset(m, &items);
	default:
		type_error(pos, "set", coll);
	}
}

/* ---- Members of collections ---- */

void cat_each_member(struct cat_model *m, struct cat_value *coll,
		     struct srcpos pos,
		     void (*each)(struct cat_model *m, struct cat_value *v,
				  void *arg), void *arg)
{
	struct cat_value *v;

	switch (coll->kind) {
	case V_EMPTY:
		return;
	case V_SET:
		for (int e = set_next(coll->u.set, 0); e >= 0;
		     e = set_next(coll->u.set, e + 1)) {
			v = cat_new_value(m, V_EVENT);
			v->u.ev = e;
			each(m, v, arg);
		}
		return;
	case V_REL:
		for (int a = 0; a < coll->u.rel->n; a++)
			for (int b = 0; b < coll->u.rel->n; b++)
				if (rel_has(coll->u.rel, a, b)) {
					v = cat_new_value(m, V_PAIR);
					v->u.pair.a = a;
					v->u.pair.b = b;
					each(m, v, arg);
				}
		return;
	case V_VALSET:
		for (int i = 0; i < coll->u.list.n; i++)
			each(m, coll->u.list.items[i], arg);
		return;
default:
		type_error(pos, "set", coll);
	}
}

/* ---- Expressions ---- */

static struct cat_value *eval(struct cat_model *m, struct cat_expr *e,
			      struct cat_frame *env);

static struct cat_frame *bind(struct cat_model *m, const struct cat_pat *pat,
			      struct cat_value *v, struct cat_frame *env,
			      struct srcpos pos)
{
	if (pat->tuple && (v->kind != V_TUPLE || v->u.list.n != pat->n))
		die_at(pos, "a tuple of %d expected, found a %s", pat->n,
		       kind_name(v->kind));
	for (int i = 0; i < pat->n; i++) {
		struct cat_frame *f = run_alloc(m, sizeof(*f));

		f->name = pat->names[i];
		f->val = pat->tuple ? v->u.list.items[i] : v;
		f->up = env;
		env = f;
	}
	return env;
}

struct cat_value *cat_apply(struct cat_model *m, struct cat_value *f,
			    struct cat_value *arg, struct srcpos pos)
{
	struct cat_value *p;

	if (f->kind == V_CLO) {
		struct cat_expr *fun = f->u.clo.fun;

		return eval(m, fun->args[0],
			    bind(m, &fun->param, arg, f->u.clo.env, pos));
	}
	if (f->kind != V_PRIM)
		type_error(pos, "function", f);
	p = cat_new_value(m, V_PRIM);
	p->u.prim = f->u.prim;
	p->u.prim.args = run_alloc(m, f->u.prim.arity * sizeof(void *));
	if (f->u.prim.nargs)
		memcpy(p->u.prim.args, f->u.prim.args,
		       f->u.prim.nargs * sizeof(void *));
	p->u.prim.args[p->u.prim.nargs++] = arg;
	if (p->u.prim.nargs < p->u.prim.arity)
		return p;
	return p->u.prim.fn(m, p->u.prim.args, pos);
}

static struct cat_value *slot_value(struct cat_model *m, int slot);

static struct cat_value *lookup(struct cat_model *m, struct cat_expr *e,
				struct cat_frame *env)
{
	if (e->slot >= 0)
		return slot_value(m, e->slot);
	for (; env; env = env->up)
		if (env->name == e->name)
			return env->val;
	die_internal_at(e->pos, "'%s' has no value", e->name);
}

/* The result of a binary operation when an operand is the untyped {}. */
static struct cat_value *with_empty(enum cat_expr_kind op, struct cat_value *a,
				    struct cat_value *b)
{
	if (op == X_UNION)
		return a->kind == V_EMPTY ? b : a;
	if (op == X_DIFF && a->kind != V_EMPTY)
		return a;
	return &empty_value;
}

static struct cat_value *valset_op(struct cat_model *m, enum cat_expr_kind op,
				   struct cat_value *a, struct cat_value *b)
{
	struct vec items = { 0 };

	for (int i = 0; i < a->u.list.n; i++) {
		bool in_b = false;

		for (int j = 0; j < b->u.list.n && !in_b; j++)
			in_b = !value_cmp(a->u.list.items[i], b->u.list.items[j]);
		if (op == X_UNION || in_b == (op == X_INTER))
			vec_push(&items, a->u.list.items[i]);
	}
	if (op == X_UNION)
		for (int j = 0; j < b->u.list.n; j++)
			vec_push(&items, b->u.list.items[j]);
	return cat_valset(m, &items);
}

/* a | b, a & b, a \ b on two values of the same kind. */
static struct cat_value *set_op(struct cat_model *m, struct cat_expr *e,
				struct cat_value *a, struct cat_value *b)
{
	enum cat_expr_kind op = e->kind;
	struct cat_value *r;

	if (a->kind == V_EMPTY || b->kind == V_EMPTY)
		return with_empty(op, a, b);
	if (a->kind != b->kind)
		die_at(e->pos, "operands of different types: %s and %s",
		       kind_name(a->kind), kind_name(b->kind));
	switch (a->kind) {
	case V_SET:
		r = cat_new_set(m);
		if (op == X_UNION)
			set_union(r->u.set, a->u.set, b->u.set);
		else if (op == X_INTER)
			set_inter(r->u.set, a->u.set, b->u.set);
		else
			set_diff(r->u.set, a->u.set, b->u.set);
		return r;
	case V_REL:
		r = cat_new_rel(m);
		if (op == X_UNION)
			rel_union(r->u.rel, a->u.rel, b->u.rel);
		else if (op == X_INTER)
			rel_inter(r->u.rel, a->u.rel, b->u.rel);
		else
			rel_diff(r->u.rel, a->u.rel, b->u.rel);
		return r;
	case V_VALSET:
		return valset_op(m, op, a, b);
	default:
		die_at(e->pos, "set or relation expected, found a %s",
		       kind_name(a->kind));
	}
}

static struct cat_value *eval_union(struct cat_model *m, struct cat_expr *e,
				    struct cat_frame *env)
{
	struct cat_value *acc = eval(m, e->args[0], env);

	for (int i = 1; i < e->n; i++)
		acc = set_op(m, e, acc, eval(m, e->args[i], env));
	return acc;
}

static struct cat_value *identity(struct cat_model *m, const struct set *s);

/* r restricted to pairs from dom to ran, as a new relation. */
static struct rel *restricted(struct cat_model *m, const struct rel *r,
			      const struct set *dom, const struct set *ran)
{
	struct rel *out = cat_new_rel(m)->u.rel;

	rel_copy(out, r);
	rel_restrict(out, dom, ran);
	return out;
}

/*
 * A sequence stops at the first empty step, as herd's does.  A step [S]
 * only filters the rows or columns of its neighbour, so it is applied as
 * a filter rather than composed with.
 */
static struct cat_value *eval_seq(struct cat_model *m, struct cat_expr *e,
				  struct cat_frame *env)
{
	struct set *dom = m->all;	/* filter on the left, until acc */
	struct rel *acc = NULL;
	struct cat_value *v;

	for (int i = 0; i < e->n; i++) {
		struct cat_expr *arg = e->args[i];
		bool filter = arg->kind == X_TOID;

		v = eval(m, filter ? arg->args[0] : arg, env);
		if (v->kind == V_EMPTY)
			return &empty_value;
		if (filter) {
			struct set *s = cat_as_set(m, v, arg->args[0]->pos);

			if (acc) {
				acc = restricted(m, acc, m->all, s);
			} else {
				struct set *d = cat_new_set(m)->u.set;

				set_inter(d, dom, s);
				dom = d;
			}
		} else if (!acc) {
			acc = restricted(m, cat_as_rel(m, v, arg->pos), dom, m->all);
		} else {
			struct rel *r = cat_new_rel(m)->u.rel;

			rel_seq(r, acc, cat_as_rel(m, v, arg->pos));
			acc = r;
		}
		if (acc ? rel_is_empty(acc) : set_is_empty(dom))
			return &empty_value;
	}
	if (!acc)
		return identity(m, dom);
	v = cat_new_value(m, V_REL);
	v->u.rel = acc;
	return v;
}

static struct cat_value *identity(struct cat_model *m, const struct set *s)
{
	struct cat_value *r = cat_new_rel(m);

	rel_add_id(r->u.rel, s);
	return r;
}

/* ~a: the complement among all events, or all pairs of events. */
static struct cat_value *complement(struct cat_model *m, struct cat_expr *e,
				    struct cat_value *a)
{
	struct cat_value *r;

	if (a->kind == V_SET) {
		r = cat_new_set(m);
		set_diff(r->u.set, m->all, a->u.set);
		return r;
	}
	if (a->kind == V_REL) {
		struct cat_value *all = cat_new_rel(m);

		rel_cartesian(all->u.rel, m->all, m->all);
		rel_diff(all->u.rel, all->u.rel, a->u.rel);
		return all;
	}
	die_at(e->pos, "event set or relation expected, found a %s",
	       kind_name(a->kind));
}

/* r+, r*, r?, r^-1 */
static struct cat_value *closure(struct cat_model *m, struct cat_expr *e,
				 struct cat_value *a)
{
	struct cat_value *r;

	if (a->kind == V_PAIR && e->kind == X_INV) {
		r = cat_new_value(m, V_PAIR);
		r->u.pair.a = a->u.pair.b;
		r->u.pair.b = a->u.pair.a;
		return r;
	}
	if (a->kind == V_EMPTY)
		return e->kind == X_STAR || e->kind == X_OPT ? identity(m, m->all)
							     : a;
	r = cat_new_rel(m);
	switch (e->kind) {
	case X_INV:
		rel_inverse(r->u.rel, cat_as_rel(m, a, e->pos));
		break;
	case X_PLUS:
	case X_STAR:
		rel_closure(r->u.rel, cat_as_rel(m, a, e->pos));
		if (e->kind == X_STAR)
			rel_add_id(r->u.rel, m->all);
		break;
	default:
		rel_copy(r->u.rel, cat_as_rel(m, a, e->pos));
		rel_add_id(r->u.rel, m->all);
	}
	return r;
}

static struct cat_value *eval_set(struct cat_model *m, struct cat_expr *e,
				  struct cat_frame *env)
{
	struct cat_value *acc = &empty_value;

	for (int i = 0; i < e->n; i++)
		acc = cat_add(m, eval(m, e->args[i], env), acc, e->args[i]->pos);
	return acc;
}

static struct cat_value *eval_tuple(struct cat_model *m, struct cat_expr *e,
				    struct cat_frame *env)
{
	struct cat_value *v = cat_new_value(m, V_TUPLE);

	v->u.list.n = e->n;
	v->u.list.items = run_alloc(m, e->n * sizeof(void *));
	for (int i = 0; i < e->n; i++)
		v->u.list.items[i] = eval(m, e->args[i], env);
	return v;
}

/* Fixpoint iteration is done when no value grew in a round. */
static bool grown(struct cat_value *old, struct cat_value *new)
{
	switch (new->kind) {
	case V_EMPTY:
		return false;
	case V_SET:
		return old->kind != V_SET || !set_subset(new->u.set, old->u.set);
	case V_REL:
		return old->kind != V_REL || !rel_subset(new->u.rel, old->u.rel);
	case V_CLO:
		return old->kind != V_CLO;
	default:
		return value_cmp(old, new) != 0;
	}
}

/*
 * let rec: every name starts as {} and the bindings are evaluated in
 * turn, each seeing the latest values, until a round changes nothing.
 * `cells` holds the frames (local) or slots (top level) of the names.
 */
static void fixpoint(struct cat_model *m, struct cat_bind *binds, int n,
		     struct cat_value ***cells, struct cat_frame *env)
{
	bool again = true;

	for (int i = 0; i < n; i++) {
		if (binds[i].pat.tuple)
			die_at(binds[i].pos, "tuples in 'let rec' are not supported");
		*cells[i] = &empty_value;
	}
	while (again) {
		again = false;
		for (int i = 0; i < n; i++) {
			struct cat_value *v = eval(m, binds[i].e, env);

			again |= grown(*cells[i], v);
			*cells[i] = v;
		}
	}
}

static struct cat_value *eval_let(struct cat_model *m, struct cat_expr *e,
				  struct cat_frame *env)
{
	struct cat_frame *inner = env;

	if (e->kind == X_LETREC) {
		struct cat_value **cells[e->nbinds];

		for (int i = 0; i < e->nbinds; i++) {
			inner = bind(m, &e->binds[i].pat, &empty_value, inner,
				     e->binds[i].pos);
			cells[i] = &inner->val;
		}
		fixpoint(m, e->binds, e->nbinds, cells, inner);
	} else {
		for (int i = 0; i < e->nbinds; i++)
			inner = bind(m, &e->binds[i].pat,
				     eval(m, e->binds[i].e, env), inner,
				     e->binds[i].pos);
	}
	return eval(m, e->args[0], inner);
}

static struct cat_value *eval(struct cat_model *m, struct cat_expr *e,
			      struct cat_frame *env)
{
	struct cat_value *a, *b, *r;

	switch (e->kind) {
	case X_VAR:
		return lookup(m, e, env);
	case X_TAG:
		r = cat_new_value(m, V_TAG);
		r->u.tag = e->name;
		return r;
	case X_ZERO:
		return cat_new_rel(m);
	case X_EMPTY:
		return &empty_value;
	case X_UNIV:
		r = cat_new_value(m, V_SET);
		r->u.set = m->all;
		return r;
	case X_SET:
		return eval_set(m, e, env);
	case X_TUPLE:
		return eval_tuple(m, e, env);
	case X_UNION:
		return eval_union(m, e, env);
	case X_SEQ:
		return eval_seq(m, e, env);
	case X_INTER:
	case X_DIFF:
		return set_op(m, e, eval(m, e->args[0], env),
			      eval(m, e->args[1], env));
	case X_CART:
		a = eval(m, e->args[0], env);
		b = eval(m, e->args[1], env);
		r = cat_new_rel(m);
		rel_cartesian(r->u.rel, cat_as_set(m, a, e->args[0]->pos),
			      cat_as_set(m, b, e->args[1]->pos));
		return r;
	case X_ADD:
		a = eval(m, e->args[0], env);
		return cat_add(m, a, eval(m, e->args[1], env), e->pos);
	case X_COMP:
		return complement(m, e, eval(m, e->args[0], env));
	case X_INV:
	case X_PLUS:
	case X_STAR:
	case X_OPT:
		return closure(m, e, eval(m, e->args[0], env));
	case X_TOID:
		a = eval(m, e->args[0], env);
		if (a->kind == V_EMPTY)
			return a;
		return identity(m, cat_as_set(m, a, e->args[0]->pos));
	case X_APP:
		a = eval(m, e->args[0], env);
		return cat_apply(m, a, eval(m, e->args[1], env), e->pos);
	case X_FUN:
		r = cat_new_value(m, V_CLO);
		r->u.clo.fun = e;
		r->u.clo.env = env;
		return r;
	case X_LET:
	case X_LETREC:
		return eval_let(m, e, env);
	case X_TRY:
		return eval(m, e->args[e->use_handler], env);
	}
	die_internal_at(e->pos, "unknown expression");
}

/* ---- Slots ---- */

static void set_slot(struct cat_model *m, int slot, struct cat_value *v)
{
	m->vals[slot] = v;
	m->slots[slot].gen = m->gens[m->slots[slot].level];
}

/* Evaluate a let or a let rec, giving its slots their values. */
static void define(struct cat_model *m, struct cat_stmt *s)
{
	if (s->kind == S_LETREC) {
		struct cat_value **cells[s->nbinds];

		for (int i = 0; i < s->nbinds; i++) {
			set_slot(m, s->binds[i].slot, &empty_value);
			cells[i] = &m->vals[s->binds[i].slot];
		}
		fixpoint(m, s->binds, s->nbinds, cells, NULL);
		return;
	}
	for (int i = 0; i < s->nbinds; i++) {
		struct cat_bind *b = &s->binds[i];
		struct cat_value *v = eval(m, b->e, NULL);

		if (!b->pat.tuple) {
			set_slot(m, b->slot, v);
			continue;
		}
		if (v->kind != V_TUPLE || v->u.list.n != b->pat.n)
			die_at(b->pos, "a tuple of %d expected, found a %s",
			       b->pat.n, kind_name(v->kind));
		for (int j = 0; j < b->pat.n; j++)
			set_slot(m, b->slot + j, v->u.list.items[j]);
	}
}

/* The value of a slot, computed in its level's arena if need be. */
static struct cat_value *slot_value(struct cat_model *m, int slot)
{
	struct cat_slot *sl = &m->slots[slot];
	int arena = m->arena;

	if (sl->gen == m->gens[sl->level])
		return m->vals[slot];
	m->arena = sl->level;
	if (sl->predef)
		set_slot(m, slot, sl->predef->compute(m, sl->predef->arg));
	else if (sl->definer->kind == S_WITH)
		die_internal_at(sl->definer->pos, "'%s' read before its choice",
				sl->name);
	else
		define(m, sl->definer);
	m->arena = arena;
	return m->vals[slot];
}

/* ---- Steps ---- */

static bool test_holds(struct cat_model *m, struct cat_stmt *s)
{
	struct cat_value *v = eval(m, s->e, NULL);
	bool holds;

	if (v->kind == V_EMPTY)
		holds = true;
	else if (s->test == TEST_EMPTY && v->kind == V_SET)
		holds = set_is_empty(v->u.set);
	else if (s->test == TEST_EMPTY && v->kind == V_VALSET)
		holds = v->u.list.n == 0;
	else if (s->test == TEST_EMPTY)
		holds = rel_is_empty(cat_as_rel(m, v, s->e->pos));
	else if (s->test == TEST_ACYCLIC)
		holds = rel_is_acyclic(cat_as_rel(m, v, s->e->pos));
	else
		holds = rel_is_irreflexive(cat_as_rel(m, v, s->e->pos));
	return holds != s->negated;
}

/* Whether a check or flag holds, known once per generation of its level. */
static bool holds(struct cat_model *m, struct cat_stmt *s)
{
	int arena = m->arena;

	if (s->gen == m->gens[s->level])
		return s->holds;
	m->arena = s->level;
	s->holds = test_holds(m, s);
	s->gen = m->gens[s->level];
	m->arena = arena;
	return s->holds;
}

static void add_flag(struct vec *flags, const char *name)
{
	for (int i = 0; i < flags->len; i++)
		if (flags->items[i] == name)
			return;
	vec_push(flags, (void *)name);
}

static void accept(struct cat_model *m)
{
	struct cat_outcome out;

	m->flags.len = 0;
	for (int i = 0; i < m->flag_stmts.len; i++) {
		struct cat_stmt *s = m->flag_stmts.items[i];

		if (holds(m, s))
			add_flag(&m->flags, s->name);
	}
	out.flags = (const char **)m->flags.items;
	out.nflags = m->flags.len;
	m->visitor->accept(m->visitor->arg, &out);
}

static void run_from(struct cat_model *m, int at);

struct choice {
	struct cat_stmt *with;
	int next;		/* the step after it */
};

static void try_choice(struct cat_model *m, struct cat_value *v, void *arg)
{
	struct choice *c = arg;

	renew_levels(m, c->with->level);
	set_slot(m, c->with->binds[0].slot, v);
	run_from(m, c->next);
}

struct cross_walk {
	struct cat_value **members;	/* each a set of relations */
	int n;
	struct rel **acc;		/* acc[i]: the union of i picks */
	struct cat_value *leaf;		/* holds acc[n] */
	struct choice *choice;
};

static void walk_cross(struct cat_model *m, struct cross_walk *w, int i)
{
	struct cat_value *member;

	if (i == w->n) {
		try_choice(m, w->leaf, w->choice);
		return;
	}
	member = w->members[i];
	for (int j = 0; j < member->u.list.n; j++) {
		rel_union(w->acc[i + 1], w->acc[i], member->u.list.items[j]->u.rel);
		walk_cross(m, w, i + 1);
	}
}

/*
 * Every union of one relation from each member of a cross(...), built
 * in place: the choice is only valid until the next one.
 */
static void each_cross(struct cat_model *m, struct cat_value *cross,
		       struct choice *c)
{
	int n = cross->u.list.n;
	struct rel *acc[n + 1];
	struct cross_walk w = { cross->u.list.items, n, acc,
				cat_new_value(m, V_REL), c };

	for (int i = 0; i <= n; i++)
		acc[i] = cat_new_rel(m)->u.rel;
	w.leaf->u.rel = acc[n];
	walk_cross(m, &w, 0);
}

/* The choices live in the arena of the level before the `with`'s. */
static void run_with(struct cat_model *m, struct cat_stmt *s, int next)
{
	struct choice c = { s, next };
	struct cat_expr *e = s->binds[0].e;
	int arena = m->arena;
	struct cat_value *coll;

	m->arena = s->level - 1;
	coll = eval(m, e, NULL);
	if (coll->kind == V_CROSS)
		each_cross(m, coll, &c);
	else
		cat_each_member(m, coll, e->pos, try_choice, &c);
	m->arena = arena;
}

/* Run the steps from `at` on; every path ends in accept or reject. */
static void run_from(struct cat_model *m, int at)
{
	for (; at < m->steps.len; at++) {
		struct cat_stmt *s = m->steps.items[at];

		if (s->kind == S_WITH) {
			run_with(m, s, at + 1);
			return;
		}
		if (!holds(m, s)) {
			m->failed = s;
			m->visitor->reject(m->visitor->arg, s->name);
			m->failed = NULL;
			return;
		}
	}
	accept(m);
}

static void key_add(struct vec *key, uintptr_t word)
{
	vec_push(key, (void *)word);
}

static void key_add_rel(struct vec *key, const struct rel *r)
{
	for (size_t i = 0; i < (size_t)r->n * r->words; i++)
		key_add(key, (uintptr_t)r->w[i]);
}

/*
 * What the static level depends on: the events (values included, as they
 * differ between traces of one program) and the relations among them.
 */
static void structure_key(const struct execution *x, struct vec *key)
{
	const struct rel *rels[] = { x->po, x->rmw, x->addr, x->data, x->ctrl };

	key_add(key, (uintptr_t)x->nevents);
	for (int i = 0; i < x->nevents; i++) {
		const struct event *e = &x->events[i];

		key_add(key, (uintptr_t)e->proc << 32 | (uint32_t)e->poi);
		key_add(key, (uintptr_t)e->kind << 8 | e->atomic << 1 | e->has_val);
		key_add(key, (uintptr_t)e->loc << 1 | e->val.is_addr);
		key_add(key, (uintptr_t)e->val.n);
		key_add(key, (uintptr_t)e->ntags);
		for (int t = 0; t < e->ntags; t++) {
			for (const char *c = e->tags[t]; *c; c++)
				key_add(key, (unsigned char)*c);
			key_add(key, 0);
		}
	}
	for (size_t i = 0; i < sizeof(rels) / sizeof(rels[0]); i++)
		key_add_rel(key, rels[i]);
	for (int w = 0; w < (x->nevents + 63) / 64; w++)
		key_add(key, (uintptr_t)x->iw->w[w]);
}

void cat_run(struct cat_model *m, const struct execution *x,
	     const struct cat_visitor *v)
{
	struct vec *key = &m->keys[m->key], *last = &m->keys[!m->key];

	m->x = x;
	m->visitor = v;
	key->len = 0;
	structure_key(x, key);
	if (key->len == last->len &&
	    !memcmp(key->items, last->items, key->len * sizeof(void *))) {
		renew_levels(m, LEVEL_EXECUTION);
	} else {
		m->key = !m->key;
		renew_levels(m, LEVEL_STATIC);
		m->arena = LEVEL_STATIC;
		m->all = run_alloc(m, set_bytes(x->nevents));
		set_init(m->all, x->nevents);
		set_fill(m->all);
	}
	run_from(m, 0);
}

/* ---- Loading ---- */

struct cat_model *cat_load(const char *model_dir, const char *cfg_name)
{
	struct cat_model *m = xcalloc(1, sizeof(*m));

	m->dir = xstrdup(model_dir);
	cat_parse_cfg(m, cfg_name);
	cat_resolve(m);
	m->vals = xcalloc(m->nslots, sizeof(*m->vals));
	m->gens = xcalloc(m->nlevels, sizeof(*m->gens));
	m->arenas = xcalloc(m->nlevels, sizeof(*m->arenas));
	for (int i = 0; i < m->nlevels; i++)
		m->gens[i] = 1;	/* slots start at 0: not computed */
	return m;
}

const char *cat_macros_file(const struct cat_model *m)
{
	return m->macros;
}

static void free_vec(struct vec *v)
{
	for (int i = 0; i < v->len; i++)
		free(v->items[i]);
	vec_free(v);
}

void cat_free(struct cat_model *m)
{
	free_vec(&m->names);
	free_vec(&m->files);
	free_vec(&m->texts);
	for (int i = 0; i < m->nlevels; i++)
		free_vec(&m->arenas[i].blocks);
	free(m->arenas);
	free(m->gens);
	vec_free(&m->keys[0]);
	vec_free(&m->keys[1]);
	vec_free(&m->bell_tags);
	cat_free_syntax(m);
	vec_free(&m->steps);
	vec_free(&m->flag_stmts);
	vec_free(&m->flags);
	free(m->tag_sets);
	free(m->slots);
	free(m->vals);
	free(m->dir);
	free(m->macros);
	free(m);
}

/* ---- Explanations ---- */

int cat_failed_cycle(struct cat_model *m, int *cycle, int max)
{
	struct cat_stmt *s = m->failed;
	struct cat_value *v;
	int arena = m->arena, n;

	if (!s || (s->test != TEST_ACYCLIC && s->test != TEST_IRREFLEXIVE) || s->negated)
		return 0;
	m->arena = s->level;
	v = eval(m, s->e, NULL);
	m->arena = arena;
	if (v->kind != V_REL)
		return 0;
	if (s->test == TEST_ACYCLIC)
		return rel_find_cycle(v->u.rel, cycle, max);
	for (n = 0; n < v->u.rel->n; n++) {
		if (rel_has(v->u.rel, n, n) && max > 0) {
			cycle[0] = n;
			return 1;
		}
	}
	return 0;
}

bool cat_relates(struct cat_model *m, const char *name, int a, int b)
{
	/* The last binding of the name that this execution has computed. */
	for (int i = m->nslots - 1; i >= 0; i--) {
		struct cat_slot *sl = &m->slots[i];

		if (strcmp(sl->name, name) || sl->gen != m->gens[sl->level])
			continue;
		return m->vals[i]->kind == V_REL && rel_has(m->vals[i]->u.rel, a, b);
	}
	return false;
}
