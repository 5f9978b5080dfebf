/*
 * cat_test.c - unit tests of the cat interpreter: the relation algebra,
 * the kernel model's verdict on small hand-built executions, and the
 * diagnostics for bad model files.
 *
 * The kernel model is read from $LKMM_MODEL_DIR, by default the tree
 * unpacked under build/.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/base.h"
#include "model/catast.h"	/* the levels of slots */

static const char *model_dir(void)
{
	const char *dir = getenv("LKMM_MODEL_DIR");

	return dir ? dir : "build/kernel-model/tools/memory-model";
}

/* The model in dir/cfg_name, under variants (NULL: the cfg's only). */
static struct cat_model *load_model(const char *dir, const char *cfg_name, const char *variants)
{
	const struct model_spec spec = { .dir = dir, .cfg_name = cfg_name, .variants = variants };

	return cat_load(&spec);
}

/* ---- Relation algebra ---- */

static struct rel *rel_of(int n, const int (*pairs)[2], int npairs)
{
	struct rel *r = rel_new(n);

	for (int i = 0; i < npairs; i++)
		rel_add(r, pairs[i][0], pairs[i][1]);
	return r;
}

static void test_seq_and_inverse(void **state)
{
	static const int ab[][2] = { { 0, 1 }, { 1, 2 }, { 70, 3 } };
	static const int bc[][2] = { { 1, 5 }, { 2, 6 }, { 3, 69 } };
	struct rel *a = rel_of(80, ab, 3), *b = rel_of(80, bc, 3);
	struct rel *r = rel_new(80), *inv = rel_new(80);

	(void)state;
	rel_seq(r, a, b);
	assert_true(rel_has(r, 0, 5) && rel_has(r, 1, 6) && rel_has(r, 70, 69));
	assert_false(rel_has(r, 0, 1) || rel_has(r, 1, 5));
	rel_inverse(inv, a);
	assert_true(rel_has(inv, 3, 70) && rel_has(inv, 2, 1));
	assert_false(rel_has(inv, 70, 3));
	free(a), free(b), free(r), free(inv);
}

static void test_closure_and_cycles(void **state)
{
	static const int chain[][2] = { { 0, 1 }, { 1, 2 }, { 2, 65 } };
	struct rel *r = rel_of(66, chain, 3), *c = rel_new(66);

	(void)state;
	assert_true(rel_is_acyclic(r));
	rel_closure(c, r);
	assert_true(rel_has(c, 0, 65) && rel_has(c, 1, 65));
	assert_false(rel_has(c, 65, 0));
	assert_true(rel_is_irreflexive(c));
	rel_add(r, 65, 0);
	assert_false(rel_is_acyclic(r));
	rel_closure(c, r);
	assert_false(rel_is_irreflexive(c));
	free(r), free(c);
}

/* A small deterministic generator: the same relations on every run. */
static uint64_t next_random(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005u + 1442695040888963407u;
	return *seed >> 33;
}

static struct rel *random_rel(int n, int per_mille, uint64_t *seed)
{
	struct rel *r = rel_new(n);

	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			if ((int)(next_random(seed) % 1000) < per_mille)
				rel_add(r, a, b);
	return r;
}

static struct set *random_set(int n, int per_mille, uint64_t *seed)
{
	struct set *s = set_new(n);

	for (int a = 0; a < n; a++)
		if ((int)(next_random(seed) % 1000) < per_mille)
			set_add(s, a);
	return s;
}

/*
 * The word-level kernels (rows of one, two or more words, two or four
 * words a step, rows cleared by their bits) against their definitions,
 * pair by pair, on random relations and sets of sizes around the word
 * boundaries, sparse and dense.
 */
