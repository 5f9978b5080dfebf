/*
 * enumerate.c - candidate executions: one run of every process, a write
 * for every read to read from (of the same location and value), and a
 * final write for every location; the cat model judges each one, and the
 * accepted ones are tallied by final state.
 *
 * Coherence orders are not enumerated here: the model generates them
 * itself (lock.cat includes cos-opt.cat's "with co from ...").
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search.h"

/* (location, value) pairs by id, found through a table of size slots (a power of 2). */
struct value_pairs {
	int n, size;
	int *loc;
	struct value *val;
	int *slots;		/* 1 + an id, or 0 */
};

/*
 * The final states seen so far, found by hash: a test with n states
 * (2^16 for 16 independent reads) would spend n^2 comparisons in a
 * linear search.  slots[] holds a state's index + 1, 0 when free.
 */
struct state_index {
	int *slots;
	size_t size;		/* a power of two, at least twice nstates */
	int cap;		/* room in o->states */
	signed char *cond;	/* by state: whether the condition holds there, -1 not known */
};

/*
 * One search split among threads (enumerate() given several):
 * the combinations of runs of the first `depth` processes are the jobs,
 * taken in turn; the limits count for the whole search.
 */
struct shared_search {
	int depth;
	long njobs;
	atomic_long next_job;
	atomic_long candidates;
	atomic_bool stop;		/* a limit or an error ended the search */
};

/*
 * Twin processes have the same runs: the same code, the same registers.
 * An execution and the one where two twins swap runs differ only in
 * which process is which, which nothing a model reads can tell (po, rf,
 * int, ext... relate events, not processes), so they get one verdict;
 * their final states differ only in whose registers are whose.  So the
 * runs of twins are picked in order (a process's run is never before its
 * previous twin's), and an accepted execution counts once for every
 * distinct arrangement of its twins' runs, each process showing the
 * registers of the twin whose run it takes: the counts are herd7's,
 * which builds all of them.  Not where the search keeps its order, nor
 * with a filter (it may reject a combination but not its arrangement).
 */
struct twins {
	int nclasses;		/* classes of two or more twins */
	int *len;		/* each class's size */
	int *procs;		/* their processes, class after class, in order */
	int *prev;		/* per process: its previous twin, -1 for none */
	bool *used;		/* scratch of arrange() */
};

struct enumeration {
	const struct program *prog;
	struct cat_eval *eval;		/* the model's evaluation, this thread's */
	const struct check_options *opts;
	struct outcomes *out;
	struct timespec start;
	struct arena arena;	/* the arrays sized at the search's start, freed at its end */

	int *pick;		/* run of each process in this combination */
	int *base;		/* first event id of each process */
	struct execution x;
	/*
	 * shape[p][t]: the first run of process p with run t's events but for
	 * their values (the event structure is the same: shape_runs());
	 * built[p], that of the run x's structure was built with.
	 */
	int **shape, *built;
	struct value *final;	/* final value of each location */
	int *fw;		/* final write of each location, -1 for none */
	bool *observed;		/* locations the final condition looks at */

	/* Reads-from choices: for each read, the writes it may read from. */
	int nreads;
	int *reads;
	int *read_of;		/* event -> its index in reads, -1 if no read */
	int *ncands;
	int **cands;		/* rows of cand_store, nevents ints each */
	int *cand_store;
	bool *known;		/* scratch of values_derivable() */
	int *rf_pick;
	long *leaves_from;	/* [k]: the ways the reads from k on may read, up to LEAVES_MAX */
	int *first_write;	/* per location: its first write, -1 if none */
	int *next_write;	/* per write: the next of its location, -1 if none */

	struct value *state;	/* scratch: the state of one execution */
	struct state_index states;	/* out->states by value */

	/*
	 * For pruning combinations early: every (location, value) a run reads
	 * or writes gets an id; need[p][t] is what run t of process p reads
	 * (bar initial values), give[p][t] what it writes, later_give[p] what
	 * some run of a process >= p writes.  Bit sets of `words` words.
	 */
	int words;
	uint64_t ***need, ***give;
	uint64_t **later_give;
	/*
	 * From words * p on, gave and needed hold what the runs picked for
	 * processes < p write and read.
	 */
	uint64_t *gave, *needed;
	/* givers[p]: per pair id, the runs of p that write it (ntraces / 64 + 1 words) */
	uint64_t **givers;
	/* needy[p]: the same, the runs of p that read it and do not write it; needs[p]: what they read */
	uint64_t **needy, **needs;
	uint64_t **fit_runs;	/* fit_runs[p]: the runs of p that may fit now (lone_runs()) */
	bool stop;		/* -speedcheck fast decided the condition */
	/*
	 * Whether to judge partial executions (cat_partial_fails()), which
	 * needs the final writes chosen before reads-from: the model's
	 * checks may read FW in any way, but only rf grows in the search.
	 */
	bool prune;
	struct twins twins;
	int *src;		/* per process: the twin whose registers it shows */
	int npicked;		/* processes whose run is picked */
	int nfixed;		/* locations whose final value is chosen */
	struct shared_search *shared;	/* NULL when the search is not split */
};

static double elapsed(const struct enumeration *en)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - en->start.tv_sec) + (now.tv_nsec - en->start.tv_nsec) / 1e9;
}

/*
 * False, with the search stopped and the reason in out->limit, once a
 * limit is reached: the search unwinds and frees what it holds, so the
 * caller can go on with the next test.
 */
static bool within_limits(struct enumeration *en)
{
	const struct check_options *o = en->opts;
	struct strbuf why = { 0 };
	long candidates = ++en->out->candidates;

	if (en->shared) {
		candidates = atomic_fetch_add(&en->shared->candidates, 1) + 1;
		if (atomic_load(&en->shared->stop)) {
			en->stop = true;
			return false;
		}
	}
	if (candidates > o->max_executions)
		sb_addf(&why, "%s: more than %ld candidate executions (raise -max-executions)",
			en->prog->test->file, o->max_executions);
	else if (o->timeout && (en->out->candidates & 255) == 0 && elapsed(en) > o->timeout)
		sb_addf(&why, "%s: no verdict within %ld seconds (raise -timeout)",
			en->prog->test->file, o->timeout);
	if (!why.buf)
		return true;
	en->out->limit = why.buf;
	en->stop = true;
	if (en->shared)
		atomic_store(&en->shared->stop, true);
	return false;
}

static const struct trace *picked(const struct enumeration *en, int proc)
{
	return &en->prog->procs[proc].traces[en->pick[proc]];
}

/* Lay out the events of the picked runs: initial writes first. */
static void layout_events(struct enumeration *en)
{
	const struct program *p = en->prog;
	struct execution *x = &en->x;
	int i, j, n = p->nlocs;

	for (i = 0; i < p->nprocs; i++) {
		en->base[i] = n;
		n += picked(en, i)->nevents;
	}
	x->nevents = n;
	for (i = 0; i < p->nlocs; i++) {
		struct event *e = &x->events[i];

		memset(e, 0, sizeof(*e));
		e->proc = -1;
		e->kind = EV_WRITE;
		e->loc = i;
		e->val = p->loc_init[i];
		e->has_val = true;
	}
	for (i = 0; i < p->nprocs; i++) {
		const struct trace *tr = picked(en, i);

		for (j = 0; j < tr->nevents; j++) {
			const struct trace_event *te = &tr->events[j];
			struct event *e = &x->events[en->base[i] + j];

			e->proc = i;
			e->poi = j;
			e->kind = te->kind;
			e->atomic = te->atomic;
			e->ntags = te->ntags;
			e->tags = te->tags;
			e->loc = te->loc;
			e->val = te->val;
			e->has_val = te->has_val;
			e->line = te->pos.line;
		}
	}
}

static void add_deps(struct rel *r, int base, uint64_t deps, int to)
{
	while (deps) {
		int i = __builtin_ctzll(deps);

		rel_add(r, base + i, to);
		deps &= deps - 1;
	}
}

