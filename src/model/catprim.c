/*
 * catprim.c - the names a model finds already defined: herd7's event
 * sets and relations for the C language, built from the execution, one
 * event set per annotation the bell declares (e.g. 'once -> Once), and
 * the primitive functions our library is written with.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "catast.h"

/* ---- Event sets ---- */

/* One letter per kind, for the predefined table below to name sets. */
static const char kind_letters[] = {
	[EV_READ] = 'R', [EV_WRITE] = 'W', [EV_FENCE] = 'F',
	[EV_LOCK_READ] = 'k', [EV_LOCK_WRITE] = 'K', [EV_UNLOCK] = 'U',
	[EV_LOCK_FAIL] = 'L', [EV_READ_LOCKED] = 'u',
	[EV_READ_UNLOCKED] = 'D', [EV_SRCU] = 'S',
};

/* Events whose kind letter is in `kinds`. */
static struct cat_value *by_kind(struct cat_eval *ev, const char *kinds)
{
	struct cat_value *v = cat_new_set(ev);

	for (int i = 0; i < ev->x->nevents; i++)
		if (strchr(kinds, kind_letters[ev->x->events[i].kind]))
			set_add(v->u.set, i);
	return v;
}

static struct cat_value *atomic(struct cat_eval *ev, const char *unused)
{
	struct cat_value *v = cat_new_set(ev);

	(void)unused;
	for (int i = 0; i < ev->x->nevents; i++)
		if (ev->x->events[i].atomic)
			set_add(v->u.set, i);
	return v;
}

static struct cat_value *tagged(struct cat_eval *ev, const char *tag)
{
	struct cat_value *v = cat_new_set(ev);

	for (int i = 0; i < ev->x->nevents; i++) {
		const struct event *e = &ev->x->events[i];

		for (int t = 0; t < e->ntags; t++)
			if (e->tags[t][0] == tag[0] && !strcmp(e->tags[t], tag))
				set_add(v->u.set, i);
	}
	return v;
}

static struct cat_value *given_set(struct cat_eval *ev, const char *name)
{
	struct cat_value *v = cat_new_set(ev);

	set_copy(v->u.set, name[0] == 'I' ? ev->x->iw : ev->x->fw);
	return v;
}

/* ---- Relations ---- */

static struct cat_value *given_rel(struct cat_eval *ev, const char *name)
{
	const struct execution *x = ev->x;
	static const char *const names[] = { "po", "rf", "rmw", "addr",
					     "data", "ctrl" };
	struct rel *rels[] = { x->po, x->rf, x->rmw, x->addr, x->data, x->ctrl };
	struct cat_value *v = cat_new_rel(ev);

	for (int i = 0; i < 6; i++)
		if (!strcmp(names[i], name))
			rel_copy(v->u.rel, rels[i]);
	return v;
}

static int event_key(const struct event *e, int i)
{
	(void)e;
	return i;
}

/* Initial writes have no process: they are neither int nor ext together. */
static int proc_key(const struct event *e, int i)
{
	(void)i;
	return e->proc;
}

static int loc_key(const struct event *e, int i)
{
	(void)i;
	return e->loc;
}

/*
 * Pairs of events whose keys are equal and not negative, or, for ext,
 * differ.  The keys are taken first, so that a pair costs a comparison.
 */
static const struct {
	const char *name;
	int (*key)(const struct event *e, int i);
	bool differ;
} pair_kinds[] = {
	{ "id", event_key, false }, { "int", proc_key, false }, { "ext", proc_key, true },
	{ "loc", loc_key, false },
};

/*
 * The relation named `name` in pair_kinds.  Events of one key have one
 * row: it is made once, for the first of them, and copied to the others.
 */
static struct cat_value *pairs_by(struct cat_eval *ev, const char *name)
{
	const struct execution *x = ev->x;
	struct cat_value *v = cat_new_rel(ev);
	struct rel *r = v->u.rel;
	int n = x->nevents, key[n + 1];
	bool done[n + 1];
	size_t k = 0;
	bool differ;