/* a's closure and acyclicity against Warshall's algorithm pair by pair. */
static void check_closure(const struct rel *a)
{
	int n = a->n;
	bool *reach = calloc((size_t)n * n, sizeof(*reach)), cyclic = false;
	struct rel *c = rel_new(n);

	for (int e = 0; e < n; e++)
		for (int f = 0; f < n; f++)
			reach[e * n + f] = rel_has(a, e, f);
	for (int k = 0; k < n; k++)
		for (int e = 0; e < n; e++)
			for (int f = 0; e != k && reach[e * n + k] && f < n; f++)
				reach[e * n + f] |= reach[k * n + f];
	rel_closure(c, a);
	for (int e = 0; e < n; e++) {
		cyclic |= reach[e * n + e];
		for (int f = 0; f < n; f++)
			assert_int_equal(rel_has(c, e, f), reach[e * n + f]);
	}
	assert_int_equal(rel_is_acyclic(a), !cyclic);
	free(reach), free(c);
}

/* A relation of n events, every pair in it: a sequence must write every word of its result. */
static struct rel *rel_full(int n)
{
	struct rel *r = rel_new(n);

	memset(r->w, 0xff, (size_t)n * r->words * sizeof(uint64_t));
	return r;
}

/*
 * a ; b and a's emptiness, visiting the rows in rows, a's rows with a
 * pair among them: as visiting all.
 */
static void check_seq_rows(const struct rel *a, const struct set *rows, const struct rel *b)
{
	struct rel *all = rel_full(a->n), *some = rel_full(a->n);
	bool pairs = rel_seq_rows(some, a, rows->w, b);

	assert_int_equal(rel_rows_empty(a, rows->w), rel_is_empty(a));
	rel_seq(all, a, b);
	assert_int_equal(rel_cmp(some, all), 0);
	assert_int_equal(pairs, !rel_is_empty(all));
	free(all), free(some);
}

static void test_kernels_by_definition(void **state)
{
	static const int sizes[] = { 1, 3, 7, 45, 63, 64, 65, 72, 130 };
	static const int densities[] = { 0, 30, 300, 1000 };
	uint64_t seed = 25;

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (size_t j = 0; j < sizeof(densities) / sizeof(densities[0]); j++) {
			int n = sizes[i], d = densities[j], count = 0, pairs = 0;
			struct rel *a = random_rel(n, d, &seed), *b = random_rel(n, 300, &seed);
			struct set *s = random_set(n, d, &seed), *t = random_set(n, 500, &seed);
			struct rel *u = rel_new(n), *x = rel_new(n), *m = rel_new(n);
			struct rel *q = rel_new(n), *id = rel_new(n), *c = rel_new(n);
			struct rel *sq = rel_full(n);
			bool sq_pairs = rel_seq(sq, a, b), sq_any = false;

			rel_union(u, a, b);
			rel_inter(x, a, b);
			rel_diff(m, a, b);
			rel_copy(q, a);
			rel_restrict(q, s, t);
			check_seq_rows(q, s, b);
			rel_copy(id, a);
			rel_add_id(id, s);
			rel_cartesian(c, s, t);
			for (int e = 0; e < n; e++) {
				count += set_has(s, e);
				for (int f = 0; f < n; f++) {
					bool in_a = rel_has(a, e, f), in_b = rel_has(b, e, f), in_sq = false;

					for (int g = 0; g < n && !in_sq; g++)
						in_sq = rel_has(a, e, g) && rel_has(b, g, f);
					assert_int_equal(rel_has(sq, e, f), in_sq);
					sq_any |= in_sq;
					pairs += in_a;
					assert_int_equal(rel_has(u, e, f), in_a || in_b);
					assert_int_equal(rel_has(x, e, f), in_a && in_b);
					assert_int_equal(rel_has(m, e, f), in_a && !in_b);
					assert_int_equal(rel_has(q, e, f),
							 in_a && set_has(s, e) && set_has(t, f));
					assert_int_equal(rel_has(id, e, f), in_a || (e == f && set_has(s, e)));
					assert_int_equal(rel_has(c, e, f), set_has(s, e) && set_has(t, f));
				}
			}
			assert_int_equal(set_count(s), count);
			assert_int_equal(rel_is_empty(a), pairs == 0);
			assert_int_equal(sq_pairs, sq_any);
			check_closure(a);
			free(a), free(b), free(s), free(t);
			free(u), free(x), free(m), free(q), free(id), free(c), free(sq);
		}
}