/* Identities of the event structures built, for struct execution's structure. */
static atomic_ulong structures;

/*
 * Whether the picked runs make the structure x was built for last: each
 * of the shape of the run then picked.  T16's 65,536 combinations are
 * all of one structure, which cateval.c then compared event by event
 * (tags by name) with the last one: 4% of each combination.
 */
static bool same_structure(struct enumeration *en)
{
	bool same = en->x.structure != 0;

	for (int i = 0; i < en->prog->nprocs; i++) {
		int shape = en->shape[i][en->pick[i]];

		same &= shape == en->built[i];
		en->built[i] = shape;
	}
	return same;
}

/* The relations fixed by the picked runs: po, rmw and dependencies. */
static void build_static_relations(struct enumeration *en)
{
	const struct program *p = en->prog;
	struct execution *x = &en->x;
	int i, j, k, n = x->nevents;

	rel_init(x->rf, n);	/* filled in for each reads-from choice */
	if (same_structure(en))
		return;
	rel_init(x->po, n);
	rel_init(x->rmw, n);
	rel_init(x->addr, n);
	rel_init(x->data, n);
	rel_init(x->ctrl, n);
	set_init(x->iw, n);
	for (i = 0; i < p->nlocs; i++)
		set_add(x->iw, i);
	for (i = 0; i < p->nprocs; i++) {
		const struct trace *tr = picked(en, i);
		int b = en->base[i];

		for (j = 0; j < tr->nevents; j++) {
			const struct trace_event *te = &tr->events[j];

			for (k = j + 1; k < tr->nevents; k++)
				rel_add(x->po, b + j, b + k);
			if (te->rmw_read >= 0)
				rel_add(x->rmw, b + te->rmw_read, b + j);
			add_deps(x->addr, b, te->addr_deps, b + j);
			add_deps(x->data, b, te->data_deps, b + j);
			add_deps(x->ctrl, b, te->ctrl_deps, b + j);
		}
	}
	x->structure = atomic_fetch_add(&structures, 1) + 1;
}

/*
 * Partial judgements cut about two in five of what they judge, at about
 * the price of a verdict each: where a combination's reads may read in
 * fewer than PARTIAL_MIN ways, the executions cost less than the cuts.
 */
enum { PARTIAL_MIN = 64, LEAVES_MAX = 1 << 20 };

/*
 * For every read, the writes of the same location and value.  The
 * buffers, sized for the largest combination (size_combinations()),
 * serve every combination of runs.
 */
static bool collect_rf_candidates(struct enumeration *en)
{
	struct execution *x = &en->x;
	int n = x->nevents, i, j;

	en->nreads = 0;
	/* The writes of each location, in order, chained: first_write, next_write. */
	for (i = 0; i < x->nlocs; i++)
		en->first_write[i] = -1;
	for (i = n - 1; i >= 0; i--)
		if (x->events[i].kind == EV_WRITE && x->events[i].loc >= 0) {
			en->next_write[i] = en->first_write[x->events[i].loc];
			en->first_write[x->events[i].loc] = i;
		}
	for (i = 0; i < n; i++) {
		const struct event *r = &x->events[i];
		int k = en->nreads;

		en->read_of[i] = -1;
		if (r->kind != EV_READ)
			continue;
		en->read_of[i] = k;
		en->reads[k] = i;
		en->ncands[k] = 0;
		en->cands[k] = en->cand_store + (size_t)k * n;
		for (j = r->loc >= 0 ? en->first_write[r->loc] : -1; j >= 0; j = en->next_write[j])
			if (value_eq(x->events[j].val, r->val))
				en->cands[k][en->ncands[k]++] = j;
		en->nreads++;
		if (!en->ncands[k])
			return false;
	}
	en->leaves_from[en->nreads] = 1;
	for (i = en->nreads - 1; i >= 0; i--)
		en->leaves_from[i] = en->ncands[i] * en->leaves_from[i + 1] < LEAVES_MAX ?
				     en->ncands[i] * en->leaves_from[i + 1] : LEAVES_MAX;
	return true;
}

static int find_flag(const struct outcomes *o, const char *flag)
{
	int i;

	for (i = 0; i < o->nflags; i++)
		if (!strcmp(o->flags[i], flag))
			return i;
	return -1;
}

/* Note that some counted execution raised flag, once. */
static void add_flag(struct outcomes *o, const char *flag)
{
	if (find_flag(o, flag) >= 0)
		return;
	o->flags = xrealloc(o->flags, (o->nflags + 1) * sizeof(*o->flags));
	o->flags[o->nflags++] = xstrdup(flag);
}

static size_t state_hash(const struct value *vals, int nvars)
{
	uint64_t h = 14695981039346656037u;	/* FNV-1a over the values */

	for (int v = 0; v < nvars; v++) {
		h = (h ^ (uint64_t)vals[v].n) * 1099511628211u;
		h = (h ^ vals[v].is_addr) * 1099511628211u;
	}
	return (size_t)(h ^ h >> 29);
}

/* The slot holding vals, or the free slot where it belongs. */
static size_t state_slot(const struct state_index *ix, const struct outcomes *o,
			 const struct value *vals)
{
	size_t i = state_hash(vals, o->nvars) & (ix->size - 1);

	while (ix->slots[i] && !values_eq(o->states[ix->slots[i] - 1].vals, vals, o->nvars))
		i = (i + 1) & (ix->size - 1);
	return i;
}

static void grow_index(struct state_index *ix, const struct outcomes *o)
{
	free(ix->slots);
	ix->size = ix->size ? ix->size * 2 : 64;
	ix->slots = xcalloc(ix->size, sizeof(*ix->slots));
	for (int k = 0; k < o->nstates; k++)
		ix->slots[state_slot(ix, o, o->states[k].vals)] = k + 1;
}

/* The index of the state vals, or -1 if not seen yet. */
static int find_state(const struct state_index *ix, const struct outcomes *o,
		      const struct value *vals)
{
	return ix->size ? ix->slots[state_slot(ix, o, vals)] - 1 : -1;
}

/* Count state k count times more, cond (or -1) the condition's truth there. */
static void count_state(struct state_index *ix, struct outcomes *o, int k, long count, int cond)
{
	o->states[k].count += count;
	if (ix->cond[k] < 0)
		ix->cond[k] = cond;
}

/* Count vals count times, cond (or -1) the condition's truth there. */
static void record_state(struct state_index *ix, struct outcomes *o, const struct value *vals,
			 long count, int cond)
{
	size_t i;
	int cap = ix->cap;

	if ((size_t)o->nstates * 2 >= ix->size)
		grow_index(ix, o);
	i = state_slot(ix, o, vals);
	if (ix->slots[i]) {
		count_state(ix, o, ix->slots[i] - 1, count, cond);
		return;
	}
	o->states = grow_array(o->states, o->nstates, &ix->cap, sizeof(*o->states));
	if (ix->cap != cap)
		ix->cond = xrealloc(ix->cond, ix->cap);
	ix->cond[o->nstates] = cond;
	o->states[o->nstates].vals = xmalloc((o->nvars ? o->nvars : 1) * sizeof(*vals));
	memcpy(o->states[o->nstates].vals, vals, o->nvars * sizeof(*vals));
	o->states[o->nstates++].count = count;
	ix->slots[i] = o->nstates;
}

/* A value of the final state: N:reg from its run, a location from FW. */
static struct value final_value(const struct enumeration *en, int proc, int index)
{
	if (proc >= 0)
		return picked(en, en->src[proc])->regs[index];
	return en->final[index];
}

/* A value of the condition, as the final state holds it (unwrapped). */
static struct value execution_value(const void *ctx, const struct cond_loc *l)
{
	const struct enumeration *en = ctx;

	if (l->proc >= 0)
		return final_value(en, l->proc, program_reg(en->prog, l->proc, l->name));
	return final_value(en, -1, program_loc(en->prog, l->name));
}