	while (strcmp(pair_kinds[k].name, name))
		k++;
	differ = pair_kinds[k].differ;
	for (int a = 0; a < n; a++) {
		key[a] = pair_kinds[k].key(&x->events[a], a);
		done[a] = key[a] < 0 && !differ;
	}
	for (int a = 0; a < n; a++) {
		uint64_t *row = r->w + (size_t)a * r->words;

		if (done[a])
			continue;
		for (int b = a; b < n; b++)
			row[b / 64] |= (uint64_t)(key[a] == key[b]) << (b % 64);
		if (differ) {
			for (int i = 0; i < r->words; i++)
				row[i] = ~row[i];
			row[r->words - 1] &= ~UINT64_C(0) >> (63 - (n - 1) % 64);
		}
		for (int b = a + 1; b < n; b++)
			if (key[b] == key[a]) {
				memcpy(r->w + (size_t)b * r->words, row, r->words * sizeof(*row));
				done[b] = true;
			}
	}
	return v;
}

/* ---- Primitive functions ---- */

static struct cat_value *domain(struct cat_eval *ev, struct cat_value **args,
				struct srcpos pos)
{
	struct cat_value *v;

	if (args[0]->kind == V_EMPTY)
		return args[0];
	v = cat_new_set(ev);
	rel_domain(v->u.set, cat_as_rel(ev, args[0], pos));
	return v;
}

static struct cat_value *range(struct cat_eval *ev, struct cat_value **args,
			       struct srcpos pos)
{
	struct cat_value *v;

	if (args[0]->kind == V_EMPTY)
		return args[0];
	v = cat_new_set(ev);
	rel_range(v->u.set, cat_as_rel(ev, args[0], pos));
	return v;
}

static bool same_value(const struct event *a, const struct event *b)
{
	return a->has_val && b->has_val && a->val.is_addr == b->val.is_addr &&
	       a->val.n == b->val.n;
}

/*
 * The pairs of r whose events do not have one same value.  r is most
 * often empty (the LKMM's srcu-rscs, in every execution of a test
 * without SRCU): then one pass tells, not a walk of its rows (T16: 2%).
 */
static struct cat_value *different_values(struct cat_eval *ev,
					  struct cat_value **args,
					  struct srcpos pos)
{
	struct rel *r = cat_as_rel(ev, args[0], pos);
	struct cat_value *v = cat_new_rel(ev);

	if (rel_is_empty(r))
		return v;
	for (int a = 0; a < r->n; a++) {
		const uint64_t *row = r->w + (size_t)a * r->words;

		for (int i = 0; i < r->words; i++)
			for (uint64_t bits = row[i]; bits; bits &= bits - 1) {
				int b = i * 64 + __builtin_ctzll(bits);

				if (!same_value(&ev->x->events[a], &ev->x->events[b]))
					rel_add(v->u.rel, a, b);
			}
	}
	return v;
}

struct mapping {
	struct cat_value *f;
	struct vec items;
	struct srcpos pos;
};

static void map_one(struct cat_eval *ev, struct cat_value *v, void *arg)
{
	struct mapping *map = arg;

	vec_push(&map->items, cat_apply(ev, map->f, v, map->pos));
}

/*
 * map f S: the set of the f e for e in S ({} when S is empty).  Events
 * and pairs make an event set or a relation; other values are sorted
 * into a set once, not added one by one.
 */
static struct cat_value *map(struct cat_eval *ev, struct cat_value **args,
			     struct srcpos pos)
{
	struct mapping map = { args[0], { 0 }, pos };
	struct cat_value *acc = cat_new_value(ev, V_EMPTY), *first;

	cat_each_member(ev, args[1], pos, map_one, &map);
	if (!map.items.len)
		return acc;
	first = map.items.items[0];
	if (first->kind != V_EVENT && first->kind != V_PAIR)
		return cat_valset(ev, &map.items);
	for (int i = 0; i < map.items.len; i++)
		acc = cat_add(ev, map.items.items[i], acc, pos);
	vec_free(&map.items);
	return acc;
}

