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

/*
 * Small enough for malloc to carve from its heap rather than map and
 * unmap each block: a small test uses a few KB of each level's arena,
 * and at start-up every mapping costs more than its use.
 */
enum { ARENA_BLOCK = 1 << 16 };

struct block {
	size_t cap;
	alignas(max_align_t) unsigned char data[];
};

/* size bytes from the next block of a, made or grown to hold them, now the one in use. */
static void *next_block(struct cat_arena *a, size_t size)
{
	struct block *b;

	if (a->next)
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
	a->next = b->data + size;
	a->left = b->cap - size;
	return b->data;
}

/* a emptied: its first block, if it has one, in use. */
static void arena_reset(struct cat_arena *a)
{
	struct block *b = a->blocks.len ? a->blocks.items[0] : NULL;

	a->cur = 0;
	a->next = b ? b->data : NULL;
	a->left = b ? b->cap : 0;
}

/*
 * Inlined, with the rare change of block apart: every value of every
 * verdict comes from here.  Never 0 bytes, so that an arena with no
 * block in use (none left) always takes the slow path.
 */
static inline void *run_alloc(struct cat_eval *ev, size_t size)
{
	struct cat_arena *a = &ev->arenas[ev->arena];

	size = ((size | 1) + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
	if (__builtin_expect(size > a->left, 0))
		return next_block(a, size);
	a->next += size;
	a->left -= size;
	return a->next - size;
}

/*
 * A new generation for `level` and the levels after it.  Generations are
 * drawn from one counter for all levels: a value computed at one level
 * never passes for current at another, as it could when the level
 * analysis (catlevel.c) moves a name from one level to another.
 */
static void renew_levels(struct cat_eval *ev, int level)
{
	for (; level < ev->m->nlevels; level++) {
		ev->gens[level] = ++ev->last_gen;
		arena_reset(&ev->arenas[level]);
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
		[V_CROSS] = "set of relations", [V_LINS] = "set of relations",
	};
	return names[kind];
}

/* Inlined: most terms of every verdict make a value, and the call cost as much as the rest. */
static inline struct cat_value *new_value(struct cat_eval *ev, enum cat_value_kind kind)
{
	struct cat_value *v = run_alloc(ev, sizeof(*v));

	memset(v, 0, sizeof(*v));
	v->kind = kind;
	return v;
}

struct cat_value *cat_new_value(struct cat_eval *ev, enum cat_value_kind kind)
{
	return new_value(ev, kind);
}

/*
 * A relation whose every word the caller is about to write (a union, a
 * sequence, a copy): not cleared first, as most relations an execution
 * makes are.  Its size is the execution's, worked out once in enter():
 * a division per relation made was 2% of C-ManfredSpraul-L1G2xchg.
 */
static inline struct rel *rel_to_fill(struct cat_eval *ev)
{
	struct rel *r = run_alloc(ev, ev->rel_size);

	r->n = ev->nevents;
	r->words = ev->words;
	return r;
}

/* The bytes of a value before the relation made with it (rel_value()), 16-aligned as run_alloc()'s. */
#define VALUE_BYTES ((sizeof(struct cat_value) + 15) & ~(size_t)15)

/* A relation value to fill, as rel_to_fill(): the value and its words in one allocation. */
static inline struct cat_value *rel_value(struct cat_eval *ev)
{
	struct cat_value *v = run_alloc(ev, VALUE_BYTES + ev->rel_size);
	struct rel *r = (struct rel *)((char *)v + VALUE_BYTES);

	memset(v, 0, sizeof(*v));
	v->kind = V_REL;
	v->u.rel = r;
	r->n = ev->nevents;
	r->words = ev->words;
	return v;
}

struct cat_value *cat_new_set(struct cat_eval *ev)
{
	struct cat_value *v = new_value(ev, V_SET);

	v->u.set = run_alloc(ev, ev->set_size);
	memset(v->u.set, 0, ev->set_size);
	v->u.set->n = ev->nevents;
	return v;
}

struct cat_value *cat_new_rel(struct cat_eval *ev)
{
	struct cat_value *v = rel_value(ev);

	memset(v->u.rel->w, 0, ev->rel_size - sizeof(struct rel));
	return v;
}

static _Noreturn void type_error(struct srcpos pos, const char *want,
				 const struct cat_value *v)
{
	die_at(pos, "%s expected, found a %s", want, kind_name(v->kind));
}

struct set *cat_as_set(struct cat_eval *ev, struct cat_value *v,
		       struct srcpos pos)
{
	if (v->kind == V_EMPTY)
		return cat_new_set(ev)->u.set;
	if (v->kind != V_SET)
		type_error(pos, "event set", v);
	return v->u.set;
}

struct rel *cat_as_rel(struct cat_eval *ev, struct cat_value *v,
		       struct srcpos pos)
{
	if (v->kind == V_EMPTY)
		return cat_new_rel(ev)->u.rel;
	if (v->kind != V_REL)
		type_error(pos, "relation", v);
	return v->u.rel;
}

static int cat_value_cmp(const struct cat_value *a, const struct cat_value *b)
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
			int c = cat_value_cmp(a->u.list.items[i], b->u.list.items[i]);

			if (c)
				return c;
		}
		return 0;
	case V_LINS:
		/* Exact (see linearisations()); not against a listed set. */
		if (set_cmp(a->u.lins.set, b->u.lins.set))
			return set_cmp(a->u.lins.set, b->u.lins.set);
		return rel_cmp(a->u.lins.order, b->u.lins.order);
	default:
		return a < b ? -1 : a > b;
	}
}

static int value_ptr_cmp(const void *a, const void *b)
{
	return cat_value_cmp(*(struct cat_value *const *)a,
			 *(struct cat_value *const *)b);
}

/* A set of values from a list: sorted, without duplicates; frees items. */
struct cat_value *cat_valset(struct cat_eval *ev, struct vec *items)
{
	struct cat_value *v = new_value(ev, V_VALSET);
	int n = 0;

	/* An empty list has no array, which qsort() may not be given. */
	if (items->len > 1)
		qsort(items->items, items->len, sizeof(void *), value_ptr_cmp);
	v->u.list.items = run_alloc(ev, items->len * sizeof(void *));
	for (int i = 0; i < items->len; i++)
		if (!n || cat_value_cmp(v->u.list.items[n - 1], items->items[i]))
			v->u.list.items[n++] = items->items[i];
	v->u.list.n = n;
	vec_free(items);
	return v;
}

/* {item}, without the list cat_valset() sorts: every location's order, in every execution. */
struct cat_value *cat_valset_of(struct cat_eval *ev, struct cat_value *item)
{
	struct cat_value *v = new_value(ev, V_VALSET);

	v->u.list.items = run_alloc(ev, sizeof(void *));
	v->u.list.items[0] = item;
	v->u.list.n = 1;
	return v;
}

static void push_members(struct cat_eval *ev, struct cat_value *v, void *arg)
{
	(void)ev;
	vec_push(arg, v);
}

/* v ++ coll: add an event, a pair or any value to a collection. */
struct cat_value *cat_add(struct cat_eval *ev, struct cat_value *v,
			  struct cat_value *coll, struct srcpos pos)
{
	struct cat_value *r;
	struct vec items = { 0 };

	if (coll->kind == V_EMPTY && v->kind == V_EVENT)
		coll = cat_new_set(ev);
	else if (coll->kind == V_EMPTY && v->kind == V_PAIR)
		coll = cat_new_rel(ev);
	switch (coll->kind) {
	case V_SET:
		if (v->kind != V_EVENT)
			type_error(pos, "event", v);
		r = cat_new_set(ev);
		set_copy(r->u.set, coll->u.set);
		set_add(r->u.set, v->u.ev);
		return r;
	case V_REL:
		if (v->kind != V_PAIR)
			type_error(pos, "pair", v);
		r = cat_new_rel(ev);
		rel_copy(r->u.rel, coll->u.rel);
		rel_add(r->u.rel, v->u.pair.a, v->u.pair.b);
		return r;
	case V_EMPTY:
	case V_VALSET:
		cat_each_member(ev, coll, pos, push_members, &items);
		vec_push(&items, v);
		return cat_valset(ev, &items);
	default:
		type_error(pos, "set", coll);
	}
}

/* ---- Members of collections ---- */

struct topo {
	struct cat_eval *ev;
	const struct rel *order;	/* must be respected */
	int *placed;			/* the order so far */
	struct set *left;
	void (*each)(struct cat_eval *ev, struct cat_value *v, void *arg);
	void *arg;
};

/* Extend the order by each event of `left` with no predecessor left. */
static void topo_sorts(struct topo *t, int nplaced)
{
	struct cat_value *r;
	int e;

	if (set_is_empty(t->left)) {
		r = cat_new_rel(t->ev);
		for (int i = 0; i < nplaced; i++)
			for (int j = i + 1; j < nplaced; j++)
				rel_add(r->u.rel, t->placed[i], t->placed[j]);
		t->each(t->ev, r, t->arg);
		return;
	}
	for (e = set_next(t->left, 0); e >= 0; e = set_next(t->left, e + 1)) {
		bool ready = true;

		for (int p = set_next(t->left, 0); p >= 0 && ready;
		     p = set_next(t->left, p + 1))
			ready = !rel_has(t->order, p, e);
		if (!ready)
			continue;
		t->placed[nplaced] = e;
		t->left->w[e / 64] &= ~(UINT64_C(1) << (e % 64));
		topo_sorts(t, nplaced + 1);
		set_add(t->left, e);
	}
}

/* Call each() on every linearisation of a V_LINS value (catprim.c makes them). */
static void each_linearisation(struct cat_eval *ev, struct cat_value *lins,
			       void (*each)(struct cat_eval *ev, struct cat_value *v, void *arg),
			       void *arg)
{
	struct topo t = { ev, lins->u.lins.order, NULL, cat_new_set(ev)->u.set, each, arg };
	int placed[ev->x->nevents + 1];

	set_copy(t.left, lins->u.lins.set);
	t.placed = placed;
	topo_sorts(&t, 0);
}