/* A location's value as its type holds it (struct value_width). */
static struct value cond_value(const struct program *p, const struct cond_loc *l,
			       cond_lookup lookup, const void *ctx)
{
	struct value v = lookup(ctx, l);

	return l->proc >= 0 ? v : value_at_loc(p, program_loc(p, l->name), v);
}

bool prop_holds(const struct program *p, const struct prop *pr, cond_lookup lookup,
		const void *ctx)
{
	struct value v, w;

	switch (pr->kind) {
	case P_TRUE:
		return true;
	case P_FALSE:
		return false;
	case P_NOT:
		return !prop_holds(p, pr->left, lookup, ctx);
	case P_AND:
		return prop_holds(p, pr->left, lookup, ctx) && prop_holds(p, pr->right, lookup, ctx);
	case P_OR:
		return prop_holds(p, pr->left, lookup, ctx) || prop_holds(p, pr->right, lookup, ctx);
	case P_ATOM:
		break;
	}
	v = cond_value(p, &pr->loc, lookup, ctx);
	if (pr->rhs_is_loc)
		w = cond_value(p, &pr->rhs_loc, lookup, ctx);
	else if (pr->value.is_addr)
		w = (struct value){ true, program_loc(p, pr->value.addr_of) };
	else if (pr->loc.proc < 0)
		w = value_at_loc(p, program_loc(p, pr->loc.name), (struct value){ false, pr->value.n });
	else
		w = (struct value){ false, pr->value.n };
	return value_eq(v, w);
}

/* A value of a final state, ctx { outcomes, its values }, for prop_holds(). */
static struct value state_value(const void *ctx, const struct cond_loc *l)
{
	const struct outcomes *o = ((const void *const *)ctx)[0];
	const struct value *vals = ((const void *const *)ctx)[1];
	int i;

	for (i = 0; i < o->nvars; i++)
		if (o->vars[i].proc == l->proc && !strcmp(o->vars[i].name, l->name))
			return vals[i];
	return (struct value){ false, 0 };
}

bool state_holds(const struct program *p, const struct prop *pr, const struct outcomes *o,
		 const struct value *vals)
{
	const void *ctx[2] = { o, vals };

	return prop_holds(p, pr, state_value, ctx);
}

static bool holds(const struct enumeration *en, const struct prop *pr)
{
	return prop_holds(en->prog, pr, execution_value, en);
}

/* Whether an execution settles the condition, for -speedcheck. */
static bool decides(const struct litmus *t, bool cond)
{
	return t->quantifier == Q_FORALL ? !cond : cond;
}

static struct rel *rel_dup(const struct rel *r)
{
	struct rel *copy;

	if (!r)
		return NULL;
	copy = rel_new(r->n);
	rel_copy(copy, r);
	return copy;
}

/* A condition's truth when part of the final state is not chosen yet. */
enum truth { FALSE3, TRUE3, UNKNOWN3 };

static bool loc_known(const struct enumeration *en, const struct cond_loc *l)
{
	if (l->proc >= 0)
		return l->proc < en->npicked;
	return program_loc(en->prog, l->name) < en->nfixed;
}

static enum truth holds3(const struct enumeration *en, const struct prop *pr)
{
	enum truth a, b;

	switch (pr->kind) {
	case P_NOT:
		a = holds3(en, pr->left);
		return a == UNKNOWN3 ? a : a == FALSE3 ? TRUE3 : FALSE3;
	case P_AND:
	case P_OR:
		a = holds3(en, pr->left);
		b = holds3(en, pr->right);
		if (pr->kind == P_AND && (a == FALSE3 || b == FALSE3))
			return FALSE3;
		if (pr->kind == P_OR && (a == TRUE3 || b == TRUE3))
			return TRUE3;
		return a == UNKNOWN3 || b == UNKNOWN3 ? UNKNOWN3 : a;
	case P_ATOM:
		if (!loc_known(en, &pr->loc) || (pr->rhs_is_loc && !loc_known(en, &pr->rhs_loc)))
			return UNKNOWN3;
		break;
	default:
		break;
	}
	return holds(en, pr) ? TRUE3 : FALSE3;
}

/*
 * Whether the executions ending in the final state chosen so far (the
 * registers of the first npicked processes' runs, the first nfixed
 * locations' final values) can change the output: only those that pass the filter are counted, and
 * with -speedcheck only one that decides the condition (or, with
 * --explain, a rejected one where it holds).  The others need no model:
 * judging them would change nothing, so the search skips them whole.
 */
static bool may_matter(struct enumeration *en, int npicked, int nfixed)
{
	const struct litmus *t = en->prog->test;
	enum truth cond;

	en->npicked = npicked;
	en->nfixed = nfixed;
	if (t->filter && holds3(en, t->filter) == FALSE3)
		return false;
	if (en->opts->speedcheck == SPEEDCHECK_FALSE)
		return true;
	cond = holds3(en, t->cond);
	if (cond == UNKNOWN3 || (en->opts->keep_executions && cond == TRUE3))
		return true;
	return decides(t, cond == TRUE3);
}

/*
 * The execution at hand, kept for --explain and --graph; for a rejected
 * one, the failed check and its cycle (or, for an `empty` check, one pair
 * of its relation), derived step by step from the model's definitions.
 */
static struct snapshot *take_snapshot(const struct enumeration *en, const char *check)
{
	const struct execution *x = &en->x;
	struct snapshot *s = xcalloc(1, sizeof(*s));
	int cycle[64], n, a, b, i, max = 512;

	s->nevents = x->nevents;
	s->events = xmalloc((x->nevents + 1) * sizeof(*s->events));
	memcpy(s->events, x->events, x->nevents * sizeof(*s->events));
	s->po = rel_dup(x->po);
	s->rf = rel_dup(x->rf);
	s->addr = rel_dup(x->addr);
	s->data = rel_dup(x->data);
	s->ctrl = rel_dup(x->ctrl);
	s->rmw = rel_dup(x->rmw);
	s->co = rel_dup(cat_relation(en->eval, "co"));
	if (!check)
		return s;
	s->check = xstrdup(check);
	s->steps = xmalloc(max * sizeof(*s->steps));
	n = cat_failed_cycle(en->eval, cycle, 64);
	if (!n && cat_failed_pair(en->eval, &a, &b)) {
		s->pair = true;
		cycle[0] = a;
		cycle[1] = b;
		n = 2;
	}
	for (i = 0; i < n - s->pair; i++) {
		int k = cat_derive_failed(en->eval, cycle[i], cycle[(i + 1) % n],
					  s->steps + s->nsteps, max - s->nsteps);

		if (k < 0) {
			s->nsteps = 0;	/* too long to tell */
			break;
		}
		s->nsteps += k;
	}
	return s;
}

void snapshot_free(struct snapshot *s)
{
	if (!s)
		return;
	free(s->events);
	free(s->po);
	free(s->rf);
	free(s->addr);
	free(s->data);
	free(s->ctrl);
	free(s->rmw);
	free(s->co);
	free(s->check);
	free(s->steps);
	free(s);
}

/*
 * Whether the condition holds in the state at hand (en->state), state k
 * (or -1, not seen yet).  It reads only the state's variables, so it is
 * worked out once a state, not once an execution (ManfredSpraul-L1G2xchg:
 * 447 states, 6.8 million executions counted).
 */
static bool condition_holds(struct enumeration *en, int k)
{
	if (k >= 0 && en->states.cond[k] >= 0)
		return en->states.cond[k];
	return holds(en, en->prog->test->cond);
}