/* S split by location, events without one left out. */
static struct cat_value *split_by_loc(struct cat_eval *ev, const struct set *s)
{
	struct cat_value *by_loc[ev->x->nlocs + 1];
	struct vec classes = { 0 };

	memset(by_loc, 0, sizeof(by_loc));
	for (int e = set_next(s, 0); e >= 0; e = set_next(s, e + 1)) {
		int loc = ev->x->events[e].loc;

		if (loc < 0 || loc >= ev->x->nlocs)
			continue;
		if (!by_loc[loc])
			by_loc[loc] = cat_new_set(ev);
		set_add(by_loc[loc]->u.set, e);
	}
	for (int loc = 0; loc < ev->x->nlocs; loc++)
		if (by_loc[loc])
			vec_push(&classes, by_loc[loc]);
	return cat_valset(ev, &classes);
}

/*
 * classes-loc(S), kept for the event structure (struct classes_kept):
 * cross.cat asks it inside a function, where no level keeps a value, and
 * so again for every execution and every partial one (one T16 execution
 * in 30 was spent there).
 */
static struct cat_value *classes_loc(struct cat_eval *ev,
				     struct cat_value **args, struct srcpos pos)
{
	struct set *s = cat_as_set(ev, args[0], pos);
	struct classes_kept *k;
	int arena = ev->arena;

	if (ev->classes_gen != ev->gens[LEVEL_STATIC]) {
		ev->classes_gen = ev->gens[LEVEL_STATIC];
		ev->nclasses = 0;
	}
	for (int i = 0; i < ev->nclasses; i++)
		if (!set_cmp(ev->classes[i].s, s))
			return ev->classes[i].classes;
	if (ev->nclasses == CLASSES_KEPT)
		return split_by_loc(ev, s);
	k = &ev->classes[ev->nclasses++];
	ev->arena = LEVEL_STATIC;
	k->s = cat_new_set(ev)->u.set;
	set_copy(k->s, s);
	k->classes = split_by_loc(ev, s);
	ev->arena = arena;
	return k->classes;
}

/*
 * order = the transitive closure of r restricted to s, worked out on the
 * rows of s only (a location's writes are a few of the events); order
 * starts empty.  Whether it is irreflexive on s, i.e. r has no cycle
 * there.  The members of s are taken from its words directly: this runs
 * for every location of every execution.
 */
static bool close_on(struct rel *order, const struct rel *r, const struct set *s)
{
	int words = order->words;

	for (int i = 0; i < words; i++)
		for (uint64_t xs = s->w[i]; xs; xs &= xs - 1) {
			size_t x = (size_t)(i * 64 + __builtin_ctzll(xs)) * words;

			for (int j = 0; j < words; j++)
				order->w[x + j] = r->w[x + j] & s->w[j];
		}
	for (int ki = 0; ki < words; ki++)
		for (uint64_t ks = s->w[ki]; ks; ks &= ks - 1) {
			int k = ki * 64 + __builtin_ctzll(ks);
			const uint64_t *rk = order->w + (size_t)k * words;

			for (int i = 0; i < words; i++)
				for (uint64_t xs = s->w[i]; xs; xs &= xs - 1) {
					uint64_t *rx = order->w + (size_t)(i * 64 + __builtin_ctzll(xs)) * words;

					if (rx[ki] >> (k % 64) & 1)
						for (int j = 0; j < words; j++)
							rx[j] |= rk[j];
				}
		}
	for (int i = 0; i < words; i++)
		for (uint64_t xs = s->w[i]; xs; xs &= xs - 1)
			if (rel_has(order, i * 64 + __builtin_ctzll(xs), i * 64 + __builtin_ctzll(xs)))
				return false;
	return true;
}