static void test_sets(void **state)
{
	struct set *a = set_new(70), *b = set_new(70), *d = set_new(70);
	struct rel *r = rel_new(70);

	(void)state;
	set_add(a, 1), set_add(a, 68);
	set_add(b, 68);
	set_diff(d, a, b);
	assert_int_equal(set_next(d, 0), 1);
	assert_int_equal(set_next(d, 2), -1);
	rel_cartesian(r, a, b);
	assert_true(rel_has(r, 1, 68) && rel_has(r, 68, 68));
	assert_false(rel_has(r, 68, 1));
	rel_domain(d, r);
	assert_true(set_subset(d, a) && set_subset(a, d));
	set_fill(d);
	assert_true(set_has(d, 69));
	free(a), free(b), free(d), free(r);
}

/* ---- Hand-built executions ---- */

enum { MAXEV = 16 };

struct builder {
	struct execution x;
	struct event ev[MAXEV];
	const char *tags[MAXEV];
};

static const char *loc_names[] = { "x", "y" };

static void start(struct builder *b)
{
	memset(b, 0, sizeof(*b));
	b->x.events = b->ev;
	b->x.nlocs = 2;
	b->x.loc_names = loc_names;
}

/* Add an event; proc -1 makes an initial write.  tag may be NULL. */
static int add(struct builder *b, int proc, enum event_kind kind, int loc,
	       int val, const char *tag)
{
	int i = b->x.nevents++;
	struct event *e = &b->ev[i];

	e->proc = proc;
	e->poi = i;
	e->kind = kind;
	e->loc = loc;
	e->val = (struct value){ false, val };
	e->has_val = kind != EV_FENCE;
	b->tags[i] = tag;
	e->ntags = tag != NULL;
	e->tags = &b->tags[i];
	return i;
}

/* Initial writes of x and y, as events 0 and 1. */
static void start_xy(struct builder *b)
{
	start(b);
	add(b, -1, EV_WRITE, 0, 0, NULL);
	add(b, -1, EV_WRITE, 1, 0, NULL);
}

/* Derive po, IW, empty dependencies; rf and FW come from the test. */
static void finish(struct builder *b)
{
	struct execution *x = &b->x;
	int n = x->nevents;

	x->po = rel_new(n);
	x->rmw = rel_new(n);
	x->addr = rel_new(n);
	x->data = rel_new(n);
	x->ctrl = rel_new(n);
	x->rf = rel_new(n);
	x->iw = set_new(n);
	x->fw = set_new(n);
	for (int a = 0; a < n; a++) {
		if (b->ev[a].proc < 0)
			set_add(x->iw, a);
		for (int c = 0; c < n; c++)
			if (b->ev[a].proc >= 0 && b->ev[a].proc == b->ev[c].proc &&
			    b->ev[a].poi < b->ev[c].poi)
				rel_add(x->po, a, c);
	}
}

static void release(struct builder *b)
{
	free(b->x.po), free(b->x.rmw), free(b->x.addr), free(b->x.data);
	free(b->x.ctrl), free(b->x.rf), free(b->x.iw), free(b->x.fw);
}

struct verdict {
	int accepted, rejected;
	char first_reject[64];
	char flags[256];
};

static void on_accept(void *arg, const struct cat_outcome *out)
{
	struct verdict *v = arg;

	v->accepted++;
	for (int i = 0; i < out->nflags; i++) {
		strcat(v->flags, out->flags[i]);
		strcat(v->flags, " ");
	}
}

static void on_reject(void *arg, const char *check)
{
	struct verdict *v = arg;

	if (!v->rejected++)
		snprintf(v->first_reject, sizeof(v->first_reject), "%s",
			 check ? check : "?");
}

static struct verdict judge(struct cat_eval *ev, struct builder *b)
{
	struct verdict v = { 0 };
	struct cat_visitor visitor = { on_accept, on_reject, &v, NULL, false };

	cat_run(ev, &b->x, &visitor);
	return v;
}

/* The kernel's model; the state of the tests is an evaluation of it. */
static struct cat_model *kernel_model;