/* Count the execution at hand, its registers as en->src says. */
static void count_execution(struct enumeration *en, const struct cat_outcome *co)
{
	struct outcomes *o = en->out;
	const struct litmus *t = en->prog->test;
	bool cond;
	int i, k;

	if (t->filter && !holds(en, t->filter))
		return;
	for (i = 0; i < o->nvars; i++)
		en->state[i] = final_value(en, o->vars[i].proc, o->vars[i].index);
	k = find_state(&en->states, o, en->state);
	cond = condition_holds(en, k);
	/*
	 * With -speedcheck, herd7 keeps only the execution that decides the
	 * condition, and stops there.
	 */
	if (en->opts->speedcheck != SPEEDCHECK_FALSE) {
		if (!decides(t, cond))
			return;
		en->stop = true;
	}
	if (k >= 0)
		count_state(&en->states, o, k, 1, cond);
	else
		record_state(&en->states, o, en->state, 1, cond);
	if (cond && en->opts->keep_executions && !o->witness)
		o->witness = take_snapshot(en, NULL);
	if (cond)
		o->positive++;
	else
		o->negative++;
	for (i = 0; i < co->nflags; i++)
		add_flag(o, co->flags[i]);
}

/*
 * Count the execution at hand once for each distinct arrangement of the
 * runs of class cls (its processes from twins.procs[at]) on, from
 * position pos of that class.  A class's runs are in order, so twins with
 * the same run are neighbours: of those, only the first one not placed
 * yet is tried, and each arrangement comes once.
 */
static void arrange(struct enumeration *en, const struct cat_outcome *co, int cls, int at,
		    int pos)
{
	struct twins *tw = &en->twins;
	int len, i;

	if (cls == tw->nclasses) {
		count_execution(en, co);
		return;
	}
	len = tw->len[cls];
	if (pos == len) {
		arrange(en, co, cls + 1, at + len, 0);
		return;
	}
	for (i = 0; i < len; i++) {
		int from = tw->procs[at + i];

		if (tw->used[at + i] || (i > 0 && !tw->used[at + i - 1] &&
					 en->pick[from] == en->pick[tw->procs[at + i - 1]]))
			continue;
		tw->used[at + i] = true;
		en->src[tw->procs[at + pos]] = from;
		arrange(en, co, cls, at, pos + 1);
		tw->used[at + i] = false;
	}
	en->src[tw->procs[at + pos]] = tw->procs[at + pos];
}

static void accept_execution(void *arg, const struct cat_outcome *co)
{
	struct enumeration *en = arg;

	en->out->verdicts++;
	arrange(en, co, 0, 0, 0);
}

/* A flag some counted execution raised already need not be evaluated. */
static bool wants_flag(void *arg, const char *flag)
{
	const struct enumeration *en = arg;

	return find_flag(en->out, flag) < 0;
}

static bool same_steps(const struct snapshot *a, const struct snapshot *b)
{
	int i;

	if (strcmp(a->check, b->check) || a->nsteps != b->nsteps)
		return false;
	for (i = 0; i < a->nsteps; i++) {
		const struct cat_step *x = &a->steps[i], *y = &b->steps[i];

		if (x->from != y->from || x->to != y->to || x->filter != y->filter ||
		    x->inverse != y->inverse || strcmp(x->base, y->base))
			return false;
	}
	return true;
}

/*
 * The rejected candidate at hand, if its check and cycle are new: the
 * reader sees each way the outcome dies, once.  Past the limits, none is
 * derived: deriving costs more than judging.
 */
static void keep_counterexample(struct enumeration *en, const char *check)
{
	struct outcomes *o = en->out;
	struct snapshot *s;
	long tried = 0;
	int i;

	for (i = 0; i < o->ncounterexamples; i++)
		tried += o->counterexample_counts[i];
	if (o->ncounterexamples == MAX_COUNTEREXAMPLES || tried == MAX_COUNTEREXAMPLES_TRIED)
		return;
	s = take_snapshot(en, check);
	for (i = 0; i < o->ncounterexamples; i++) {
		if (same_steps(o->counterexamples[i], s)) {
			o->counterexample_counts[i]++;
			snapshot_free(s);
			return;
		}
	}
	o->counterexamples[o->ncounterexamples] = s;
	o->counterexample_counts[o->ncounterexamples++] = 1;
}

/* Tally why executions ending in a state the condition asks about died. */
static void reject_execution(void *arg, const char *check)
{
	struct enumeration *en = arg;
	struct outcomes *o = en->out;
	const struct litmus *t = en->prog->test;
	const char *name = check ? check : "(unnamed check)";
	int i;

	o->verdicts++;
	if (!en->opts->keep_executions || (t->filter && !holds(en, t->filter)) || !holds(en, t->cond))
		return;
	keep_counterexample(en, name);
	for (i = 0; i < o->nreasons; i++) {
		if (!strcmp(o->reasons[i], name)) {
			o->reason_counts[i]++;
			return;
		}
	}
	o->reasons = xrealloc(o->reasons, (o->nreasons + 1) * sizeof(*o->reasons));
	o->reason_counts = xrealloc(o->reason_counts,
				    (o->nreasons + 1) * sizeof(*o->reason_counts));
	o->reasons[o->nreasons] = xstrdup(name);
	o->reason_counts[o->nreasons++] = 1;
}

/* Whether every read in mask (local to process proc) is known. */
static bool all_known(const struct enumeration *en, const bool *known, int proc, uint64_t mask)
{
	while (mask) {
		if (!known[en->base[proc] + __builtin_ctzll(mask)])
			return false;
		mask &= mask - 1;
	}
	return true;
}

/*
 * herd7 computes values by solving equations along reads-from: a value
 * that only a cycle of reads-from and dependencies could produce (out of
 * thin air) has no solution and stays symbolic.  Propagate "known" from
 * the constants and initial values the same way: a read that is not
 * known must be the symbolic value, which stands for all of them.  A read
 * the code equates with a computed value (a successful cmpxchg()'s, with
 * the expected value) is known once that value is: herd7's equation
 * solves it, and with it the cycle it reads from.  Equalities solve both
 * ways: the write a known read reads from is known, and so is the read
 * a known write copies as it is (copy_of).
 */
static bool known_backwards(struct enumeration *en, bool *known)
{
	bool changed = false;
	int i, j, k;

	for (k = 0; k < en->nreads; k++) {
		int w = en->cands[k][en->rf_pick[k]];

		if (known[en->reads[k]] && !known[w])
			known[w] = changed = true;
	}
	for (i = 0; i < en->prog->nprocs; i++) {
		const struct trace *tr = picked(en, i);

		for (j = 0; j < tr->nevents; j++) {
			int copied = tr->events[j].copy_of;

			if (copied >= 0 && known[en->base[i] + j] && !known[en->base[i] + copied])
				known[en->base[i] + copied] = changed = true;
		}
	}
	return changed;
}

static bool values_derivable(struct enumeration *en)
{
	const struct program *p = en->prog;
	const struct execution *x = &en->x;
	bool *known = en->known;
	bool changed = true, all = true;
	int i, j, k, nknown = p->nlocs;	/* at most how many are known */

	memset(known, 0, x->nevents * sizeof(*known));
	for (i = 0; i < p->nlocs; i++)
		known[i] = true;
	/* Every value known, no round can change anything: the one that would show it is not run. */
	while (changed && nknown < x->nevents) {
		changed = false;
		for (i = 0; i < p->nprocs; i++) {
			const struct trace *tr = picked(en, i);

			for (j = 0; j < tr->nevents; j++) {
				const struct trace_event *te = &tr->events[j];
				int e = en->base[i] + j;

				if (known[e] || !all_known(en, known, i, te->addr_deps | te->data_deps))
					continue;
				k = en->read_of[e];
				if (k >= 0 && !known[en->cands[k][en->rf_pick[k]]] &&
				    !(te->pinned && all_known(en, known, i, te->pin_deps)))
					continue;
				known[e] = true;
				changed = true;
				nknown++;
			}
		}
		if (nknown < x->nevents)
			changed |= known_backwards(en, known);
	}
	for (k = 0; k < en->nreads; k++)
		all = all && (known[en->reads[k]] ||
			      value_is_symbolic(x->events[en->reads[k]].val));
	return all;
}