/*
 * Whether order, a strict order of s (transitive, irreflexive, within s:
 * close_on()'s), relates every two events of s one way or the other: it
 * holds each pair of s at most once, so it does so when it holds
 * n(n - 1)/2 pairs.
 */
static bool total_on(const struct rel *order, const struct set *s)
{
	int n = set_count(s), pairs = 0;

	for (int i = 0; i < order->words; i++)
		for (uint64_t xs = s->w[i]; xs; xs &= xs - 1) {
			const uint64_t *rx = order->w +
					     (size_t)(i * 64 + __builtin_ctzll(xs)) * order->words;

			for (int j = 0; j < order->words; j++)
				pairs += word_count(rx[j]);
		}
	return pairs == n * (n - 1) / 2;
}

/* The set of one order. */
static struct cat_value *only_order(struct cat_eval *ev, struct rel *order)
{
	struct cat_value *v = cat_new_value(ev, V_REL);

	v->u.rel = order;
	return cat_valset_of(ev, v);
}

/*
 * linearisations(S, r): every strict total order of S that contains r
 * restricted to S, as a set of (transitive) relations; none if r cycles.
 * When there are several, the set is kept lazy (V_LINS): `with` builds
 * them one event at a time, judging each prefix (cateval.c), and any
 * other use lists them.  It is held as S and the transitive closure of
 * r on S, which determine it (a partial order is the intersection of
 * its linear extensions), so that two such sets compare exactly.
 */
static struct cat_value *linearisations(struct cat_eval *ev,
					struct cat_value **args,
					struct srcpos pos)
{
	struct cat_value *tuple = args[0], *v;
	struct set *s;
	struct rel *order;
	int n;

	if (tuple->kind != V_TUPLE || tuple->u.list.n != 2)
		die_at(pos, "linearisations expects (set, relation)");
	s = cat_as_set(ev, tuple->u.list.items[0], pos);
	order = cat_new_rel(ev)->u.rel;
	n = set_count(s);
	if (n <= 1)
		return only_order(ev, order);	/* empty */
	if (!close_on(order, cat_as_rel(ev, tuple->u.list.items[1], pos), s))
		return cat_valset(ev, &(struct vec){ 0 });
	if (total_on(order, s))
		return only_order(ev, order);	/* total already */
	v = cat_new_value(ev, V_LINS);
	v->u.lins.set = s;
	v->u.lins.order = order;
	return v;
}

/*
 * cross(S), S a set of sets of relations: the unions of one relation
 * from each member of S, all ways.  Kept lazy, for `with` to enumerate
 * without building the set; {} when a member offers no choice.  Unlike
 * herd's set, equal unions are not merged: the models' members relate
 * disjoint events (one location's coherence, one read's rf), so their
 * unions differ anyway.
 */
static struct cat_value *cross(struct cat_eval *ev, struct cat_value **args,
			       struct srcpos pos)
{
	struct cat_value *s = args[0], *v = cat_new_value(ev, V_CROSS);

	if (s->kind == V_EMPTY)
		return v;
	if (s->kind != V_VALSET)
		die_at(pos, "cross expects a set of sets of relations");
	for (int i = 0; i < s->u.list.n; i++) {
		struct cat_value *member = s->u.list.items[i];

		if (member->kind == V_LINS)
			continue;
		if (member->kind == V_EMPTY ||
		    (member->kind == V_VALSET && !member->u.list.n))
			return cat_new_value(ev, V_EMPTY);
		if (member->kind != V_VALSET)
			die_at(pos, "cross expects a set of sets of relations");
		for (int j = 0; j < member->u.list.n; j++)
			if (member->u.list.items[j]->kind != V_REL)
				die_at(pos, "cross expects sets of relations");
	}
	v->u.list = s->u.list;
	return v;
}

static const struct {
	const char *name;
	cat_prim_fn *fn;
	int arity;
} prims[] = {
	{ "domain", domain, 1 },
	{ "range", range, 1 },
	{ "different-values", different_values, 1 },
	{ "map", map, 2 },
	{ "classes-loc", classes_loc, 1 },
	{ "linearisations", linearisations, 1 },
	{ "cross", cross, 1 },
};