static int setup_model(void **state)
{
	kernel_model = load_model(model_dir(), "linux-kernel.cfg", NULL);
	*state = cat_eval_new(kernel_model);
	return 0;
}

static int teardown_model(void **state)
{
	cat_eval_free(*state);
	cat_free(kernel_model);
	return 0;
}

/*
 * MP: P0 writes x then y, P1 reads y=1 then x=0.  The reads and the
 * write of y carry `ytag` (e.g. release/acquire) or are plain "once".
 */
static struct verdict mp(struct cat_eval *ev, const char *wtag,
			 const char *rtag, const char *xtag)
{
	struct builder b;
	struct verdict v;
	int wx, wy, ry, rx;

	start_xy(&b);
	wx = add(&b, 0, EV_WRITE, 0, 1, xtag);
	wy = add(&b, 0, EV_WRITE, 1, 1, wtag);
	ry = add(&b, 1, EV_READ, 1, 1, rtag);
	rx = add(&b, 1, EV_READ, 0, 0, xtag);
	finish(&b);
	rel_add(b.x.rf, wy, ry);
	rel_add(b.x.rf, 0, rx);
	set_add(b.x.fw, wx);
	set_add(b.x.fw, wy);
	v = judge(ev, &b);
	release(&b);
	return v;
}

static void test_mp_allowed(void **state)
{
	struct verdict v = mp(*state, "once", "once", "once");

	assert_int_equal(v.accepted, 1);
	assert_int_equal(v.rejected, 0);
	assert_string_equal(v.flags, "");
}

static void test_mp_release_acquire(void **state)
{
	struct verdict v = mp(*state, "release", "acquire", "once");

	assert_int_equal(v.accepted, 0);
	assert_int_equal(v.rejected, 1);
	assert_string_equal(v.first_reject, "happens-before");
}

static void test_mp_plain_races(void **state)
{
	struct verdict v = mp(*state, "once", "once", NULL);

	assert_int_equal(v.accepted, 1);
	assert_string_equal(v.flags, "data-race ");
}

enum { SB_FENCES = 1, SB_REREAD = 2, SB_FROM_WRITES = 4 };

/*
 * SB: each process writes one location and reads the other's initial 0
 * or, with SB_FROM_WRITES, the other's write; SB_FENCES puts an mb
 * between; with SB_REREAD, P1 then reads x again (what it read first).
 */
static struct verdict sb_shape(struct cat_eval *ev, int how)
{
	struct builder b;
	struct verdict v;
	int wx, wy, rx, ry, rx2 = -1, seen = !!(how & SB_FROM_WRITES);

	start_xy(&b);
	wx = add(&b, 0, EV_WRITE, 0, 1, "once");
	if (how & SB_FENCES)
		add(&b, 0, EV_FENCE, -1, 0, "mb");
	ry = add(&b, 0, EV_READ, 1, seen, "once");
	wy = add(&b, 1, EV_WRITE, 1, 1, "once");
	if (how & SB_FENCES)
		add(&b, 1, EV_FENCE, -1, 0, "mb");
	rx = add(&b, 1, EV_READ, 0, seen, "once");
	if (how & SB_REREAD)
		rx2 = add(&b, 1, EV_READ, 0, seen, "once");
	finish(&b);
	rel_add(b.x.rf, seen ? wy : 1, ry);
	rel_add(b.x.rf, seen ? wx : 0, rx);
	if (how & SB_REREAD)
		rel_add(b.x.rf, seen ? wx : 0, rx2);
	set_add(b.x.fw, wx);
	set_add(b.x.fw, wy);
	v = judge(ev, &b);
	release(&b);
	return v;
}

static struct verdict sb(struct cat_eval *ev, bool fences)
{
	return sb_shape(ev, fences ? SB_FENCES : 0);
}

static void test_sb_allowed(void **state)
{
	struct verdict v = sb(*state, false);

	assert_int_equal(v.accepted, 1);
	assert_int_equal(v.rejected, 0);
}

static void test_sb_mb(void **state)
{
	struct verdict v = sb(*state, true);

	assert_int_equal(v.accepted, 0);
	assert_int_equal(v.rejected, 1);
	assert_string_equal(v.first_reject, "propagation");
}