void cat_each_member(struct cat_eval *ev, struct cat_value *coll,
		     struct srcpos pos,
		     void (*each)(struct cat_eval *ev, struct cat_value *v,
				  void *arg), void *arg)
{
	struct cat_value *v;

	switch (coll->kind) {
	case V_EMPTY:
		return;
	case V_SET:
		for (int e = set_next(coll->u.set, 0); e >= 0;
		     e = set_next(coll->u.set, e + 1)) {
			v = new_value(ev, V_EVENT);
			v->u.ev = e;
			each(ev, v, arg);
		}
		return;
	case V_REL:
		for (int a = 0; a < coll->u.rel->n; a++)
			for (int b = 0; b < coll->u.rel->n; b++)
				if (rel_has(coll->u.rel, a, b)) {
					v = new_value(ev, V_PAIR);
					v->u.pair.a = a;
					v->u.pair.b = b;
					each(ev, v, arg);
				}
		return;
	case V_VALSET:
		for (int i = 0; i < coll->u.list.n; i++)
			each(ev, coll->u.list.items[i], arg);
		return;
	case V_LINS:
		each_linearisation(ev, coll, each, arg);
		return;
	default:
		type_error(pos, "set", coll);
	}
}

/* ---- Expressions ---- */

static struct cat_value *eval(struct cat_eval *ev, const struct cat_expr *e,
			      struct cat_frame *env);

static struct cat_frame *bind(struct cat_eval *ev, const struct cat_pat *pat,
			      struct cat_value *v, struct cat_frame *env,
			      struct srcpos pos)
{
	if (pat->tuple && (v->kind != V_TUPLE || v->u.list.n != pat->n))
		die_at(pos, "a tuple of %d expected, found a %s", pat->n,
		       kind_name(v->kind));
	for (int i = 0; i < pat->n; i++) {
		struct cat_frame *f = run_alloc(ev, sizeof(*f));

		f->name = pat->names[i];
		f->val = pat->tuple ? v->u.list.items[i] : v;
		f->up = env;
		env = f;
	}
	return env;
}

struct cat_value *cat_apply(struct cat_eval *ev, struct cat_value *f,
			    struct cat_value *arg, struct srcpos pos)
{
	struct cat_value *p;

	if (f->kind == V_CLO) {
		const struct cat_expr *fun = f->u.clo.fun;

		return eval(ev, fun->args[0],
			    bind(ev, &fun->param, arg, f->u.clo.env, pos));
	}
	if (f->kind != V_PRIM)
		type_error(pos, "function", f);
	p = new_value(ev, V_PRIM);
	p->u.prim = f->u.prim;
	p->u.prim.args = run_alloc(ev, f->u.prim.arity * sizeof(void *));
	if (f->u.prim.nargs)
		memcpy(p->u.prim.args, f->u.prim.args,
		       f->u.prim.nargs * sizeof(void *));
	p->u.prim.args[p->u.prim.nargs++] = arg;
	if (p->u.prim.nargs < p->u.prim.arity)
		return p;
	return p->u.prim.fn(ev, p->u.prim.args, pos);
}

static struct cat_value *compute_slot(struct cat_eval *ev, int slot);

/*
 * The value of a slot.  Most reads find it computed already: that test
 * is inlined where names are read, the computation kept apart, whose
 * frame (define(), a fixpoint) would cost every read.
 */
static inline struct cat_value *slot_value(struct cat_eval *ev, int slot)
{
	const struct slot_state *st = &ev->slots[slot];

	if (st->gen == ev->gens[st->level])
		return st->val;
	return compute_slot(ev, slot);
}

static struct cat_value *lookup(struct cat_eval *ev, const struct cat_expr *e,
				struct cat_frame *env)
{
	if (e->slot >= 0)
		return slot_value(ev, e->slot);
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

/* A lazy set of linearisations as the set of values it stands for. */
static struct cat_value *listed(struct cat_eval *ev, struct cat_value *v)
{
	struct vec items = { 0 };

	if (v->kind != V_LINS)
		return v;
	cat_each_member(ev, v, (struct srcpos){ 0 }, push_members, &items);
	return cat_valset(ev, &items);
}

static struct cat_value *valset_op(struct cat_eval *ev, enum cat_expr_kind op,
				   struct cat_value *a, struct cat_value *b)
{
	struct vec items = { 0 };

	for (int i = 0; i < a->u.list.n; i++) {
		bool in_b = false;

		for (int j = 0; j < b->u.list.n && !in_b; j++)
			in_b = !cat_value_cmp(a->u.list.items[i], b->u.list.items[j]);
		if (op == X_UNION || in_b == (op == X_INTER))
			vec_push(&items, a->u.list.items[i]);
	}
	if (op == X_UNION)
		for (int j = 0; j < b->u.list.n; j++)
			vec_push(&items, b->u.list.items[j]);
	return cat_valset(ev, &items);
}

/* The rows of a union, both sides' known. */
static const uint64_t *rows_union(struct cat_eval *ev, const uint64_t *a, const uint64_t *b)
{
	uint64_t *rows = run_alloc(ev, ev->words * sizeof(uint64_t));

	for (int i = 0; i < ev->words; i++)
		rows[i] = a[i] | b[i];
	return rows;
}

/* a | b, a & b, a \ b on two values of the same kind. */
static struct cat_value *set_op(struct cat_eval *ev, const struct cat_expr *e,
				struct cat_value *a, struct cat_value *b)
{
	enum cat_expr_kind op = e->kind;
	struct cat_value *r;

	/*
	 * Two relations, most of the calls: straight to the words, before
	 * the tests for {} and for lazy sets of orders, which cost more than
	 * a call's own work when they come first (nothing else gets here as
	 * two relations, so the switch below has no case for them).
	 */
	if (a->kind == V_REL && b->kind == V_REL) {
		r = rel_value(ev);
		if (op == X_UNION) {
			rel_union(r->u.rel, a->u.rel, b->u.rel);
			if (a->u.rows && b->u.rows)
				r->u.rows = rows_union(ev, a->u.rows, b->u.rows);
		} else if (op == X_INTER) {
			rel_inter(r->u.rel, a->u.rel, b->u.rel);
		} else {
			rel_diff(r->u.rel, a->u.rel, b->u.rel);
		}
		return r;
	}
	if (a->kind == V_EMPTY || b->kind == V_EMPTY)
		return with_empty(op, a, b);
	a = listed(ev, a);
	b = listed(ev, b);
	if (a->kind != b->kind)
		die_at(e->pos, "operands of different types: %s and %s",
		       kind_name(a->kind), kind_name(b->kind));
	switch (a->kind) {
	case V_SET:
		r = cat_new_set(ev);
		if (op == X_UNION)
			set_union(r->u.set, a->u.set, b->u.set);
		else if (op == X_INTER)
			set_inter(r->u.set, a->u.set, b->u.set);
		else
			set_diff(r->u.set, a->u.set, b->u.set);
		return r;
	case V_VALSET:
		return valset_op(ev, op, a, b);
	default:
		die_at(e->pos, "set or relation expected, found a %s",
		       kind_name(a->kind));
	}
}

static struct cat_value *eval_union(struct cat_eval *ev, const struct cat_expr *e,
				    struct cat_frame *env)
{
	struct cat_value *acc = eval(ev, e->args[0], env);

	for (int i = 1; i < e->n; i++)
		acc = set_op(ev, e, acc, eval(ev, e->args[i], env));
	return acc;
}

static struct cat_value *identity(struct cat_eval *ev, const struct set *s, const uint64_t *rows);

/* r restricted to pairs from dom to ran, as a new relation. */
static struct rel *restricted(struct cat_eval *ev, const struct rel *r,
			      const struct set *dom, const struct set *ran)
{
	struct rel *out = rel_to_fill(ev);

	rel_copy(out, r);
	rel_restrict(out, dom, ran);
	return out;
}

/* s's members, when they are at most half the events; else NULL. */
static const uint64_t *sparse_rows(struct cat_eval *ev, const struct set *s)
{
	return 2 * set_count(s) <= ev->nevents ? s->w : NULL;
}

/* Out of line: most values asked have rows or are not static. */
static __attribute__((noinline)) const uint64_t *seek_rows(struct cat_eval *ev,
							   const struct cat_expr *e,
							   struct cat_value *v)
{
	int arena = ev->arena;
	struct set *s = v->u.set;