static void judge(struct enumeration *en)
{
	const struct cat_visitor visitor = { accept_execution, reject_execution, en, wants_flag,
					     en->prune };
	struct execution *x = &en->x;
	int k;

	if (!within_limits(en) || !values_derivable(en))
		return;
	rel_init(x->rf, x->nevents);
	for (k = 0; k < en->nreads; k++)
		rel_add(x->rf, en->cands[k][en->rf_pick[k]], en->reads[k]);
	cat_run(en->eval, x, &visitor);
}

static void each_rf(struct enumeration *en, int k);

/* Every choice of final write per location (none when only IW). */
static void each_final_write(struct enumeration *en, int loc)
{
	const struct program *p = en->prog;
	struct execution *x = &en->x;
	bool any = false;
	int i;

	if (en->stop)
		return;
	if (!may_matter(en, p->nprocs, loc))
		return;
	if (loc == p->nlocs) {
		set_init(x->fw, x->nevents);
		for (i = 0; i < p->nlocs; i++)
			if (en->fw[i] >= 0)
				set_add(x->fw, en->fw[i]);
		if (en->prune)
			each_rf(en, 0);
		else
			judge(en);
		return;
	}
	/*
	 * herd7 picks a final write only for the locations the test observes
	 * (condition, filter, "locations"); FW is empty elsewhere.
	 */
	if (!en->observed[loc]) {
		en->fw[loc] = -1;
		en->final[loc] = p->loc_init[loc];
		each_final_write(en, loc + 1);
		return;
	}
	for (i = p->nlocs; i < x->nevents && !en->stop; i++) {
		const struct event *w = &x->events[i];

		if (w->kind != EV_WRITE || w->loc != loc)
			continue;
		any = true;
		en->fw[loc] = i;
		en->final[loc] = w->val;
		each_final_write(en, loc + 1);
	}
	if (!any) {
		en->fw[loc] = -1;
		en->final[loc] = p->loc_init[loc];
		each_final_write(en, loc + 1);
	}
}

/*
 * Whether the reads before k, as they read now, already fail a check of
 * the model that more reads-from edges cannot mend.
 */
static bool partial_fails(struct enumeration *en, int k)
{
	struct execution *x = &en->x;

	/*
	 * Only after a read that had a choice, and with choices left below:
	 * a forced read adds nothing the next choice or judge() would not see.
	 */
	if (!en->prune || k == 0 || en->ncands[k - 1] == 1 || en->leaves_from[k] == 1 ||
	    en->leaves_from[0] < PARTIAL_MIN)
		return false;
	rel_init(x->rf, x->nevents);
	for (int i = 0; i < k; i++)
		rel_add(x->rf, en->cands[i][en->rf_pick[i]], en->reads[i]);
	return cat_partial_fails(en->eval, x);
}

static void each_rf(struct enumeration *en, int k)
{
	if (en->stop || partial_fails(en, k))
		return;
	if (k == en->nreads) {
		if (en->prune)
			judge(en);
		else
			each_final_write(en, 0);
		return;
	}
	for (en->rf_pick[k] = 0; en->rf_pick[k] < en->ncands[k] && !en->stop; en->rf_pick[k]++)
		each_rf(en, k + 1);
}

/* Where the pair is in the table, or where it goes. */
static int *pair_slot(struct value_pairs *vp, int loc, struct value v)
{
	uint64_t h = ((uint64_t)v.n * 2 + v.is_addr) * UINT64_C(0x9E3779B97F4A7C15) + (uint64_t)loc;
	int i = (int)((h ^ h >> 32) & (uint64_t)(vp->size - 1));

	while (vp->slots[i] && (vp->loc[vp->slots[i] - 1] != loc ||
				!value_eq(vp->val[vp->slots[i] - 1], v)))
		i = (i + 1) & (vp->size - 1);
	return &vp->slots[i];
}

/* The id of a (location, value) pair, interning it on first sight. */
static int pair_id(struct value_pairs *vp, int loc, struct value v)
{
	int *slot;

	if (2 * (vp->n + 1) > vp->size) {
		free(vp->slots);
		vp->size = vp->size ? 2 * vp->size : 64;
		vp->slots = xcalloc(vp->size, sizeof(*vp->slots));
		vp->loc = xrealloc(vp->loc, vp->size * sizeof(*vp->loc));
		vp->val = xrealloc(vp->val, vp->size * sizeof(*vp->val));
		for (int i = 0; i < vp->n; i++)
			*pair_slot(vp, vp->loc[i], vp->val[i]) = i + 1;
	}
	slot = pair_slot(vp, loc, v);
	if (!*slot) {
		vp->loc[vp->n] = loc;
		vp->val[vp->n] = v;
		*slot = ++vp->n;
	}
	return *slot - 1;
}

/*
 * A zeroed array of n items for the whole search: some 40 a test, made
 * and freed at once (a calloc() and a free() each cost 1% of the corpus).
 */
static void *search_array(struct enumeration *en, size_t n, size_t size)
{
	return arena_alloc(&en->arena, (n ? n : 1) * size);
}

static void bit_set(uint64_t *bits, int i)
{
	bits[i / 64] |= UINT64_C(1) << (i % 64);
}

/*
 * The pair id of each event of each run of each process, in order (-1
 * but for reads and writes): interned once, before the bit sets are
 * sized by how many there are.
 */
static int **pair_ids(struct enumeration *en, struct value_pairs *vp)
{
	const struct program *p = en->prog;
	int **ids = search_array(en, p->nprocs, sizeof(*ids));

	for (int i = 0; i < p->nprocs; i++) {
		int n = 0;

		for (int t = 0; t < p->procs[i].ntraces; t++)
			n += p->procs[i].traces[t].nevents;
		ids[i] = search_array(en, n, sizeof(**ids));
		n = 0;
		for (int t = 0; t < p->procs[i].ntraces; t++)
			for (int k = 0; k < p->procs[i].traces[t].nevents; k++) {
				const struct trace_event *e = &p->procs[i].traces[t].events[k];

				ids[i][n++] = e->kind == EV_READ || e->kind == EV_WRITE ?
					      pair_id(vp, e->loc, e->val) : -1;
			}
	}
	return ids;
}

static void summarize_runs(struct enumeration *en)
{
	const struct program *p = en->prog;
	struct value_pairs vp = { 0 };
	int **ids = pair_ids(en, &vp);
	int i, t, k;

	en->words = vp.n / 64 + 1;
	en->givers = search_array(en, p->nprocs, sizeof(*en->givers));
	en->needy = search_array(en, p->nprocs, sizeof(*en->needy));
	en->needs = search_array(en, p->nprocs, sizeof(*en->needs));
	en->fit_runs = search_array(en, p->nprocs, sizeof(*en->fit_runs));
	en->need = search_array(en, p->nprocs, sizeof(*en->need));
	en->give = search_array(en, p->nprocs, sizeof(*en->give));
	en->later_give = search_array(en, p->nprocs + 1, sizeof(*en->later_give));
	en->later_give[p->nprocs] = search_array(en, en->words, sizeof(uint64_t));
	en->gave = search_array(en, (size_t)(p->nprocs + 1) * en->words, sizeof(uint64_t));
	en->needed = search_array(en, (size_t)(p->nprocs + 1) * en->words, sizeof(uint64_t));
	for (i = p->nprocs - 1; i >= 0; i--) {
		int ntraces = p->procs[i].ntraces;
		const int *id = ids[i];

		en->need[i] = search_array(en, ntraces, sizeof(**en->need));
		en->give[i] = search_array(en, ntraces, sizeof(**en->give));
		/* The runs' sets in one block each, from need[i][0] and give[i][0] on. */
		en->need[i][0] = search_array(en, (size_t)ntraces * en->words, sizeof(uint64_t));
		en->give[i][0] = search_array(en, (size_t)ntraces * en->words, sizeof(uint64_t));
		en->later_give[i] = search_array(en, en->words, sizeof(uint64_t));
		memcpy(en->later_give[i], en->later_give[i + 1], en->words * sizeof(uint64_t));
		en->givers[i] = search_array(en, (size_t)vp.n * (ntraces / 64 + 1), sizeof(uint64_t));
		en->needy[i] = search_array(en, (size_t)vp.n * (ntraces / 64 + 1), sizeof(uint64_t));
		en->needs[i] = search_array(en, en->words, sizeof(uint64_t));
		en->fit_runs[i] = search_array(en, ntraces / 64 + 1, sizeof(uint64_t));
		for (t = 0; t < ntraces; t++) {
			const struct trace *tr = &p->procs[i].traces[t];

			en->need[i][t] = en->need[i][0] + t * en->words;
			en->give[i][t] = en->give[i][0] + t * en->words;
			for (k = 0; k < tr->nevents; k++, id++) {
				const struct trace_event *e = &tr->events[k];

				if (e->kind == EV_WRITE) {
					bit_set(en->give[i][t], *id);
					bit_set(en->givers[i] + *id * (ntraces / 64 + 1), t);
				} else if (e->kind == EV_READ && !value_eq(e->val, p->loc_init[e->loc]))
					bit_set(en->need[i][t], *id);
			}
			for (k = 0; k < en->words; k++) {
				en->later_give[i][k] |= en->give[i][t][k];
				en->needs[i][k] |= en->need[i][t][k];
				for (uint64_t m = en->need[i][t][k] & ~en->give[i][t][k]; m; m &= m - 1)
					bit_set(en->needy[i] + (k * 64 + __builtin_ctzll(m)) *
						(ntraces / 64 + 1), t);
			}
		}
	}
	free(vp.loc);
	free(vp.val);
	free(vp.slots);
}