/* CoRR: reading x=1 then x=0 contradicts coherence before any co. */
static void test_corr(void **state)
{
	struct builder b;
	struct verdict v;
	int w, r1, r2;

	start_xy(&b);
	w = add(&b, 0, EV_WRITE, 0, 1, "once");
	r1 = add(&b, 1, EV_READ, 0, 1, "once");
	r2 = add(&b, 1, EV_READ, 0, 0, "once");
	finish(&b);
	rel_add(b.x.rf, w, r1);
	rel_add(b.x.rf, 0, r2);
	set_add(b.x.fw, w);
	set_add(b.x.fw, 1);
	v = judge(*state, &b);
	release(&b);
	assert_int_equal(v.accepted, 0);
	assert_int_equal(v.rejected, 1);
	assert_string_equal(v.first_reject, "ConsCo");
}

/*
 * One event structure judged twice with different rf: what depends on
 * rf must not be kept from the first run.
 */
static void test_same_structure_new_rf(void **state)
{
	struct builder b;
	struct verdict bad, good;
	int w, r1, r2;

	start_xy(&b);
	w = add(&b, 0, EV_WRITE, 0, 1, "once");
	r1 = add(&b, 1, EV_READ, 0, 1, "once");
	r2 = add(&b, 1, EV_READ, 0, 1, "once");
	finish(&b);
	set_add(b.x.fw, w);
	rel_add(b.x.rf, w, r1);
	rel_add(b.x.rf, 0, r2);
	bad = judge(*state, &b);
	memset(b.x.rf->w, 0, rel_bytes(b.x.nevents) - sizeof(*b.x.rf));
	rel_add(b.x.rf, w, r1);
	rel_add(b.x.rf, w, r2);
	good = judge(*state, &b);
	release(&b);
	assert_int_equal(bad.rejected, 1);
	assert_int_equal(good.accepted, 1);
	assert_int_equal(good.rejected, 0);
}

/* Three writers of x, the third final: the first two in either order. */
static void test_coherence_orders(void **state)
{
	struct builder b;
	struct verdict v;
	int w3;

	start_xy(&b);
	add(&b, 0, EV_WRITE, 0, 1, "once");
	add(&b, 1, EV_WRITE, 0, 2, "once");
	w3 = add(&b, 2, EV_WRITE, 0, 3, "once");
	finish(&b);
	set_add(b.x.fw, w3);
	set_add(b.x.fw, 1);
	v = judge(*state, &b);
	release(&b);
	assert_int_equal(v.accepted, 2);
	assert_int_equal(v.rejected, 0);
}

/* ---- The language, on small models of our own ---- */

static char *model_with(const char *cat);
static void remove_model(char *dir);

/* Judge SB (without fences) under the model text `cat` and variants (or NULL). */
static struct verdict sb_under_variants(const char *cat, const char *variants)
{
	char *dir = model_with(cat);
	struct cat_model *m = load_model(dir, "bad.cfg", variants);
	struct cat_eval *ev = cat_eval_new(m);
	struct verdict v = sb(ev, false);

	cat_eval_free(ev);
	cat_free(m);
	remove_model(dir);
	return v;
}

static struct verdict sb_under(const char *cat)
{
	return sb_under_variants(cat, NULL);
}

static int count_words(const char *text, const char *word)
{
	int n = 0;
	size_t len = strlen(word);

	for (const char *p = strstr(text, word); p; p = strstr(p + len, word))
		n += (p == text || p[-1] == ' ') && p[len] == ' ';
	return n;
}

static void test_functions_and_rec(void **state)
{
	struct verdict v = sb_under(
		"\"functions\"\n"
		"let rec t = po | (t ; po)\n"
		"let inter(a, b) = a & b\n"
		"let union2 a = a | a\n"
		"let inv = fun r -> r^-1\n"
		"let local = let x = rf and y = po in x | y\n"
		"empty t \\ po+ as closure\n"
		"empty inter(po, rf) as tuple\n"
		"empty union2 rf \\ rf as curried\n"
		"empty inv(po) \\ po^-1 as lambda\n"
		"empty local \\ (rf | po) as let-in\n"
		"empty try nosuch with 0 as handler\n"
		"~empty try rf with 0 as try-found\n");

	(void)state;
	assert_int_equal(v.accepted, 1);
	assert_int_equal(v.rejected, 0);
}