static struct cat_value *prim(struct cat_eval *ev, const char *name)
{
	struct cat_value *v = cat_new_value(ev, V_PRIM);

	for (size_t i = 0; i < sizeof(prims) / sizeof(prims[0]); i++)
		if (!strcmp(prims[i].name, name)) {
			v->u.prim.fn = prims[i].fn;
			v->u.prim.arity = prims[i].arity;
		}
	return v;
}

/* ---- The table ---- */

/* Sets by kind use the letters of kind_letters. */
static const struct cat_predef predefs[] = {
	{ "M", by_kind, "RW", LEVEL_STATIC },
	{ "R", by_kind, "R", LEVEL_STATIC },
	{ "W", by_kind, "W", LEVEL_STATIC },
	{ "F", by_kind, "F", LEVEL_STATIC },
	{ "LKR", by_kind, "k", LEVEL_STATIC },
	{ "LKW", by_kind, "K", LEVEL_STATIC },
	{ "LK", by_kind, "kK", LEVEL_STATIC },
	{ "UL", by_kind, "U", LEVEL_STATIC },
	{ "LF", by_kind, "L", LEVEL_STATIC },
	{ "RL", by_kind, "u", LEVEL_STATIC },
	{ "RU", by_kind, "D", LEVEL_STATIC },
	{ "RMW", atomic, NULL, LEVEL_STATIC },
	{ "X", atomic, NULL, LEVEL_STATIC },
	{ "IW", given_set, "IW", LEVEL_STATIC },
	{ "FW", given_set, "FW", LEVEL_EXECUTION },
	{ "po", given_rel, "po", LEVEL_STATIC },
	{ "rf", given_rel, "rf", LEVEL_EXECUTION },
	{ "rmw", given_rel, "rmw", LEVEL_STATIC },
	{ "addr", given_rel, "addr", LEVEL_STATIC },
	{ "data", given_rel, "data", LEVEL_STATIC },
	{ "ctrl", given_rel, "ctrl", LEVEL_STATIC },
	{ "id", pairs_by, "id", LEVEL_STATIC },
	{ "int", pairs_by, "int", LEVEL_STATIC },
	{ "ext", pairs_by, "ext", LEVEL_STATIC },
	{ "loc", pairs_by, "loc", LEVEL_STATIC },
	{ "domain", prim, "domain", LEVEL_STATIC },
	{ "range", prim, "range", LEVEL_STATIC },
	/* The only name that reads values: see structure_key() in cateval.c. */
	{ "different-values", prim, "different-values", LEVEL_EXECUTION },
	{ "map", prim, "map", LEVEL_STATIC },
	{ "classes-loc", prim, "classes-loc", LEVEL_STATIC },
	{ "linearisations", prim, "linearisations", LEVEL_STATIC },
	{ "cross", prim, "cross", LEVEL_STATIC },
};

/*
 * Fill defs with the predefined names; the bell's annotations give one
 * set each, named like herd does: the tag with its first letter upper.
 */
void cat_predefine(struct cat_model *m, struct vec *defs)
{
	int ntags = m->bell_tags.len;
	struct cat_predef *tags = xcalloc(ntags + 1, sizeof(*tags));

	for (size_t i = 0; i < sizeof(predefs) / sizeof(predefs[0]); i++)
		vec_push(defs, (void *)&predefs[i]);
	for (int i = 0; i < ntags; i++) {
		const char *tag = m->bell_tags.items[i];
		char *name = xstrdup(tag);

		name[0] = (char)toupper((unsigned char)name[0]);
		tags[i].name = cat_intern(m, name, strlen(name));
		tags[i].compute = tagged;
		tags[i].arg = tag;
		free(name);
		vec_push(defs, &tags[i]);
	}
	m->tag_sets = tags;
}