/*
 * Whether the runs picked for processes up to `proc` can still read
 * what they read: from a picked run, or from some run of a process not
 * picked yet.  What the picked runs give and need is carried from one
 * process to the next, so that a node of the search costs a few words,
 * not a pass over the processes before it.
 */
static bool picked_fits(struct enumeration *en, int proc)
{
	const uint64_t *give = en->give[proc][en->pick[proc]];
	const uint64_t *need = en->need[proc][en->pick[proc]];
	const uint64_t *later = en->later_give[proc + 1];
	uint64_t *gave = en->gave + en->words * proc, *needed = en->needed + en->words * proc;
	uint64_t missing = 0;

	for (int k = 0; k < en->words; k++) {
		gave[en->words + k] = gave[k] | give[k];
		needed[en->words + k] = needed[k] | need[k];
		missing |= needed[en->words + k] & ~(gave[en->words + k] | later[k]);
	}
	return !missing;
}

/*
 * The runs of proc that may fit after the runs picked before it, in
 * fit_runs[proc]: those that write every pair the picked runs read that
 * no other process can still write.  Whether there is one.
 */
static bool lone_runs(struct enumeration *en, int proc)
{
	const uint64_t *gave = en->gave + en->words * proc, *needed = en->needed + en->words * proc;
	int n = en->prog->procs[proc].ntraces, rwords = n / 64 + 1;
	uint64_t *cand = en->fit_runs[proc], any = 0;

	for (int j = 0; j < rwords; j++)
		cand[j] = j < n / 64 ? ~UINT64_C(0) : (UINT64_C(1) << n % 64) - 1;
	for (int k = 0; k < en->words; k++)
		for (uint64_t m = needed[k] & ~(gave[k] | en->later_give[proc + 1][k]); m; m &= m - 1) {
			const uint64_t *runs = en->givers[proc] + (k * 64 + __builtin_ctzll(m)) * rwords;
			uint64_t left = 0;

			for (int j = 0; j < rwords; j++)
				left |= cand[j] &= runs[j];
			/* Most fail (97% in r4242-731): at once, fit_runs[proc] left unread. */
			if (!left)
				return false;
		}
	for (int j = 0; j < rwords; j++)
		any |= cand[j];
	return any;
}

/*
 * fit_runs[proc] less the runs that read a pair no other process can
 * still write, and do not write it themselves: picked_fits() would fail
 * them (in r4242-731, three in five of the third process's runs tried).
 * Done for the runs about to be tried, not in lone_runs(), which
 * may_go_on() calls for every run of the process before.
 */
static void drop_needy(struct enumeration *en, int proc)
{
	const uint64_t *gave = en->gave + en->words * proc;
	int rwords = en->prog->procs[proc].ntraces / 64 + 1;
	uint64_t *cand = en->fit_runs[proc];

	for (int k = 0; k < en->words; k++)
		for (uint64_t m = en->needs[proc][k] & ~(gave[k] | en->later_give[proc + 1][k]); m;
		     m &= m - 1) {
			const uint64_t *runs = en->needy[proc] + (k * 64 + __builtin_ctzll(m)) * rwords;

			for (int j = 0; j < rwords; j++)
				cand[j] &= ~runs[j];
		}
}

/* The first run of proc from t on in fit_runs[proc], or ntraces. */
static int next_run(const struct enumeration *en, int proc, int t)
{
	int n = en->prog->procs[proc].ntraces;

	for (; t < n; t = (t / 64 + 1) * 64) {
		uint64_t m = en->fit_runs[proc][t / 64] & (~UINT64_C(0) << (t % 64));

		if (m)
			return t / 64 * 64 + __builtin_ctzll(m);
	}
	return n;
}

/* The first run proc may take: none before its previous twin's. */
static int first_run(const struct enumeration *en, int proc)
{
	int prev = en->twins.prev[proc];

	return prev >= 0 ? en->pick[prev] : 0;
}

/* Whether the runs of the first n processes keep their twins in order. */
static bool twins_in_order(const struct enumeration *en, int n)
{
	for (int i = 0; i < n; i++)
		if (en->pick[i] < first_run(en, i))
			return false;
	return true;
}

/* Whether a combination may start with the runs picked before proc (fit_runs[proc] set). */
static bool may_go_on(struct enumeration *en, int proc)
{
	return proc == en->prog->nprocs || lone_runs(en, proc);
}

/* The combinations below the runs picked before proc, which may_go_on(). */
static void each_combination(struct enumeration *en, int proc)
{
	const struct program *p = en->prog;

	if (en->stop || !may_matter(en, proc, 0))
		return;
	if (proc == p->nprocs) {
		en->out->combinations++;
		layout_events(en);
		if (collect_rf_candidates(en)) {
			build_static_relations(en);
			if (en->prune)
				each_final_write(en, 0);
			else
				each_rf(en, 0);
		}
		return;
	}
	drop_needy(en, proc);
	for (en->pick[proc] = next_run(en, proc, first_run(en, proc));
	     en->pick[proc] < p->procs[proc].ntraces && !en->stop;
	     en->pick[proc] = next_run(en, proc, en->pick[proc] + 1))
		if (picked_fits(en, proc) && may_go_on(en, proc + 1))
			each_combination(en, proc + 1);
}

static void add_var(struct outcomes *o, int proc, int index, const char *name)
{
	int i;

	for (i = 0; i < o->nvars; i++)
		if (o->vars[i].proc == proc && o->vars[i].index == index)
			return;
	o->vars = xrealloc(o->vars, (o->nvars + 1) * sizeof(*o->vars));
	o->vars[o->nvars++] = (struct state_var){ proc, index, name };
}

static void add_cond_var(const struct program *p, struct outcomes *o, const struct cond_loc *l)
{
	if (l->proc >= 0)
		add_var(o, l->proc, program_reg(p, l->proc, l->name), l->name);
	else
		add_var(o, -1, program_loc(p, l->name), l->name);
}

/* A shared location the filter names: its final write must be chosen too. */
static void observe_loc(const struct cond_loc *l, void *ctx)
{
	struct enumeration *en = ctx;

	if (l->proc < 0)
		en->observed[program_loc(en->prog, l->name)] = true;
}

/* What add_var_of() needs: the program and the outcomes it fills. */
struct var_sink {
	const struct program *p;
	struct outcomes *o;
};

static void add_var_of(const struct cond_loc *l, void *ctx)
{
	struct var_sink *sink = ctx;

	add_cond_var(sink->p, sink->o, l);
}