	v->rows_sought = true;
	if (e->kind != X_VAR || e->slot < 0 || ev->slots[e->slot].level != LEVEL_STATIC)
		return NULL;
	ev->arena = LEVEL_STATIC;
	if (v->kind == V_REL) {
		s = cat_new_set(ev)->u.set;
		rel_domain(s, v->u.rel);
	}
	v->u.rows = sparse_rows(ev, s);
	ev->arena = arena;
	return v->u.rows;
}

/*
 * The rows of v, the value of e (cat_value.rows).  A static set or
 * relation is read by every execution of its structure: its members or
 * rows with a pair are found the first time, in its arena (T16's
 * Sync-rcu and rcu-rscsi: 8 rows of 72 each).  Not on rows of one word,
 * where testing a row costs about what visiting its bit does (6 to 8
 * instructions): there the looking would cost more than it saves.
 */
static inline const uint64_t *rows_of(struct cat_eval *ev, const struct cat_expr *e,
				      struct cat_value *v)
{
	if (ev->words == 1 || v->u.rows || v->rows_sought)
		return v->u.rows;
	return seek_rows(ev, e, v);
}

/*
 * A sequence stops at the first empty step, as herd's does.  A step [S]
 * only filters the rows or columns of its neighbour, so it is applied as
 * a filter rather than composed with.
 */
static inline __attribute__((always_inline)) struct cat_value *
seq_of(struct cat_eval *ev, const struct cat_expr *e, struct cat_frame *env, bool wide)
{
	struct set *dom = ev->all;	/* filter on the left, until acc */
	struct rel *acc = NULL;
	const uint64_t *rows = NULL;	/* dom's members, then acc's rows with a pair, where known */
	bool own = false;		/* acc was made here: it may be filtered in place */
	struct cat_value *v;

	for (int i = 0; i < e->n; i++) {
		const struct cat_expr *arg = e->args[i];
		bool filter = arg->kind == X_TOID;

		v = eval(ev, filter ? arg->args[0] : arg, env);
		if (v->kind == V_EMPTY)
			return &empty_value;
		if (filter) {
			struct set *s = cat_as_set(ev, v, arg->args[0]->pos);

			if (own) {
				rel_restrict(acc, ev->all, s);
			} else if (acc) {
				acc = restricted(ev, acc, ev->all, s);
				own = true;
			} else {
				struct set *d = cat_new_set(ev)->u.set;

				set_inter(d, dom, s);
				dom = d;
				rows = wide && !rows ? rows_of(ev, arg->args[0], v) : rows;
			}
		} else if (!acc) {
			struct rel *first = cat_as_rel(ev, v, arg->pos);

			/* Unfiltered and not last, it is only read: the next step makes a new one. */
			own = dom != ev->all || i + 1 == e->n;
			acc = own ? restricted(ev, first, dom, ev->all) : first;
			rows = wide && !rows ? rows_of(ev, arg, v) : rows;
		} else {
			struct rel *r = rel_to_fill(ev), *b = cat_as_rel(ev, v, arg->pos);

			if (!(rows ? rel_seq_rows(r, acc, rows, b) : rel_seq(r, acc, b)))
				return &empty_value;
			acc = r;
			own = true;
			continue;
		}
		if (!acc ? set_is_empty(dom) : rows ? rel_rows_empty(acc, rows) : rel_is_empty(acc))
			return &empty_value;
	}
	if (!acc)
		return identity(ev, dom, rows);
	v = new_value(ev, V_REL);
	v->u.rel = acc;
	v->u.rows = rows;	/* a step's rows are among its left side's */
	return v;
}

/* Out of line: its rows would cost the registers of every term's evaluation. */
static __attribute__((noinline)) struct cat_value *eval_wide_seq(struct cat_eval *ev,
								 const struct cat_expr *e,
								 struct cat_frame *env)
{
	return seq_of(ev, e, env, true);
}

/*
 * Rows of one word have no rows known (rows_of()): their sequences are
 * made without looking for any.
 */
static struct cat_value *eval_seq(struct cat_eval *ev, const struct cat_expr *e,
				  struct cat_frame *env)
{
	return ev->words == 1 ? seq_of(ev, e, env, false) : eval_wide_seq(ev, e, env);
}

/* [s], rows where known (s's members, or more). */
static struct cat_value *identity(struct cat_eval *ev, const struct set *s, const uint64_t *rows)
{
	struct cat_value *r = cat_new_rel(ev);

	rel_add_id(r->u.rel, s);
	r->u.rows = rows;
	return r;
}

/* ~a: the complement among all events, or all pairs of events. */
static struct cat_value *complement(struct cat_eval *ev, const struct cat_expr *e,
				    struct cat_value *a)
{
	struct cat_value *r;

	if (a->kind == V_SET) {
		r = cat_new_set(ev);
		set_diff(r->u.set, ev->all, a->u.set);
		return r;
	}
	if (a->kind == V_REL) {
		struct cat_value *all = cat_new_rel(ev);

		rel_cartesian(all->u.rel, ev->all, ev->all);
		rel_diff(all->u.rel, all->u.rel, a->u.rel);
		return all;
	}
	die_at(e->pos, "event set or relation expected, found a %s",
	       kind_name(a->kind));
}

/* r+, r*, r?, r^-1 */
static struct cat_value *closure(struct cat_eval *ev, const struct cat_expr *e,
				 struct cat_value *a)
{
	struct cat_value *r;

	if (a->kind == V_PAIR && e->kind == X_INV) {
		r = new_value(ev, V_PAIR);
		r->u.pair.a = a->u.pair.b;
		r->u.pair.b = a->u.pair.a;
		return r;
	}
	if (a->kind == V_EMPTY)
		return e->kind == X_STAR || e->kind == X_OPT ? identity(ev, ev->all, NULL)
							     : a;
	/* Each case writes every word of r: the inverse clears it, the others copy a. */
	r = rel_value(ev);
	switch (e->kind) {
	case X_INV:
		rel_inverse(r->u.rel, cat_as_rel(ev, a, e->pos));
		break;
	case X_PLUS:
	case X_STAR:
		rel_closure(r->u.rel, cat_as_rel(ev, a, e->pos));
		if (e->kind == X_STAR)
			rel_add_id(r->u.rel, ev->all);
		else
			r->u.rows = a->u.rows;	/* a path starts with a step */
		break;
	default:
		rel_copy(r->u.rel, cat_as_rel(ev, a, e->pos));
		rel_add_id(r->u.rel, ev->all);
	}
	return r;
}

static struct cat_value *eval_set(struct cat_eval *ev, const struct cat_expr *e,
				  struct cat_frame *env)
{
	struct cat_value *acc = &empty_value;

	for (int i = 0; i < e->n; i++)
		acc = cat_add(ev, eval(ev, e->args[i], env), acc, e->args[i]->pos);
	return acc;
}

static struct cat_value *eval_tuple(struct cat_eval *ev, const struct cat_expr *e,
				    struct cat_frame *env)
{
	struct cat_value *v = new_value(ev, V_TUPLE);

	v->u.list.n = e->n;
	v->u.list.items = run_alloc(ev, e->n * sizeof(void *));
	for (int i = 0; i < e->n; i++)
		v->u.list.items[i] = eval(ev, e->args[i], env);
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
		return cat_value_cmp(old, new) != 0;
	}
}

/*
 * let rec: every name starts as {} and the bindings are evaluated in
 * turn, each seeing the latest values, until a round changes nothing.
 * `cells` holds the frames (local) or slots (top level) of the names.
 */
static void fixpoint(struct cat_eval *ev, const struct cat_bind *binds, int n,
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
			struct cat_value *v = eval(ev, binds[i].e, env);

			again |= grown(*cells[i], v);
			*cells[i] = v;
		}
	}
}

static struct cat_value *eval_let(struct cat_eval *ev, const struct cat_expr *e,
				  struct cat_frame *env)
{
	struct cat_frame *inner = env;

	if (e->kind == X_LETREC) {
		struct cat_value **cells[e->nbinds];

		for (int i = 0; i < e->nbinds; i++) {
			inner = bind(ev, &e->binds[i].pat, &empty_value, inner,
				     e->binds[i].pos);
			cells[i] = &inner->val;
		}
		fixpoint(ev, e->binds, e->nbinds, cells, inner);
	} else {
		for (int i = 0; i < e->nbinds; i++)
			inner = bind(ev, &e->binds[i].pat,
				     eval(ev, e->binds[i].e, env), inner,
				     e->binds[i].pos);
	}
	return eval(ev, e->args[0], inner);
}

static struct cat_value *eval_term(struct cat_eval *ev, const struct cat_expr *e,
				   struct cat_frame *env);

/* A term kept apart: computed in its level's arena, as a slot would be. */
static struct cat_value *kept_value(struct cat_eval *ev, const struct cat_expr *e,
				    struct cat_frame *env, int kept)
{
	struct cat_kept *k = &ev->kept[kept - 1];
	int arena = ev->arena;

	if (k->gen == ev->gens[k->level])
		return k->v;
	ev->arena = k->level;
	k->v = eval_term(ev, e, env);
	k->gen = ev->gens[k->level];
	ev->arena = arena;
	return k->v;
}

/*
 * Inlined where terms are evaluated, with what most evaluations are: a
 * name whose value is computed already.  The rest, in eval_term(), has
 * a frame that would cost every one of them.
 */
static inline struct cat_value *eval(struct cat_eval *ev, const struct cat_expr *e,
				     struct cat_frame *env)
{
	const struct expr_marks *marks = expr_marks(ev, e);

	if (marks->empty_here)
		return marks->empty_set ? cat_new_set(ev) : &empty_value;
	if (marks->kept)
		return kept_value(ev, e, env, marks->kept);
	if (e->kind == X_VAR && e->slot >= 0)
		return slot_value(ev, e->slot);
	return eval_term(ev, e, env);
}

static struct cat_value *eval_term(struct cat_eval *ev, const struct cat_expr *e,
				   struct cat_frame *env)
{
	struct cat_value *a, *b, *r;

	switch (e->kind) {
	case X_VAR:
		return lookup(ev, e, env);
	case X_TAG:
		r = new_value(ev, V_TAG);
		r->u.tag = e->name;
		return r;
	case X_ZERO:
		return cat_new_rel(ev);
	case X_EMPTY:
		return &empty_value;
	case X_UNIV:
		r = new_value(ev, V_SET);
		r->u.set = ev->all;
		return r;
	case X_SET:
		return eval_set(ev, e, env);
	case X_TUPLE:
		return eval_tuple(ev, e, env);
	case X_UNION:
		return eval_union(ev, e, env);
	case X_SEQ:
		return eval_seq(ev, e, env);
	case X_INTER:
	case X_DIFF:
		/*
		 * Like a sequence, stop at an empty left operand: e.g. a race
		 * flag's (pre-race & co) \ ww-nonrace, on a test with no plain
		 * access, need not compute the costly ww-nonrace.
		 */
		a = eval(ev, e->args[0], env);
		if (cat_is_empty(a))
			return a;
		return set_op(ev, e, a, eval(ev, e->args[1], env));
	case X_CART:
		a = eval(ev, e->args[0], env);
		b = eval(ev, e->args[1], env);
		r = cat_new_rel(ev);
		rel_cartesian(r->u.rel, cat_as_set(ev, a, e->args[0]->pos),
			      cat_as_set(ev, b, e->args[1]->pos));
		return r;
	case X_ADD:
		a = eval(ev, e->args[0], env);
		return cat_add(ev, a, eval(ev, e->args[1], env), e->pos);
	case X_COMP:
		return complement(ev, e, eval(ev, e->args[0], env));
	case X_INV:
	case X_PLUS:
	case X_STAR:
	case X_OPT:
		return closure(ev, e, eval(ev, e->args[0], env));
	case X_TOID:
		a = eval(ev, e->args[0], env);
		if (a->kind == V_EMPTY)
			return a;
		return identity(ev, cat_as_set(ev, a, e->args[0]->pos), a->u.rows);
	case X_APP:
		a = eval(ev, e->args[0], env);
		return cat_apply(ev, a, eval(ev, e->args[1], env), e->pos);
	case X_FUN:
		r = new_value(ev, V_CLO);
		r->u.clo.fun = e;
		r->u.clo.env = env;
		return r;
	case X_LET:
	case X_LETREC:
		return eval_let(ev, e, env);
	case X_TRY:
		return eval(ev, e->args[e->use_handler], env);
	}
	die_internal_at(e->pos, "unknown expression");
}