static void test_with_and_flags(void **state)
{
	struct verdict v = sb_under(
		"\"choices\"\n"
		"enum E = 'a || 'b\n"
		"flag ~empty rf as has-rf\n"
		"with r from {po, rf, 0}\n"
		"flag ~empty r as nonempty\n"
		"acyclic r | po as no-cycle\n");

	(void)state;
	assert_int_equal(v.accepted, 3);
	assert_int_equal(v.rejected, 0);
	assert_int_equal(count_words(v.flags, "has-rf"), 3);
	assert_int_equal(count_words(v.flags, "nonempty"), 2);
}

static void test_map_and_cross(void **state)
{
	struct verdict v = sb_under(
		"\"map\"\n"
		"let one e = {[{e}]}\n"
		"with r from cross(map one (W \\ IW))\n"
		"empty r \\ [W \\ IW] as inside\n"
		"~irreflexive r as reflexive\n"
		"let pair p = p ++ 0\n"
		"with e from map pair (po & loc | rf)\n"
		"empty e \\ rf as only-rf\n");

	(void)state;
	assert_int_equal(v.accepted, 2);
	assert_int_equal(v.rejected, 0);
}

/*
 * herd7's `if` on variants, as expression and as statements: decided by
 * the variants set (any case), the others unset; the branch not taken
 * is dropped whatever it holds.
 */
static void test_variants(void **state)
{
	static const char cat[] =
		"\"variants\"\n"
		"flag ~empty (if \"lkmmv2\" then rf else 0) as v2\n"
		"flag ~empty (if not \"lkmmv2\" && (\"lkmmv1\" || variant \"x\") then rf else 0)"
		" as v1-or-x\n"
		"if \"x\" flag ~empty rf as x-only\n"
		"else flag ~empty rf as not-x end\n"
		"if \"lkmmv2\" && not \"lkmmv2\" acyclic nosuch as dropped end\n"
		"if \"lkmmv2\" acyclic po | po^-1 as never end\n";
	struct verdict none = sb_under_variants(cat, NULL);
	struct verdict v2 = sb_under_variants(cat, "lkmmv2");
	struct verdict v1x = sb_under_variants(cat, "LKMMv1, x");

	(void)state;
	assert_int_equal(none.accepted, 1);
	assert_int_equal(count_words(none.flags, "v2") + count_words(none.flags, "v1-or-x"), 0);
	assert_true(count_words(none.flags, "not-x") > 0);
	assert_int_equal(v2.accepted, 0);	/* `never` holds in no execution */
	assert_int_equal(v1x.accepted, 1);
	assert_int_equal(count_words(v1x.flags, "v2") + count_words(v1x.flags, "not-x"), 0);
	assert_true(count_words(v1x.flags, "v1-or-x") > 0);
	assert_true(count_words(v1x.flags, "x-only") > 0);
}

/* The level of the last slot named `name`, for the event structure last judged. */
static int level_of(const struct cat_eval *ev, const char *name)
{
	for (int i = ev->m->nslots - 1; i >= 0; i--)
		if (!strcmp(ev->m->slots[i].name, name))
			return ev->slots[i].level;
	fail_msg("no slot %s", name);
	return -1;
}

/*
 * A term empty for the event structure at hand (no fence: [F] ; c) does
 * not tie what reads it to the with, nor does a let rec that is empty;
 * with fences, both vary with the choice again.
 */