/* herd7 prints registers by process and name, then locations by name. */
static int var_order(const void *a, const void *b)
{
	const struct state_var *x = a, *y = b;

	if ((x->proc < 0) != (y->proc < 0))
		return x->proc < 0 ? 1 : -1;
	if (x->proc != y->proc)
		return x->proc - y->proc;
	return strcmp(x->name, y->name);
}

void outcomes_choose_vars(const struct program *p, struct outcomes *o)
{
	const struct litmus *t = p->test;
	int i;

	for (i = 0; i < t->nlocations; i++)
		add_cond_var(p, o, &t->locations[i]);
	prop_each_loc(t->cond, add_var_of, &(struct var_sink){ p, o });
	if (o->nvars)
		qsort(o->vars, o->nvars, sizeof(*o->vars), var_order);
}

/*
 * Whether the search may judge executions in any order (prune, split
 * among threads).  The order only shows in what -speedcheck reports and
 * in the execution --explain and --graph pick: those keep it.
 */
static bool order_free(const struct check_options *opts)
{
	return !opts->keep_executions && opts->speedcheck == SPEEDCHECK_FALSE;
}

static bool same_event(const struct trace_event *a, const struct trace_event *b)
{
	if (a->kind != b->kind || a->atomic != b->atomic || a->ntags != b->ntags ||
	    a->loc != b->loc || !value_eq(a->val, b->val) || a->has_val != b->has_val ||
	    a->rmw_read != b->rmw_read || a->addr_deps != b->addr_deps ||
	    a->data_deps != b->data_deps || a->ctrl_deps != b->ctrl_deps ||
	    a->pinned != b->pinned || a->pin_deps != b->pin_deps || a->copy_of != b->copy_of)
		return false;
	for (int i = 0; i < a->ntags; i++)
		if (strcmp(a->tags[i], b->tags[i]))
			return false;
	return true;
}

static bool same_trace(const struct trace *a, const struct trace *b, int nregs)
{
	if (a->nevents != b->nevents)
		return false;
	for (int i = 0; i < a->nevents; i++)
		if (!same_event(&a->events[i], &b->events[i]))
			return false;
	for (int i = 0; i < nregs; i++)
		if (!value_eq(a->regs[i], b->regs[i]))
			return false;
	return true;
}

/* Whether processes a and b are twins: the same registers, the same runs. */
static bool are_twins(const struct proc_info *a, const struct proc_info *b)
{
	if (a->nregs != b->nregs || a->ntraces != b->ntraces)
		return false;
	for (int i = 0; i < a->nregs; i++)
		if (strcmp(a->reg_names[i], b->reg_names[i]))
			return false;
	for (int t = 0; t < a->ntraces; t++)
		if (!same_trace(&a->traces[t], &b->traces[t], a->nregs))
			return false;
	return true;
}

/* Group p's processes into classes of twins, when the search may use them. */
static void find_twins(struct enumeration *en, const struct program *p, bool allowed)
{
	struct twins *tw = &en->twins;
	size_t size = p->nprocs + 1;
	int *class_of = xcalloc(size, sizeof(*class_of));	/* its first twin */
	int nclasses = 0, n = 0;

	tw->prev = search_array(en, size, sizeof(*tw->prev));
	tw->len = search_array(en, size, sizeof(*tw->len));
	tw->procs = search_array(en, size, sizeof(*tw->procs));
	tw->used = search_array(en, size, sizeof(*tw->used));
	for (int i = 0; i < p->nprocs; i++) {
		tw->prev[i] = -1;
		class_of[i] = i;
		for (int j = i - 1; j >= 0 && allowed; j--) {
			if (class_of[j] == j && are_twins(&p->procs[j], &p->procs[i])) {
				class_of[i] = j;
				break;
			}
		}
	}
	for (int i = 0; i < p->nprocs; i++) {
		int len = 0, last = -1;

		for (int j = i; j < p->nprocs; j++) {
			if (class_of[j] != i)
				continue;
			tw->procs[n + len++] = j;
			tw->prev[j] = last;
			last = j;
		}
		if (len < 2)
			continue;
		tw->len[nclasses++] = len;
		n += len;
	}
	tw->nclasses = nclasses;
	en->out->twins = n;
	free(class_of);
}

/* Set en up to search p's executions with ev, tallying into out. */
/* Whether two runs' events are alike but for their values: what cateval.c's same_shape() reads. */
static bool same_events(const struct trace *a, const struct trace *b)
{
	if (a->nevents != b->nevents)
		return false;
	for (int j = 0; j < a->nevents; j++) {
		const struct trace_event *e = &a->events[j], *f = &b->events[j];

		if (e->kind != f->kind || e->atomic != f->atomic || e->has_val != f->has_val ||
		    e->loc != f->loc || e->rmw_read != f->rmw_read || e->addr_deps != f->addr_deps ||
		    e->data_deps != f->data_deps || e->ctrl_deps != f->ctrl_deps ||
		    e->ntags != f->ntags)
			return false;
		/* One statement's tags are the same strings in every run: strcmp() seldom. */
		for (int t = 0; t < e->ntags; t++)
			if (e->tags[t] != f->tags[t] && strcmp(e->tags[t], f->tags[t]))
				return false;
	}
	return true;
}

/* Each run's shape: the first run of its process alike (same_events()). */
static void shape_runs(struct enumeration *en)
{
	const struct program *p = en->prog;

	en->shape = search_array(en, p->nprocs, sizeof(*en->shape));
	en->built = search_array(en, p->nprocs, sizeof(*en->built));
	for (int i = 0; i < p->nprocs; i++) {
		const struct trace *runs = p->procs[i].traces;
		int *shape = en->shape[i] = search_array(en, p->procs[i].ntraces, sizeof(*shape));

		for (int t = 0; t < p->procs[i].ntraces; t++) {
			shape[t] = t;
			for (int u = 0; u < t && shape[t] == t; u++)
				if (shape[u] == u && same_events(&runs[u], &runs[t]))
					shape[t] = u;
		}
	}
}

/*
 * The arrays, relations and sets of a combination's events and reads,
 * for the most events a combination may have: made once, cleared for
 * each (rel_init() of a smaller universe fits), not reallocated (11
 * realloc() a combination, 2% of the generated tests).
 */
static void size_combinations(struct enumeration *en)
{
	const struct program *p = en->prog;
	struct rel **rels[] = { &en->x.rf, &en->x.po, &en->x.rmw, &en->x.addr, &en->x.data,
				&en->x.ctrl };
	int n = p->nlocs;

	for (int i = 0; i < p->nprocs; i++) {
		int most = 0;

		for (int t = 0; t < p->procs[i].ntraces; t++)
			if (p->procs[i].traces[t].nevents > most)
				most = p->procs[i].traces[t].nevents;
		n += most;
	}
	en->x.events = search_array(en, n, sizeof(*en->x.events));
	en->reads = search_array(en, n, sizeof(*en->reads));
	en->read_of = search_array(en, n, sizeof(*en->read_of));
	en->ncands = search_array(en, n, sizeof(*en->ncands));
	en->rf_pick = search_array(en, n, sizeof(*en->rf_pick));
	en->cands = search_array(en, n, sizeof(*en->cands));
	en->cand_store = search_array(en, (size_t)n * n, sizeof(*en->cand_store));
	en->known = search_array(en, n, sizeof(*en->known));
	en->first_write = search_array(en, p->nlocs + 1, sizeof(*en->first_write));
	en->next_write = search_array(en, n, sizeof(*en->next_write));
	en->leaves_from = search_array(en, n + 1, sizeof(*en->leaves_from));
	for (size_t i = 0; i < sizeof(rels) / sizeof(*rels); i++)
		*rels[i] = arena_alloc(&en->arena, rel_bytes(n));
	en->x.iw = arena_alloc(&en->arena, set_bytes(n));
	en->x.fw = arena_alloc(&en->arena, set_bytes(n));
}