/* ---- Slots ---- */

static void set_slot(struct cat_eval *ev, int slot, struct cat_value *v)
{
	struct slot_state *st = &ev->slots[slot];

	st->val = v;
	st->gen = ev->gens[st->level];
}

/*
 * A let rec's slots, by their fixpoint.  Apart from define(), which is
 * inlined in compute_slot(): its array of cells would give the frame of
 * every slot computed a variable size.
 */
static __attribute__((noinline)) void define_rec(struct cat_eval *ev, const struct cat_stmt *s)
{
	struct cat_value **cells[s->nbinds];

	for (int i = 0; i < s->nbinds; i++) {
		set_slot(ev, s->binds[i].slot, &empty_value);
		cells[i] = &ev->slots[s->binds[i].slot].val;
	}
	fixpoint(ev, s->binds, s->nbinds, cells, NULL);
}

/* Evaluate a let or a let rec, giving its slots their values. */
static void define(struct cat_eval *ev, const struct cat_stmt *s)
{
	if (s->kind == S_LETREC) {
		define_rec(ev, s);
		return;
	}
	for (int i = 0; i < s->nbinds; i++) {
		const struct cat_bind *b = &s->binds[i];
		struct cat_value *v = eval(ev, b->e, NULL);

		if (!b->pat.tuple) {
			set_slot(ev, b->slot, v);
			continue;
		}
		if (v->kind != V_TUPLE || v->u.list.n != b->pat.n)
			die_at(b->pos, "a tuple of %d expected, found a %s",
			       b->pat.n, kind_name(v->kind));
		for (int j = 0; j < b->pat.n; j++)
			set_slot(ev, b->slot + j, v->u.list.items[j]);
	}
}

/* The value of a slot not computed for its level's generation, in its level's arena. */
static __attribute__((noinline)) struct cat_value *compute_slot(struct cat_eval *ev, int slot)
{
	const struct cat_slot *sl = &ev->m->slots[slot];
	struct slot_state *st = &ev->slots[slot];
	int arena = ev->arena;

	ev->arena = st->level;
	if (sl->predef)
		set_slot(ev, slot, sl->predef->compute(ev, sl->predef->arg));
	else if (sl->definer->kind == S_WITH)
		die_internal_at(sl->definer->pos, "'%s' read before its choice",
				sl->name);
	else
		define(ev, sl->definer);
	ev->arena = arena;
	return st->val;
}

/* ---- Steps ---- */

static bool test_holds(struct cat_eval *ev, const struct cat_stmt *s)
{
	struct cat_value *v = eval(ev, s->e, NULL);
	bool holds;

	if (v->kind == V_EMPTY)
		holds = true;
	else if (s->test == TEST_EMPTY && v->kind == V_SET)
		holds = set_is_empty(v->u.set);
	else if (s->test == TEST_EMPTY && v->kind == V_VALSET)
		holds = v->u.list.n == 0;
	else if (s->test == TEST_EMPTY && v->kind == V_LINS)
		holds = false;	/* several orders, by construction */
	else if (s->test == TEST_EMPTY)
		holds = rel_is_empty(cat_as_rel(ev, v, s->e->pos));
	else if (s->test == TEST_ACYCLIC)
		holds = rel_is_acyclic(cat_as_rel(ev, v, s->e->pos));
	else
		holds = rel_is_irreflexive(cat_as_rel(ev, v, s->e->pos));
	return holds != s->negated;
}

/* Whether a check or flag holds, known once per generation of its level. */
static bool holds(struct cat_eval *ev, const struct cat_stmt *s)
{
	struct stmt_state *st = stmt_state(ev, s);
	int arena = ev->arena;

	if (st->gen == ev->gens[st->level])
		return st->holds;
	ev->arena = st->level;
	st->holds = test_holds(ev, s);
	st->gen = ev->gens[st->level];
	ev->arena = arena;
	return st->holds;
}

static void add_flag(struct vec *flags, const char *name)
{
	for (int i = 0; i < flags->len; i++)
		if (flags->items[i] == name)
			return;
	vec_push(flags, (void *)name);
}

static void accept(struct cat_eval *ev)
{
	struct cat_outcome out;

	ev->flags.len = 0;
	for (int i = 0; i < ev->m->flag_stmts.len; i++) {
		const struct cat_stmt *s = ev->m->flag_stmts.items[i];

		if (s->name && ev->visitor->wants_flag &&
		    !ev->visitor->wants_flag(ev->visitor->arg, s->name))
			continue;
		if (holds(ev, s))
			add_flag(&ev->flags, s->name);
	}
	out.flags = (const char **)ev->flags.items;
	out.nflags = ev->flags.len;
	ev->visitor->accept(ev->visitor->arg, &out);
}

static void run_from(struct cat_eval *ev, int at);

struct choice {
	const struct cat_stmt *with;
	int next;		/* the step after it */
};

static void try_choice(struct cat_eval *ev, struct cat_value *v, void *arg)
{
	struct choice *c = arg;

	renew_levels(ev, c->with->level);
	set_slot(ev, c->with->binds[0].slot, v);
	run_from(ev, c->next);
}

static bool partial_steps_fail(struct cat_eval *ev, int at);
static void mono_analyse(struct cat_eval *ev);

struct cross_walk {
	struct cat_value **members;	/* those with a choice to make */
	int *keys;			/* their tallies (member_key()) */
	int n;
	struct rel **acc;		/* acc[i]: the union of i picks */
	struct cat_value *leaf;		/* holds acc[n] */
	struct choice *choice;
	bool prune;			/* judge the unions as they grow... */
	struct cat_value *part;		/* ...holding acc[i] for that */
};

/*
 * Judging a prefix costs a good part of a verdict, and where the
 * model's checks do not depend much on a member's choice (e.g. a
 * location whose order no RMW and few reads constrain) it cuts little.
 * So once the first 256 judgements of a member's prefixes in this event
 * structure have cut fewer than one in 4, that member's prefixes are no
 * longer judged: only the speed changes.  Per member, not per cross: in
 * C-ManfredSpraul-L1G2xchg the two locations of the RMWs cut about half
 * their prefixes, while gbl_held's, the most judged (2.9 million of
 * 5.2), cut 1.7%.  One in 32 stopped nothing there: its first 100,000
 * executions took 23.74G instructions, against 22.70G with one in 4
 * and 23.73G with one tally for the cross.
 */
static bool prefixes_pay(const struct prefix_tally *t)
{
	return t->checks < 256 || t->cuts * 4 >= t->checks;
}

/*
 * Whether the checks already fail with the with bound to part of its
 * choice: a relation below every choice that extends it.  Member i is
 * the one whose choice it is part of; false, unjudged, where its
 * prefixes do not pay.
 */
static bool prefix_fails(struct cat_eval *ev, struct cross_walk *w, int i, struct rel *part)
{
	struct prefix_tally *t = &ev->tallies[w->keys[i]];
	bool fails;

	if (!prefixes_pay(t))
		return false;
	w->part->u.rel = part;
	renew_levels(ev, w->choice->with->level);
	set_slot(ev, w->choice->with->binds[0].slot, w->part);
	fails = partial_steps_fail(ev, w->choice->next);
	t->checks++;
	t->cuts += fails;
	return fails;
}

static void walk_cross(struct cat_eval *ev, struct cross_walk *w, int i);

/*
 * The linearisations of member i, one event at a time: the event placed
 * next comes before every event still left, pairs that every order
 * extending this prefix holds, so the prefix is judged as it grows and a
 * failing one cuts all its orders at once.  acc[i + 1] grows in place.
 */
static void walk_order(struct cat_eval *ev, struct cross_walk *w, int i,
		       struct set *left, int nleft)
{
	const struct rel *order = w->members[i]->u.lins.order;
	struct rel *acc = w->acc[i + 1];
	int ready[nleft + 1], nready = 0;
	uint64_t after[acc->words];	/* events after one still left */

	if (!nleft) {
		walk_cross(ev, w, i + 1);
		return;
	}
	memset(after, 0, sizeof(after));
	for (int p = set_next(left, 0); p >= 0; p = set_next(left, p + 1))
		for (int j = 0; j < acc->words; j++)
			after[j] |= order->w[(size_t)p * acc->words + j];
	for (int j = 0; j < acc->words; j++)
		for (uint64_t bits = left->w[j] & ~after[j]; bits; bits &= bits - 1)
			ready[nready++] = j * 64 + __builtin_ctzll(bits);
	for (int k = 0; k < nready; k++) {
		int e = ready[k];
		uint64_t *row = acc->w + (size_t)e * acc->words, saved[acc->words];

		left->w[e / 64] &= ~(UINT64_C(1) << (e % 64));
		memcpy(saved, row, sizeof(saved));
		for (int j = 0; j < acc->words; j++)
			row[j] |= left->w[j];
		if (!w->prune || nready == 1 || (nleft <= 2 && i + 1 == w->n) ||
		    !prefix_fails(ev, w, i, acc))
			walk_order(ev, w, i, left, nleft - 1);
		memcpy(row, saved, sizeof(saved));
		set_add(left, e);
	}
}