static void test_levels_for_structure(void **state)
{
	char *dir = model_with("\"levels\"\n"
			       "with c from {po, rf}\n"
			       "let late = rf | ([F] ; c)\n"
			       "let rec t = ([F] ; c) | (t ; c)\n"
			       "acyclic late | t as checked\n");
	struct cat_model *m = load_model(dir, "bad.cfg", NULL);
	struct cat_eval *ev = cat_eval_new(m);
	struct verdict v;
	int with_level;

	(void)state;
	v = sb(ev, false);
	assert_int_equal(v.accepted, 2);
	with_level = level_of(ev, "c");
	assert_true(with_level > LEVEL_EXECUTION);
	assert_int_equal(level_of(ev, "late"), LEVEL_EXECUTION);
	assert_int_equal(level_of(ev, "t"), LEVEL_STATIC);
	v = sb(ev, true);
	assert_int_equal(v.accepted, 2);
	assert_int_equal(level_of(ev, "late"), with_level);
	assert_int_equal(level_of(ev, "t"), with_level);
	v = sb(ev, false);
	assert_int_equal(v.accepted, 2);
	assert_int_equal(level_of(ev, "late"), LEVEL_EXECUTION);
	/*
	 * Another structure whose static values are as empty as the last
	 * one's keeps the analysis (its reads answer the same); one with
	 * fences does not, even right after.
	 */
	v = sb_shape(ev, SB_REREAD);
	assert_int_equal(v.accepted, 2);
	assert_int_equal(level_of(ev, "late"), LEVEL_EXECUTION);
	assert_int_equal(level_of(ev, "t"), LEVEL_STATIC);
	v = sb_shape(ev, SB_FENCES | SB_REREAD);
	assert_int_equal(v.accepted, 2);
	assert_int_equal(level_of(ev, "late"), with_level);
	assert_int_equal(level_of(ev, "t"), with_level);
	cat_eval_free(ev);
	cat_free(m);
	remove_model(dir);
}

/*
 * Without fences, the closure varies with the execution only, late with
 * the choice too: the closure is kept apart, computed once for both
 * choices, and again for the next execution.  Reading the writes,
 * po | rf^-1 cycles; reading the initial writes, it does not (rf | rf^-1
 * always does).  (Were it not for [F] ; c, the text would show the
 * closure's level, and catresolve.c give it a slot.)
 */
static void test_kept_terms(void **state)
{
	char *dir = model_with("\"kept\"\n"
			       "with c from {po, rf}\n"
			       "let late = c | ((rf | ([F] ; c))^-1)+\n"
			       "acyclic late as checked\n");
	struct cat_model *m = load_model(dir, "bad.cfg", NULL);
	struct cat_eval *ev = cat_eval_new(m);
	struct verdict v;

	(void)state;
	v = sb_shape(ev, 0);
	assert_int_equal(v.accepted, 1);
	assert_int_equal(v.rejected, 1);
	assert_true(ev->nkept >= 1);
	v = sb_shape(ev, SB_FROM_WRITES);
	assert_int_equal(v.accepted, 0);
	assert_int_equal(v.rejected, 2);
	v = sb_shape(ev, 0);
	assert_int_equal(v.accepted, 1);
	cat_eval_free(ev);
	cat_free(m);
	remove_model(dir);
}

static void test_failing_check(void **state)
{
	struct verdict v = sb_under("\"fail\"\nirreflexive po? as opt\n");

	(void)state;
	assert_int_equal(v.accepted, 0);
	assert_int_equal(v.rejected, 1);
	assert_string_equal(v.first_reject, "opt");
}

/* ---- Bad models ---- */

/* Write a model directory whose cat file is `cat`; returns its path. */
static char *model_with(const char *cat)
{
	char *dir = strdup("/tmp/cat_test.XXXXXX");
	char path[256];
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/bad.cfg", dir);
	f = fopen(path, "w");
	fputs("macros bad.def\nmodel bad.cat\ngraph columns\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/bad.cat", dir);
	f = fopen(path, "w");
	fputs(cat, f);
	fclose(f);
	return dir;
}

static void remove_model(char *dir)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/bad.cfg", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/bad.cat", dir);
	unlink(path);
	rmdir(dir);
	free(dir);
}

static void noop_accept(void *arg, const struct cat_outcome *out)
{
	(void)arg, (void)out;
}

static void noop_reject(void *arg, const char *check)
{
	(void)arg, (void)check;
}