static void start_search(struct enumeration *en, const struct program *p, struct cat_eval *ev,
			 const struct check_options *opts, struct outcomes *out)
{
	int i;

	memset(en, 0, sizeof(*en));
	en->prog = p;
	en->eval = ev;
	en->opts = opts;
	en->out = out;
	memset(out, 0, sizeof(*out));
	outcomes_choose_vars(p, out);
	clock_gettime(CLOCK_MONOTONIC, &en->start);
	en->pick = search_array(en, p->nprocs, sizeof(*en->pick));
	en->base = search_array(en, p->nprocs, sizeof(*en->base));
	en->final = search_array(en, p->nlocs, sizeof(*en->final));
	en->fw = search_array(en, p->nlocs, sizeof(*en->fw));
	en->state = search_array(en, out->nvars, sizeof(*en->state));
	en->observed = search_array(en, p->nlocs, sizeof(*en->observed));
	for (i = 0; i < out->nvars; i++)
		if (out->vars[i].proc < 0)
			en->observed[out->vars[i].index] = true;
	prop_each_loc(p->test->filter, observe_loc, en);
	en->prune = order_free(opts);
	find_twins(en, p, en->prune && !p->test->filter);
	en->src = search_array(en, p->nprocs + 1, sizeof(*en->src));
	for (i = 0; i < p->nprocs; i++)
		en->src[i] = i;
	en->x.nlocs = p->nlocs;
	en->x.loc_names = (const char **)p->loc_names;
	summarize_runs(en);
	shape_runs(en);
	size_combinations(en);
}

static void end_search(struct enumeration *en)
{
	arena_free(&en->arena);
	free(en->states.slots);
	free(en->states.cond);
}

/* Fewer combinations of runs than this take milliseconds: not worth threads. */
enum { MIN_SPLIT = 256 };

/*
 * How deep the jobs of a search split among nthreads go: the fewest
 * processes whose combinations of runs make enough jobs to share out
 * evenly; 0 when the search is too small to split or keeps its order.
 */
static int split_depth(const struct program *p, const struct check_options *opts,
		       int nthreads)
{
	long jobs = 1, all = 1;
	int depth = 0;

	if (!order_free(opts))
		return 0;
	for (int d = 0; d < p->nprocs; d++) {
		all *= p->procs[d].ntraces;
		if (jobs < 16L * nthreads) {
			jobs = all;
			depth = d + 1;
		}
		if (all >= MIN_SPLIT)
			break;
	}
	return nthreads > 1 && all >= MIN_SPLIT && jobs >= 2L * nthreads ? depth : 0;
}

/* The job's runs for the first depth processes, the first varying slowest. */
static void pick_job(struct enumeration *en, long job)
{
	for (int i = en->shared->depth - 1; i >= 0; i--) {
		int n = en->prog->procs[i].ntraces;

		en->pick[i] = (int)(job % n);
		job /= n;
	}
}

/* One thread of a split search; its errors are its own to report. */
struct search_thread {
	struct enumeration en;
	struct outcomes out;
	struct strbuf errors;
	int status;
	pthread_t thread;
};

static void search_jobs(void *arg)
{
	struct enumeration *en = arg;
	int d, depth = en->shared->depth;

	for (;;) {
		long job = atomic_fetch_add(&en->shared->next_job, 1);

		if (job >= en->shared->njobs || en->stop || atomic_load(&en->shared->stop))
			break;
		pick_job(en, job);
		/* Carried process by process: runs that fit together fit at each step. */
		for (d = 0; d < depth && picked_fits(en, d); d++)
			;
		if (d == depth && twins_in_order(en, depth) && may_go_on(en, depth))
			each_combination(en, depth);
	}
}

static void *search_thread(void *arg)
{
	struct search_thread *t = arg;

	die_output = &t->errors;
	t->status = catch_die(search_jobs, &t->en);
	die_output = NULL;
	if (t->status)
		atomic_store(&t->en.shared->stop, true);
	return NULL;
}

/* Add what one thread found to out. */
static void merge_outcomes(struct enumeration *en, struct outcomes *out, struct outcomes *part)
{
	for (int i = 0; i < part->nstates; i++)
		record_state(&en->states, out, part->states[i].vals, part->states[i].count, -1);
	out->positive += part->positive;
	out->negative += part->negative;
	out->candidates += part->candidates;
	out->combinations += part->combinations;
	out->verdicts += part->verdicts;
	for (int i = 0; i < part->nflags; i++)
		add_flag(out, part->flags[i]);
	if (part->limit && !out->limit) {
		out->limit = part->limit;
		part->limit = NULL;
	}
}

/*
 * The search split among nthreads threads, each with an evaluation of
 * the model of its own, made here.  Executions are found in another order than one
 * thread's, which changes nothing printed: the states are sorted, the
 * counts summed.  An error in a thread is raised here, after all have
 * stopped.
 */
static void split_search(struct enumeration *en, int nthreads, int depth)
{
	struct shared_search shared = { .depth = depth, .njobs = 1 };
	struct search_thread *threads = xcalloc(nthreads, sizeof(*threads));
	int started, failed = -1;

	for (int d = 0; d < depth; d++)
		shared.njobs *= en->prog->procs[d].ntraces;
	for (started = 0; started < nthreads; started++) {
		struct search_thread *t = &threads[started];

		start_search(&t->en, en->prog, cat_eval_new(cat_eval_model(en->eval)), en->opts,
			     &t->out);
		t->en.shared = &shared;
		if (pthread_create(&t->thread, NULL, search_thread, t)) {
			cat_eval_free(t->en.eval);
			end_search(&t->en);
			outcomes_free(&t->out);
			break;
		}
	}
	if (!started) {
		free(threads);
		die(EXIT_INTERNAL, "cannot start a thread to search %s", en->prog->test->file);
	}
	for (int i = 0; i < started; i++) {
		struct search_thread *t = &threads[i];

		pthread_join(t->thread, NULL);
		if (!t->status)
			merge_outcomes(en, en->out, &t->out);
		else if (failed < 0)
			failed = i;
	}
	for (int i = 0; i < started; i++) {
		cat_eval_free(threads[i].en.eval);
		end_search(&threads[i].en);
		outcomes_free(&threads[i].out);
	}
	if (failed >= 0) {
		struct strbuf errors = threads[failed].errors;
		int status = threads[failed].status;

		for (int i = 0; i < started; i++)
			if (i != failed)
				sb_free(&threads[i].errors);
		free(threads);
		die_with_message(status, &errors);
	}
	for (int i = 0; i < started; i++)
		sb_free(&threads[i].errors);
	free(threads);
}

/* What search() needs, under catch_die(). */
struct search_job {
	struct enumeration *en;
	int nthreads;
};

static void search(void *arg)
{
	struct search_job *job = arg;
	int depth = split_depth(job->en->prog, job->en->opts, job->nthreads);

	if (depth)
		split_search(job->en, job->nthreads, depth);
	else if (may_go_on(job->en, 0))
		each_combination(job->en, 0);
}

/* An error in the model ends the search: what it holds is freed, then the error passed on. */
void enumerate(const struct program *p, struct cat_eval *ev, int nthreads,
	       const struct check_options *opts, struct outcomes *out)
{
	struct enumeration en;
	struct search_job job = { &en, nthreads };
	int status;

	start_search(&en, p, ev, opts, out);
	status = catch_die(search, &job);
	end_search(&en);
	if (status)
		die_again(status);
}

void outcomes_free(struct outcomes *o)
{
	int i;

	for (i = 0; i < o->nstates; i++)
		free(o->states[i].vals);
	for (i = 0; i < o->nflags; i++)
		free((char *)o->flags[i]);
	for (i = 0; i < o->nreasons; i++)
		free((char *)o->reasons[i]);
	free(o->states);
	free(o->flags);
	free(o->reasons);
	free(o->reason_counts);
	snapshot_free(o->witness);
	for (i = 0; i < o->ncounterexamples; i++)
		snapshot_free(o->counterexamples[i]);
	free(o->vars);
	free(o->limit);
}