static void walk_cross(struct cat_eval *ev, struct cross_walk *w, int i)
{
	struct cat_value *member;

	if (i == w->n) {
		try_choice(ev, w->leaf, w->choice);
		return;
	}
	member = w->members[i];
	if (member->kind == V_LINS) {
		struct set *left = cat_new_set(ev)->u.set;

		set_copy(left, member->u.lins.set);
		rel_copy(w->acc[i + 1], w->acc[i]);
		walk_order(ev, w, i, left, set_count(left));
		return;
	}
	for (int j = 0; j < member->u.list.n; j++) {
		rel_union(w->acc[i + 1], w->acc[i], member->u.list.items[j]->u.rel);
		if (w->prune && i + 1 < w->n && prefix_fails(ev, w, i, w->acc[i + 1]))
			continue;
		walk_cross(ev, w, i + 1);
	}
}

static bool has_choice(const struct cat_value *member)
{
	return member->kind == V_LINS || member->u.list.n > 1;
}

/*
 * What every choice of a member holds: the order a set of
 * linearisations extends, its only relation, or the pairs common to a
 * listed set.
 */
static void add_lower_bound(struct cat_eval *ev, struct rel *acc, struct cat_value *member)
{
	struct rel *common;

	if (member->kind == V_LINS) {
		rel_union(acc, acc, member->u.lins.order);
		return;
	}
	if (member->u.list.n == 1) {
		rel_union(acc, acc, member->u.list.items[0]->u.rel);
		return;
	}
	common = cat_new_rel(ev)->u.rel;
	rel_copy(common, member->u.list.items[0]->u.rel);
	for (int j = 1; j < member->u.list.n; j++)
		rel_inter(common, common, member->u.list.items[j]->u.rel);
	rel_union(acc, acc, common);
}

/*
 * A member's tally of prefix judgements: the members of a cross of
 * linearisations order disjoint sets (a location's writes, whichever
 * other members have a choice in this execution), so the first event a
 * member orders names it; listed members share the last tally.
 */
static int member_key(const struct cat_eval *ev, const struct cat_value *member)
{
	return member->kind == V_LINS ? set_next(member->u.lins.set, 0) : ev->x->nevents;
}

/* How many events a member orders, for walking the largest first. */
static int events_ordered(const struct cat_value *member)
{
	return member->kind == V_LINS ? set_count(member->u.lins.set) : 0;
}

/*
 * Where the visitor takes the choices in any order, the members that
 * order the most events are walked first: a cut made while placing their
 * events is made once, not again for every choice of the members before
 * them, and the largest orders are where prefixes fail most (the first
 * 20,000 executions of C-ManfredSpraul-L1G2xchg: 5.37G -> 3.89G
 * instructions; walking the smallest first, 6.90G).  A stable sort: the
 * order is the cross's among equals.
 */
static void largest_first(struct cat_value **members, int n)
{
	for (int i = 1; i < n; i++) {
		struct cat_value *member = members[i];
		int size = events_ordered(member), j = i;

		for (; j > 0 && events_ordered(members[j - 1]) < size; j--)
			members[j] = members[j - 1];
		members[j] = member;
	}
}

/* What every choice of a cross holds: the union of its members' lower bounds. */
static struct rel *cross_bound(struct cat_eval *ev, struct cat_value *cross)
{
	struct rel *bound = cat_new_rel(ev)->u.rel;

	for (int i = 0; i < cross->u.list.n; i++)
		add_lower_bound(ev, bound, cross->u.list.items[i]);
	return bound;
}

/*
 * Every union of one relation from each member of a cross(...), built
 * in place: the choice is only valid until the next one.  The unions
 * start from what every choice holds (`bound`, only read), so that a
 * prefix is judged with the members not chosen yet at their least, and
 * only the members with a choice to make are walked (most locations
 * have one order).
 */
static void each_cross(struct cat_eval *ev, struct cat_value *cross,
		       struct rel *bound, struct choice *c)
{
	struct cat_value *choosing[cross->u.list.n + 1];
	int keys[cross->u.list.n + 1];
	struct rel *acc[cross->u.list.n + 1];
	struct cross_walk w = {
		choosing, keys, 0, acc, new_value(ev, V_REL), c,
		ev->visitor->skip_rejected && ev->mono_gen == ev->gens[LEVEL_STATIC],
		new_value(ev, V_REL)
	};

	acc[0] = bound;
	for (int i = 0; i < cross->u.list.n; i++) {
		struct cat_value *member = cross->u.list.items[i];

		if (has_choice(member)) {
			choosing[w.n++] = member;
			acc[w.n] = cat_new_rel(ev)->u.rel;
		}
	}
	if (ev->visitor->skip_rejected)
		largest_first(choosing, w.n);
	for (int i = 0; i < w.n; i++)
		keys[i] = member_key(ev, choosing[i]);
	w.leaf->u.rel = acc[w.n];
	walk_cross(ev, &w, 0);
}

/*
 * Add the slots e reads that are not static to w's inputs; false where
 * the set cannot be kept: a part kept apart (catlevel.c) lives in its
 * level's arena, and so might the set made of it; or too many inputs.
 */
static bool find_inputs(struct cat_eval *ev, const struct cat_expr *e, struct with_memo *w)
{
	const struct expr_marks *marks = expr_marks(ev, e);
	int i;

	if (marks->empty_here)
		return true;
	if (marks->kept)
		return false;
	if (e->kind == X_VAR && e->slot >= 0 && ev->slots[e->slot].level != LEVEL_STATIC) {
		for (i = 0; i < w->ninputs && w->inputs[i] != e->slot; i++)
			;
		if (i == w->ninputs && w->ninputs == WITH_INPUTS)
			return false;
		if (i == w->ninputs)
			w->inputs[w->ninputs++] = e->slot;
		return true;
	}
	for (i = 0; i < e->n; i++)
		if (!find_inputs(ev, e->args[i], w))
			return false;
	for (i = 0; i < e->nbinds; i++)
		if (!find_inputs(ev, e->binds[i].e, w))
			return false;
	return true;
}

/* Whether two values of an input are equal: sets and relations compared. */
static bool same_input(const struct cat_value *a, const struct cat_value *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == V_SET)
		return !set_cmp(a->u.set, b->u.set);
	if (a->kind == V_REL)
		return !rel_cmp(a->u.rel, b->u.rel);
	return a->kind == V_EMPTY;
}

static bool inputs_same(struct cat_eval *ev, const struct with_memo *w, const struct with_kept *k)
{
	for (int i = 0; i < w->ninputs; i++)
		if (!same_input(slot_value(ev, w->inputs[i]), k->keys[i]))
			return false;
	return true;
}

/* A hash of the inputs' values, to find the kept set made of them. */
static uint64_t inputs_hash(struct cat_eval *ev, const struct with_memo *w)
{
	uint64_t h = UINT64_C(14695981039346656037);

	for (int i = 0; i < w->ninputs; i++) {
		const struct cat_value *v = slot_value(ev, w->inputs[i]);
		const uint64_t *words = NULL;
		size_t n = 0;

		if (v->kind == V_SET) {
			words = v->u.set->w;
			n = words_for(v->u.set->n);
		} else if (v->kind == V_REL) {
			words = v->u.rel->w;
			n = (size_t)v->u.rel->n * v->u.rel->words;
		}
		h = (h ^ (uint64_t)v->kind) * UINT64_C(1099511628211);
		for (size_t j = 0; j < n; j++)
			h = (h ^ words[j]) * UINT64_C(1099511628211);
	}
	return h;
}

/* A copy of a value in the arena at hand; NULL for a kind not copied. */
static struct cat_value *copy_input(struct cat_eval *ev, struct cat_value *v)
{
	struct cat_value *copy;

	if (v->kind == V_SET) {
		copy = cat_new_set(ev);
		set_copy(copy->u.set, v->u.set);
	} else if (v->kind == V_REL) {
		copy = cat_new_rel(ev);
		rel_copy(copy->u.rel, v->u.rel);
	} else if (v->kind == V_EMPTY) {
		copy = v;
	} else {
		copy = NULL;
	}
	return copy;
}

/*
 * Make k's set in the arena at hand (its own), reading copies of its
 * inputs made there, so that nothing it is made of dies with the
 * execution, and a cross's bound with it (T16: the union of 16 orders,
 * 4% of each execution); false where an input is of a kind not copied.
 * The inputs read their own values again after.
 */
static bool make_kept_domain(struct cat_eval *ev, const struct cat_expr *e,
			     const struct with_memo *w, struct with_kept *k)
{
	struct cat_value *own[WITH_INPUTS];

	for (int i = 0; i < w->ninputs; i++) {
		own[i] = slot_value(ev, w->inputs[i]);
		if (!(k->keys[i] = copy_input(ev, own[i])))
			return false;
	}
	for (int i = 0; i < w->ninputs; i++)
		ev->slots[w->inputs[i]].val = k->keys[i];
	k->coll = eval(ev, e, NULL);
	k->bound = k->coll->kind == V_CROSS ? cross_bound(ev, k->coll) : NULL;
	for (int i = 0; i < w->ninputs; i++)
		ev->slots[w->inputs[i]].val = own[i];
	return true;
}

/*
 * The kept set made of the inputs' values, or the one to make it in: the
 * last one found first, then by hash, else an empty one or the one
 * found least recently.
 */
static struct with_kept *find_kept(struct cat_eval *ev, struct with_memo *w, bool *found)
{
	struct with_kept *k = &w->kept[w->last], *victim = k;
	uint64_t h;

	*found = k->coll && inputs_same(ev, w, k);
	if (*found)
		return k;
	h = inputs_hash(ev, w);
	for (int i = 0; i < WITH_KEPT; i++) {
		k = &w->kept[i];
		if (k->coll && k->hash == h && inputs_same(ev, w, k)) {
			*found = true;
			w->last = i;
			return k;
		}
		if (victim->coll && (!k->coll || k->used < victim->used))
			victim = k;
	}
	w->last = victim - w->kept;
	victim->hash = h;
	return victim;
}