/*
 * A child that dies through the model's error exit leaves what it had
 * allocated behind on purpose: LeakSanitizer asks this hook whether to
 * check at exit, and only the parent wants it.
 */
static bool in_dying_child;

int __lsan_is_turned_off(void)
{
	return in_dying_child;
}

/*
 * Load (and run on SB) a model in a child; check it exits with status 2
 * and a first line starting "DIR/bad.cat:LINE:COL: error: MESSAGE".
 */
static void expect_error(const char *cat, const char *where, const char *msg)
{
	char *dir = model_with(cat);
	char buf[512] = "", want[512];
	int fds[2], status;
	size_t len = 0;
	ssize_t got;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		struct cat_visitor v = { noop_accept, noop_reject, NULL, NULL, false };
		struct cat_model *m;
		struct builder b;

		in_dying_child = true;
		dup2(fds[1], 2);
		m = load_model(dir, "bad.cfg", NULL);
		start_xy(&b);
		finish(&b);
		cat_run(cat_eval_new(m), &b.x, &v);
		_exit(0);
	}
	close(fds[1]);
	while ((got = read(fds[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += got;
	close(fds[0]);
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 2);
	snprintf(want, sizeof(want), "%s/bad.cat:%s: error: %s", dir, where, msg);
	buf[strcspn(buf, "\n")] = '\0';
	if (strncmp(buf, want, strlen(want)))
		assert_string_equal(buf, want);
	remove_model(dir);
}

static void test_syntax_error(void **state)
{
	(void)state;
	expect_error("\"t\"\nlet x = (po | rf\n", "3:1",
		     "')' expected, found end of file");
}

static void test_unbound_name(void **state)
{
	(void)state;
	expect_error("\"t\"\n\nlet x = po ; nosuch\n", "3:14",
		     "unbound name 'nosuch'");
}

static void test_unsupported(void **state)
{
	(void)state;
	expect_error("\"t\"\nprocedure p(x) =\n", "2:1",
		     "'procedure' is not supported by this cat interpreter");
}

static void test_if_without_variant(void **state)
{
	(void)state;
	expect_error("\"t\"\nlet a = if po = rf then po else 0\n", "2:12",
		     "a variant condition (\"NAME\", not, &&, ||) expected");
}

static void test_type_error(void **state)
{
	(void)state;
	expect_error("\"t\"\nacyclic po | W as oops\n", "2:12",
		     "operands of different types: relation and event set");
}

static void test_undeclared_tag(void **state)
{
	(void)state;
	expect_error("\"t\"\nenum E = 'a\nlet s = {'a, 'b}\n", "3:14",
		     "tag 'b is not declared by any enum");
}

static void test_missing_include(void **state)
{
	(void)state;
	expect_error("\"t\"\n  include \"nosuch.cat\"\n", "2:3",
		     "cannot read model file");
}

/* One group, so that the TAP output has one plan. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seq_and_inverse),
		cmocka_unit_test(test_closure_and_cycles),
		cmocka_unit_test(test_sets),
		cmocka_unit_test(test_kernels_by_definition),
		cmocka_unit_test(test_mp_allowed),
		cmocka_unit_test(test_mp_release_acquire),
		cmocka_unit_test(test_mp_plain_races),
		cmocka_unit_test(test_sb_allowed),
		cmocka_unit_test(test_sb_mb),
		cmocka_unit_test(test_corr),
		cmocka_unit_test(test_coherence_orders),
		cmocka_unit_test(test_same_structure_new_rf),
		cmocka_unit_test(test_functions_and_rec),
		cmocka_unit_test(test_with_and_flags),
		cmocka_unit_test(test_map_and_cross),
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_levels_for_structure),
		cmocka_unit_test(test_kept_terms),
		cmocka_unit_test(test_failing_check),
		cmocka_unit_test(test_syntax_error),
		cmocka_unit_test(test_unbound_name),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_if_without_variant),
		cmocka_unit_test(test_type_error),
		cmocka_unit_test(test_undeclared_tag),
		cmocka_unit_test(test_missing_include),
	};

	return cmocka_run_group_tests_name("cat", tests, setup_model,
					   teardown_model);
}