/*
 * The set a with chooses from.  In the LKMM it is the coherence orders
 * generate_cos(cobase) makes, per location, out of cobase, which is the
 * same in most executions of a structure (T16: in all 65,536), while
 * making the set took a seventh of each execution.  So the set is kept
 * (struct with_memo) for its inputs' values: WITH_KEPT of them, as the
 * search comes back to a value (C-ManfredSpraul-L1G2xchg, first 20,000
 * executions: of 9,608 sets made again, 7,747 had been made within the
 * last 64, 5,161 within the last 16).  Evaluated in the arena that is
 * current (the level's before the with's) where it cannot be kept.  A
 * kept cross comes with its bound (cross_bound()), else *bound is NULL.
 */
static struct cat_value *with_domain(struct cat_eval *ev, const struct cat_stmt *s,
				      struct rel **bound)
{
	const struct cat_expr *e = s->binds[0].e;
	struct with_memo *w = &ev->memos[s->level];
	struct with_kept *k;
	int arena = ev->arena;
	bool found, made;

	if (w->static_gen != ev->gens[LEVEL_STATIC]) {
		w->static_gen = ev->gens[LEVEL_STATIC];
		w->ninputs = 0;
		w->usable = find_inputs(ev, e, w);
		for (int i = 0; i < WITH_KEPT; i++)
			w->kept[i].coll = NULL;
	}
	*bound = NULL;
	if (!w->usable)
		return eval(ev, e, NULL);
	k = find_kept(ev, w, &found);
	k->used = ++w->clock;
	if (!found) {
		k->coll = NULL;
		ev->arena = ev->m->nlevels + s->level * WITH_KEPT + w->last;
		arena_reset(&ev->arenas[ev->arena]);
		made = make_kept_domain(ev, e, w, k);
		ev->arena = arena;
		if (!made)
			return eval(ev, e, NULL);
	}
	*bound = k->bound;
	return k->coll;
}

/* The choices live in the arena of the level before the `with`'s. */
static void run_with(struct cat_eval *ev, const struct cat_stmt *s, int next)
{
	struct choice c = { s, next };
	int arena = ev->arena;
	struct cat_value *coll;
	struct rel *bound;

	ev->arena = s->level - 1;
	coll = with_domain(ev, s, &bound);
	if (coll->kind == V_CROSS)
		each_cross(ev, coll, bound ? bound : cross_bound(ev, coll), &c);
	else
		cat_each_member(ev, coll, s->binds[0].e->pos, try_choice, &c);
	ev->arena = arena;
}

/* Run the steps from `at` on; every path ends in accept or reject. */
static void run_from(struct cat_eval *ev, int at)
{
	for (; at < ev->m->steps.len; at++) {
		const struct cat_stmt *s = ev->m->steps.items[at];

		if (s->kind == S_WITH) {
			run_with(ev, s, at + 1);
			return;
		}
		if (!holds(ev, s)) {
			ev->failed = s;
			ev->visitor->reject(ev->visitor->arg, s->name);
			ev->failed = NULL;
			return;
		}
	}
	accept(ev);
}

/*
 * What the static level depends on: the events and the relations among
 * them.  Not the values they read or write: only different-values looks
 * at those, and it is not of the static level (catprim.c), so runs that
 * differ only in the values read (e.g. every read 0 or 1) share it.  The
 * tags are copied: an evaluation may outlive the test whose events they were.
 */
struct shape {
	int nevents;
	struct event *events;	/* neither values nor tags read: tags has them */
	struct rel *rels[5];	/* po, rmw, addr, data, ctrl */
	struct set *iw;
	struct strbuf tags;	/* each event's tags, NUL-terminated, in turn */
};

static void shape_rels(const struct execution *x, const struct rel *rels[5])
{
	rels[0] = x->po;
	rels[1] = x->rmw;
	rels[2] = x->addr;
	rels[3] = x->data;
	rels[4] = x->ctrl;
}

static void shape_free(struct shape *s)
{
	if (!s)
		return;
	free(s->events);
	for (int i = 0; i < 5; i++)
		free(s->rels[i]);
	free(s->iw);
	sb_free(&s->tags);
	free(s);
}

static struct shape *shape_of(const struct execution *x)
{
	struct shape *s = xcalloc(1, sizeof(*s));
	const struct rel *rels[5];

	s->nevents = x->nevents;
	s->events = xmalloc((x->nevents + 1) * sizeof(*s->events));
	memcpy(s->events, x->events, x->nevents * sizeof(*s->events));
	shape_rels(x, rels);
	for (int i = 0; i < 5; i++) {
		s->rels[i] = rel_new(x->nevents);
		rel_copy(s->rels[i], rels[i]);
	}
	s->iw = set_new(x->nevents);
	set_copy(s->iw, x->iw);
	for (int i = 0; i < x->nevents; i++)
		for (int t = 0; t < x->events[i].ntags; t++)
			sb_add(&s->tags, x->events[i].tags[t], strlen(x->events[i].tags[t]) + 1);
	return s;
}

/* Run for every execution: most often the shape is the last one's. */
static bool same_shape(const struct shape *s, const struct execution *x)
{
	const struct rel *rels[5];
	const char *tag;

	if (!s || s->nevents != x->nevents)
		return false;
	tag = s->tags.buf;
	for (int i = 0; i < x->nevents; i++) {
		const struct event *a = &s->events[i], *b = &x->events[i];

		if (a->proc != b->proc || a->poi != b->poi || a->kind != b->kind ||
		    a->atomic != b->atomic || a->has_val != b->has_val || a->loc != b->loc ||
		    a->ntags != b->ntags)
			return false;
		for (int t = 0; t < b->ntags; t++) {
			if (strcmp(tag, b->tags[t]))
				return false;
			tag += strlen(tag) + 1;
		}
	}
	shape_rels(x, rels);
	for (int i = 0; i < 5; i++)
		if (rel_cmp(s->rels[i], rels[i]))
			return false;
	return !set_cmp(s->iw, x->iw);
}

/*
 * The structure at hand and a kept one change places: what was computed
 * of each goes with it.  The one at hand is kept only if its analysis
 * is whole (an error may have cut it short).
 */
static void swap_structure(struct cat_eval *ev, struct structure_kept *k)
{
	struct structure_kept at = {
		ev->shape, ev->slots, ev->stmts, ev->kept, ev->nkept, ev->kept_cap,
		ev->arenas[LEVEL_STATIC], ev->all, ev->gens[LEVEL_STATIC],
		cat_level_in_place(ev), ++ev->structures_left
	};

	ev->shape = k->shape;
	ev->slots = k->slots;
	ev->stmts = k->stmts;
	ev->kept = k->kept;
	ev->nkept = k->nkept;
	ev->kept_cap = k->kept_cap;
	ev->arenas[LEVEL_STATIC] = k->arena;
	ev->all = k->all;
	ev->gens[LEVEL_STATIC] = k->gen;
	*k = at;
	if (!k->analysis) {
		shape_free(k->shape);
		k->shape = NULL;
	}
}

/*
 * A kept structure of x's shape made the one at hand, with its static
 * values and its analysis; the values of every other level are renewed,
 * and so are the tallies, as for a structure new to the evaluation.
 * Whether there was one whose analysis is still kept.
 */
static bool take_back(struct cat_eval *ev, const struct execution *x)
{
	struct structure_kept *k = NULL;
	unsigned long analysis;

	for (int i = 0; i < STRUCTURES_KEPT && !k; i++)
		if (same_shape(ev->structures[i].shape, x))
			k = &ev->structures[i];
	if (!k)
		return false;
	analysis = k->analysis;
	if (!cat_level_still_kept(ev, analysis)) {
		shape_free(k->shape);	/* its marks were made over */
		k->shape = NULL;
		return false;
	}
	swap_structure(ev, k);
	renew_levels(ev, LEVEL_EXECUTION);
	cat_level_put_back(ev, analysis);
	ev->mono_gen = 0;
	return true;
}

/* The place of the kept structure least recently left, or of none. */
static struct structure_kept *place_to_keep(struct cat_eval *ev)
{
	struct structure_kept *p = &ev->structures[0];

	for (int i = 1; i < STRUCTURES_KEPT; i++) {
		struct structure_kept *k = &ev->structures[i];

		if (p->shape && (!k->shape || k->left < p->left))
			p = k;
	}
	return p;
}

/*
 * The levels, kept terms and slots of the structure just kept (k) copied
 * to the arrays it left: they go with the analysis in place, which the
 * next one starts from (catlevel.c).  Its values are stale once the
 * static level is renewed.
 */
static void copy_levels(struct cat_eval *ev, const struct structure_kept *k)
{
	const struct cat_model *m = ev->m;
	int nstmts = m->stmts.len + m->invariants.len;

	if (!ev->slots) {
		ev->slots = xmalloc((m->nslots + 1) * sizeof(*ev->slots));
		ev->stmts = xmalloc((nstmts + 1) * sizeof(*ev->stmts));
	}
	/* A structure kept before any analysis has no arrays: memcpy() takes no NULL. */
	if (k->slots)
		memcpy(ev->slots, k->slots, m->nslots * sizeof(*ev->slots));
	if (k->stmts)
		memcpy(ev->stmts, k->stmts, nstmts * sizeof(*ev->stmts));
	ev->kept = xrealloc(ev->kept, (k->nkept + 1) * sizeof(*ev->kept));
	ev->kept_cap = k->nkept + 1;
	if (k->nkept)
		memcpy(ev->kept, k->kept, k->nkept * sizeof(*ev->kept));
	ev->nkept = k->nkept;
}

/* x's structure, met for the first time or no longer kept: the one at hand is kept. */
static void new_structure(struct cat_eval *ev, const struct execution *x)
{
	struct structure_kept *k = place_to_keep(ev);

	shape_free(k->shape);
	k->shape = NULL;
	if (ev->shape) {
		swap_structure(ev, k);
		copy_levels(ev, k);
	}
	ev->shape = shape_of(x);
	renew_levels(ev, LEVEL_STATIC);
	ev->all = run_alloc(ev, set_bytes(x->nevents));
	set_init(ev->all, x->nevents);
	set_fill(ev->all);
	cat_level_analyse(ev, cat_slot_value);
}

/* Make x the execution at hand: its static values are kept if they hold. */
static void enter(struct cat_eval *ev, const struct execution *x)
{
	ev->x = x;
	ev->nevents = x->nevents;
	ev->words = words_for(x->nevents);
	ev->set_size = set_bytes(x->nevents);
	ev->rel_size = rel_bytes(x->nevents);
	/* The arena between steps; an error may have left another current (a with's memo's). */
	ev->arena = LEVEL_STATIC;
	if ((x->structure && x->structure == ev->structure) || same_shape(ev->shape, x))
		renew_levels(ev, LEVEL_EXECUTION);
	else if (!take_back(ev, x))
		new_structure(ev, x);
	ev->structure = x->structure;
}

void cat_run(struct cat_eval *ev, const struct execution *x,
	     const struct cat_visitor *v)
{
	enter(ev, x);
	ev->visitor = v;
	if (v->skip_rejected)
		mono_analyse(ev);
	run_from(ev, 0);
}

struct cat_value *cat_slot_value(struct cat_eval *ev, int slot)
{
	return slot_value(ev, slot);
}

/* Which checks prune, for this event structure (catmono.c). */
static void mono_analyse(struct cat_eval *ev)
{
	if (ev->mono_gen != ev->gens[LEVEL_STATIC]) {
		if (!cat_level_prunes_restore(ev)) {
			cat_mono_analyse(ev);
			cat_level_prunes_keep(ev);
		}
		ev->mono_gen = ev->gens[LEVEL_STATIC];
		free(ev->tallies);
		ev->tallies = xcalloc(2 * (ev->x->nevents + 1), sizeof(*ev->tallies));
	}
}

/*
 * The steps from `at` on, each later `with` bound to {}, below all its
 * choices: whether a check catmono.c found monotone fails.
 */
static bool partial_steps_fail(struct cat_eval *ev, int at)
{
	for (; at < ev->m->steps.len; at++) {
		const struct cat_stmt *s = ev->m->steps.items[at];

		if (s->kind == S_WITH) {
			renew_levels(ev, s->level);
			set_slot(ev, s->binds[0].slot, &empty_value);
		} else if (stmt_state(ev, s)->prunes && !holds(ev, s)) {
			return true;
		}
	}
	return false;
}

/*
 * Each `with` is bound to {}, below all its choices, and only the checks
 * catmono.c found monotone are run: if one fails here, it fails on
 * every completion of x, whichever choices the withs make.  Judged or
 * not as a with's prefixes are (prefixes_pay()), tallied by how many
 * reads x reads from: in C-ManfredSpraul-L1G2xchg the judgements after
 * 9 reads cut 82%, those after 8 reads 18%.
 */
bool cat_partial_fails(struct cat_eval *ev, const struct execution *x)
{
	struct prefix_tally *t;
	int k = 0;
	bool fails;

	for (size_t i = 0; i < (size_t)x->rf->n * x->rf->words; i++)
		k += word_count(x->rf->w[i]);
	enter(ev, x);
	mono_analyse(ev);
	t = &ev->tallies[x->nevents + 1 + k];
	if (!prefixes_pay(t))
		return false;
	fails = partial_steps_fail(ev, 0);
	t->checks++;
	t->cuts += fails;
	return fails;
}

/* ---- Evaluations of a loaded model, the model freed ---- */

struct cat_eval *cat_eval_new(const struct cat_model *m)
{
	struct cat_eval *ev = xcalloc(1, sizeof(*ev));
	int nstmts = m->stmts.len + m->invariants.len;

	ev->m = m;
	ev->slots = xcalloc(m->nslots + 1, sizeof(*ev->slots));
	for (int i = 0; i < m->nslots; i++)
		ev->slots[i].level = m->slots[i].level;
	ev->stmts = xcalloc(nstmts + 1, sizeof(*ev->stmts));
	for (int i = 0; i < m->stmts.len; i++)
		ev->stmts[i].level = ((const struct cat_stmt *)m->stmts.items[i])->level;
	for (int i = 0; i < m->invariants.len; i++)
		ev->stmts[m->stmts.len + i].level =
			((const struct cat_stmt *)m->invariants.items[i])->level;
	cat_level_memos_new(ev);
	ev->gens = xcalloc(m->nlevels, sizeof(*ev->gens));
	ev->arenas = xcalloc(m->nlevels * (1 + WITH_KEPT), sizeof(*ev->arenas));
	ev->memos = xcalloc(m->nlevels, sizeof(*ev->memos));
	ev->level_memo_in_place = -1;
	renew_levels(ev, 0);	/* slots start at 0: not computed */
	return ev;
}

const struct cat_model *cat_eval_model(const struct cat_eval *ev)
{
	return ev->m;
}

static void free_vec(struct vec *v)
{
	for (int i = 0; i < v->len; i++)
		free(v->items[i]);
	vec_free(v);
}

static void free_kept_structures(struct cat_eval *ev)
{
	for (int i = 0; i < STRUCTURES_KEPT; i++) {
		struct structure_kept *k = &ev->structures[i];

		shape_free(k->shape);
		free(k->slots);
		free(k->stmts);
		free(k->kept);
		free_vec(&k->arena.blocks);
	}
}

void cat_eval_free(struct cat_eval *ev)
{
	free_kept_structures(ev);
	for (int i = 0; i < ev->m->nlevels * (1 + WITH_KEPT); i++)
		free_vec(&ev->arenas[i].blocks);
	free(ev->arenas);
	free(ev->memos);
	free(ev->gens);
	shape_free(ev->shape);
	free(ev->level_reads);
	cat_level_memos_free(ev);
	free(ev->kept);
	free(ev->tallies);
	vec_free(&ev->flags);
	free(ev->slots);
	free(ev->stmts);
	free(ev);
}

const char *cat_macros_file(const struct cat_model *m)
{
	return m->macros;
}

void cat_free(struct cat_model *m)
{
	vec_free(&m->names);
	free(m->name_index);
	vec_free(&m->files);
	free_vec(&m->texts);
	vec_free(&m->bell_tags);
	vec_free(&m->variants);
	cat_free_syntax(m);
	vec_free(&m->steps);
	vec_free(&m->flag_stmts);
	free(m->tag_sets);
	free(m->slots);
	free(m->dir);
	free(m);
}

/* ---- Explanations ---- */

/* The relation of the check being rejected, if it is a non-negated test of a relation. */
static struct rel *failed_relation(struct cat_eval *ev)
{
	const struct cat_stmt *s = ev->failed;
	struct cat_value *v;
	int arena = ev->arena;

	if (!s || s->negated)
		return NULL;
	ev->arena = stmt_state(ev, s)->level;
	v = eval(ev, s->e, NULL);
	ev->arena = arena;
	return v->kind == V_REL ? v->u.rel : NULL;
}

int cat_failed_cycle(struct cat_eval *ev, int *cycle, int max)
{
	struct rel *r;
	int n;

	if (!ev->failed || ev->failed->test == TEST_EMPTY || !(r = failed_relation(ev)))
		return 0;
	if (ev->failed->test == TEST_ACYCLIC)
		return rel_find_cycle(r, cycle, max);
	for (n = 0; n < r->n; n++) {
		if (rel_has(r, n, n) && max > 0) {
			cycle[0] = n;
			return 1;
		}
	}
	return 0;
}

const struct rel *cat_relation(struct cat_eval *ev, const char *name)
{
	/* The last binding of the name that this execution has computed. */
	for (int i = ev->m->nslots - 1; i >= 0; i--) {
		const struct slot_state *st = &ev->slots[i];

		if (strcmp(ev->m->slots[i].name, name) || st->gen != ev->gens[st->level])
			continue;
		return st->val->kind == V_REL ? st->val->u.rel : NULL;
	}
	return NULL;
}

/*
 * Derivations: why the relation of an expression relates a to b, as a
 * path of base steps.  Each operator is undone in turn: a union by the
 * branch that holds, a sequence by intermediate events found from both
 * ends, a closure by a shortest path, an inverse by turning the steps
 * around, an intersection or difference by its first operand, a defined
 * name by its definition (a function by its body), down to the relations
 * the execution itself gives (po, rf, co and the like) and to herd's
 * standard ones whose names a reader knows (fr, rfe, coi ...).  [S] on
 * the way is kept as a step on one event: it says which kind of event
 * (a release, a fence) made the order.
 */
static const char *const base_names[] = {
	"po", "po-loc", "rf", "rfe", "rfi", "co", "coe", "coi", "fr", "fre", "fri",
	"rmw", "addr", "data", "ctrl", "loc", "ext", "int", "id",
};

enum { DERIVE_DEPTH = 48 };

/*
 * A function's parameter, bound to the argument's expression and the
 * bindings it is read in, so that a step through the parameter is
 * derived from what the caller passed.
 */
struct derive_arg {
	const char *name;
	const struct cat_expr *e;
	struct cat_frame *env;
	struct derive_arg *up;
};

struct derivation {
	struct cat_eval *ev;
	struct cat_step *steps;
	int n, max;
	struct derive_arg *args;	/* innermost first */
};

static bool is_base_name(const char *name)
{
	for (size_t i = 0; i < sizeof(base_names) / sizeof(*base_names); i++)
		if (!strcmp(base_names[i], name))
			return true;
	return false;
}

static void add_step(struct derivation *d, int from, int to, const char *base,
		     const char *context, bool filter)
{
	if (d->n < d->max)
		d->steps[d->n] = (struct cat_step){ from, to, base, context, filter, false };
	d->n++;
}

static struct rel *derive_rel(struct derivation *d, const struct cat_expr *e, struct cat_frame *env)
{
	struct cat_value *v = eval(d->ev, e, env);

	return v->kind == V_REL ? v->u.rel : NULL;
}

/* The expression that defines global slot, or NULL. */
static const struct cat_expr *definition(const struct cat_model *m, int slot)
{
	const struct cat_stmt *s = m->slots[slot].definer;

	if (!s || (s->kind != S_LET && s->kind != S_LETREC) || m->slots[slot].predef)
		return NULL;
	for (int i = 0; i < s->nbinds; i++)
		if (s->binds[i].slot == slot && !s->binds[i].pat.tuple)
			return s->binds[i].e;
	return NULL;
}

static void derive(struct derivation *d, const struct cat_expr *e, struct cat_frame *env,
		   int a, int b, const char *context, int depth);

/* A shortest path from a to b of at least one step of r, into path; its length. */
static int shortest_path(const struct rel *r, int a, int b, int *path)
{
	int n = r->n, prev[n + 1], queue[n + 1], head = 0, tail = 0;

	if (a < 0 || b < 0 || a >= n || b >= n)
		return 0;
	for (int i = 0; i < n; i++)
		prev[i] = -2;
	for (int y = 0; y < n; y++) {
		if (rel_has(r, a, y) && prev[y] == -2) {
			prev[y] = -1;
			queue[tail++] = y;
		}
	}
	while (head < tail && prev[b] == -2) {
		int x = queue[head++];

		for (int y = 0; y < n; y++) {
			if (rel_has(r, x, y) && prev[y] == -2) {
				prev[y] = x;
				queue[tail++] = y;
			}
		}
	}
	if (prev[b] == -2)
		return 0;
	int len = 0;

	for (int x = b; x != -1; x = prev[x])
		len++;
	path[0] = a;
	for (int x = b, i = len; x != -1; x = prev[x])
		path[i--] = x;
	return len;
}

/* a ; ... ; b: the events between the operands, then each operand's own steps. */
static void derive_seq(struct derivation *d, const struct cat_expr *e, struct cat_frame *env,
		       int a, int b, const char *context, int depth)
{
	int n = d->ev->x->nevents, k = e->n;
	struct rel *rels[k];
	struct set *sets[k];
	bool reach[k + 1][n];
	int at[k + 1];

	memset(reach, 0, sizeof(reach));
	reach[0][a] = true;
	for (int i = 0; i < k; i++) {
		const struct cat_expr *arg = e->args[i];
		struct cat_value *v = eval(d->ev, arg->kind == X_TOID ? arg->args[0] : arg, env);

		rels[i] = arg->kind != X_TOID && v->kind == V_REL ? v->u.rel : NULL;
		sets[i] = arg->kind == X_TOID && v->kind == V_SET ? v->u.set : NULL;
		for (int x = 0; x < n; x++) {
			if (!reach[i][x])
				continue;
			if (sets[i]) {
				reach[i + 1][x] |= set_has(sets[i], x);
				continue;
			}
			for (int y = 0; rels[i] && y < n; y++)
				reach[i + 1][y] |= rel_has(rels[i], x, y);
		}
	}
	if (!reach[k][b]) {
		add_step(d, a, b, "?", context, false);
		return;
	}
	at[k] = b;
	for (int i = k - 1; i >= 0; i--) {
		at[i] = at[i + 1];
		if (sets[i])
			continue;
		for (int x = 0; x < n; x++) {
			if (reach[i][x] && rels[i] && rel_has(rels[i], x, at[i + 1])) {
				at[i] = x;
				break;
			}
		}
	}
	for (int i = 0; i < k; i++) {
		const struct cat_expr *arg = e->args[i];

		if (sets[i])
			add_step(d, at[i], at[i], arg->args[0]->kind == X_VAR ?
				 arg->args[0]->name : "[...]", context, true);
		else
			derive(d, arg, env, at[i], at[i + 1], context, depth + 1);
	}
}

/* r+ from a to b: each step of a shortest path. */
static void derive_closure(struct derivation *d, const struct cat_expr *e, struct cat_frame *env,
			   int a, int b, const char *context, int depth)
{
	struct rel *r = derive_rel(d, e->args[0], env);
	int path[d->ev->x->nevents + 1], len;

	if (a == b && e->kind != X_PLUS)
		return;
	len = r ? shortest_path(r, a, b, path) : 0;
	if (!len) {
		add_step(d, a, b, "?", context, false);
		return;
	}
	for (int i = 0; i < len; i++)
		derive(d, e->args[0], env, path[i], path[i + 1], context, depth + 1);
}

static int pairs(const struct rel *r)
{
	int n = 0;

	for (int a = 0; a < r->n; a++)
		for (int b = 0; b < r->n; b++)
			n += rel_has(r, a, b);
	return n;
}

static bool symmetric(const struct rel *r)
{
	for (int a = 0; a < r->n; a++)
		for (int b = 0; b < a; b++)
			if (rel_has(r, a, b) != rel_has(r, b, a))
				return false;
	return true;
}

/*
 * The operand of an intersection that says most: not a cartesian
 * product or a symmetric relation (loc, int, ext), which only classify
 * the pair, then the one with the fewest pairs.
 */
static const struct cat_expr *telling_operand(struct derivation *d, const struct cat_expr *e,
					struct cat_frame *env)
{
	const struct cat_expr *best = e->args[0];
	int fewest = -1;
	bool best_symmetric = true;

	for (int i = 0; i < e->n; i++) {
		struct rel *r = derive_rel(d, e->args[i], env);
		int n = r ? pairs(r) : -1;
		bool sym = r && symmetric(r);

		if (n < 0 || (sym && !best_symmetric) || e->args[i]->kind == X_CART)
			continue;
		/* On a tie, a composite operand explains more than a name. */
		if (fewest < 0 || (!sym && best_symmetric) || n < fewest ||
		    (n == fewest && best->kind == X_VAR && e->args[i]->kind != X_VAR)) {
			best = e->args[i];
			fewest = n;
			best_symmetric = sym;
		}
	}
	return best;
}

static void derive_var(struct derivation *d, const struct cat_expr *e, int a, int b,
		       const char *context, int depth)
{
	const struct cat_expr *def = e->slot >= 0 ? definition(d->ev->m, e->slot) : NULL;
	struct derive_arg *arg, *args = d->args;

	for (arg = args; e->slot < 0 && arg; arg = arg->up) {
		if (arg->name != e->name)
			continue;
		d->args = arg->up;	/* the caller's parameters */
		derive(d, arg->e, arg->env, a, b, context, depth + 1);
		d->args = args;
		return;
	}
	if (!def || is_base_name(e->name) || depth > DERIVE_DEPTH) {
		add_step(d, a, b, e->name, context, false);
		return;
	}
	d->args = NULL;		/* a global's definition sees no parameter */
	derive(d, def, NULL, a, b, e->name[0] == '(' ? context : e->name, depth + 1);
	d->args = args;
}

static void derive_app(struct derivation *d, const struct cat_expr *e, struct cat_frame *env,
		       int a, int b, const char *context, int depth)
{
	struct cat_value *f = eval(d->ev, e->args[0], env);
	const struct cat_expr *fun;
	struct derive_arg arg, *args = d->args;

	if (f->kind != V_CLO || depth > DERIVE_DEPTH) {
		add_step(d, a, b, e->args[0]->kind == X_VAR ? e->args[0]->name : "?", context,
			 false);
		return;
	}
	fun = f->u.clo.fun;
	arg = (struct derive_arg){ fun->param.n == 1 && !fun->param.tuple ?
				   fun->param.names[0] : NULL, e->args[1], env, args };
	d->args = &arg;
	derive(d, fun->args[0], bind(d->ev, &fun->param, eval(d->ev, e->args[1], env),
				     f->u.clo.env, e->pos), a, b, context, depth + 1);
	d->args = args;
}

static void derive(struct derivation *d, const struct cat_expr *e, struct cat_frame *env,
		   int a, int b, const char *context, int depth)
{
	int first = d->n;

	switch (e->kind) {
	case X_VAR:
		derive_var(d, e, a, b, context, depth);
		return;
	case X_UNION:
		for (int i = 0; i < e->n; i++) {
			struct rel *r = derive_rel(d, e->args[i], env);

			if (r && rel_has(r, a, b)) {
				derive(d, e->args[i], env, a, b, context, depth + 1);
				return;
			}
		}
		break;
	case X_SEQ:
		derive_seq(d, e, env, a, b, context, depth);
		return;
	case X_INTER:
		derive(d, telling_operand(d, e, env), env, a, b, context, depth + 1);
		return;
	case X_DIFF:
		derive(d, e->args[0], env, a, b, context, depth + 1);
		return;
	case X_PLUS:
	case X_STAR:
	case X_OPT:
		derive_closure(d, e, env, a, b, context, depth);
		return;
	case X_INV:
		derive(d, e->args[0], env, b, a, context, depth + 1);
		for (int i = first, j = (d->n < d->max ? d->n : d->max) - 1; i <= j; i++, j--) {
			struct cat_step t = d->steps[i];

			d->steps[i] = d->steps[j];
			d->steps[j] = t;
		}
		for (int i = first; i < d->n && i < d->max; i++) {
			int from = d->steps[i].from;

			d->steps[i].from = d->steps[i].to;
			d->steps[i].to = from;
			d->steps[i].inverse = !d->steps[i].inverse;
		}
		return;
	case X_TOID:
		add_step(d, a, a, e->args[0]->kind == X_VAR ? e->args[0]->name : "[...]",
			 context, true);
		return;
	case X_APP:
		derive_app(d, e, env, a, b, context, depth);
		return;
	case X_TRY:
		derive(d, e->args[e->use_handler], env, a, b, context, depth + 1);
		return;
	default:
		break;
	}
	add_step(d, a, b, "?", context, false);
}

int cat_derive_failed(struct cat_eval *ev, int a, int b, struct cat_step *steps, int max)
{
	const struct cat_stmt *s = ev->failed;
	struct derivation d = { ev, steps, 0, max, NULL };
	int arena = ev->arena;

	if (!s)
		return 0;
	ev->arena = stmt_state(ev, s)->level;
	derive(&d, s->e, NULL, a, b, s->name, 0);
	ev->arena = arena;
	return d.n <= max ? d.n : -1;
}

int cat_failed_pair(struct cat_eval *ev, int *a, int *b)
{
	struct rel *r;

	if (!ev->failed || ev->failed->test != TEST_EMPTY || !(r = failed_relation(ev)))
		return 0;
	for (*a = 0; *a < r->n; (*a)++)
		for (*b = 0; *b < r->n; (*b)++)
			if (rel_has(r, *a, *b))
				return 1;
	return 0;
}
