/*
 * events.c - run each process of an expanded litmus test, once per guess of
 * the values its loads and lock primitives return, recording its events.
 *
 * A run is steered by a vector of choices, one per choice point met (a
 * load's value, a trylock's outcome).  Runs are enumerated like an
 * odometer: run, then advance the last choice that has alternatives left.
 * The values a load may return are all values stored at its location by any
 * run; since stored values can depend on loaded ones, the runs of all
 * processes are repeated until those value sets stop growing.
 */
#include "exec.h"

#include <stdlib.h>
#include <string.h>

/* herd7 unrolls a while loop this many times, then gives up on the run. */
#define LOOP_UNROLL 2

/* A value with the local loads it was computed from. */
struct tval {
	struct value v;
	uint64_t deps;
	bool copy;		/* v is the value of the one read in deps, as read */
};

/* Values that may be stored at each location, grown across rounds. */
struct value_set {
	int *n;
	struct value **v;
};

/*
 * Loads draw from `known`, frozen during a round, so that a round only
 * goes one store deeper; stores add to `found`, known for the next round.
 */
/*
 * What program_build() holds while it works, hung from the program so
 * that program_free() frees it when bad input or a limit ends the build.
 */
struct value_sets {
	struct value_set known, found;
	bool grew;
	struct value_set consts;	/* while seed_constants() runs */
	struct run *run;		/* every process's, in turn: made once */
};

/* The state of one run of one process. */
struct run {
	const struct program *prog;
	struct value_sets *sets;
	const struct event_limits *limits;
	int proc;
	struct tval *regs;
	struct tval *start;	/* the registers at the start of each run of proc (after regs) */
	uint64_t ctrl;		/* loads the branches taken so far depend on */
	int nevents;
	struct trace_event events[MAX_PROC_EVENTS];
	/* Choices: the odometer digits and how many alternatives each has. */
	int nchoices;
	int choice[MAX_PROC_EVENTS * 2];
	int alternatives[MAX_PROC_EVENTS * 2];
	int depth;		/* choice points met so far in this run */
	bool abandoned;		/* the run went where herd7 drops it */
	/*
	 * Registers by the name as the test's tree spells it (each use its
	 * own string), found by strcmp() once: every run of every round
	 * reads them again.
	 */
	struct reg_seen {
		const char *name;
		int proc, reg;
	} seen[256];
};

static const struct value zero;
static const struct value symbolic = { true, -1 };

bool values_eq(const struct value *a, const struct value *b, int n)
{
	for (int i = 0; i < n; i++)
		if (!value_eq(a[i], b[i]))
			return false;
	return true;
}

/* Symbols, then integers numerically, then addresses by location name. */
int value_cmp(const struct program *p, struct value a, struct value b)
{
	/* herd7 puts its symbols first. */
	if (value_is_symbolic(a) || value_is_symbolic(b))
		return value_is_symbolic(b) - value_is_symbolic(a);
	if (a.is_addr != b.is_addr)
		return a.is_addr ? 1 : -1;
	if (a.is_addr)
		return strcmp(p->loc_names[a.n], p->loc_names[b.n]);
	return a.n < b.n ? -1 : a.n > b.n;
}

void value_print(const struct program *p, struct value v, struct strbuf *out)
{
	if (value_is_symbolic(v))
		sb_addf(out, "S");	/* herd7 numbers its symbols: S16, ... */
	else if (v.is_addr)
		sb_adds(out, p->loc_names[v.n]);
	else
		sb_add_int(out, v.n);
}

struct value value_at_loc(const struct program *p, int loc, struct value v)
{
	struct value_width w = p->loc_width[loc];
	unsigned long long mask, u;

	if (!w.bits || v.is_addr || value_is_symbolic(v))
		return v;
	mask = (1ULL << w.bits) - 1;
	u = (unsigned long long)v.n & mask;
	if (!w.is_unsigned && (u >> (w.bits - 1)))
		u |= ~mask;	/* sign-extend */
	v.n = (long long)u;
	return v;
}

int program_loc(const struct program *p, const char *name)
{
	int i;

	for (i = 0; i < p->nlocs; i++)
		if (!strcmp(p->loc_names[i], name))
			return i;
	return -1;
}

int program_reg(const struct program *p, int proc, const char *name)
{
	const struct proc_info *pi = &p->procs[proc];
	int i;

	for (i = 0; i < pi->nregs; i++)
		if (!strcmp(pi->reg_names[i], name))
			return i;
	return -1;
}

/* Choose among n alternatives at the next choice point of the run. */
static int choose(struct run *r, int n, struct srcpos pos)
{
	int d = r->depth++;

	if (d >= (int)(sizeof(r->choice) / sizeof(*r->choice)))
		die_at(pos, "process P%d makes too many choices (more than %d)",
		       r->proc, (int)(sizeof(r->choice) / sizeof(*r->choice)));
	if (d == r->nchoices) {
		r->choice[d] = 0;
		r->nchoices++;
	}
	r->alternatives[d] = n;
	return r->choice[d];
}

static struct trace_event *emit(struct run *r, enum event_kind kind, int loc,
				struct srcpos pos)
{
	struct trace_event *e;

	if (r->nevents == MAX_PROC_EVENTS)
		die_at(pos, "process P%d has more than %d events", r->proc, MAX_PROC_EVENTS);
	e = &r->events[r->nevents++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->pos = pos;
	e->loc = loc;
	e->rmw_read = -1;
	e->copy_of = -1;
	e->ctrl_deps = r->ctrl;
	return e;
}

static void set_annot(struct trace_event *e, const struct annot *a)
{
	e->ntags = a->n;
	e->tags = (const char **)a->tags;
}

/* herd7's own annotations for RMWs under lkmmv1, whatever the .def writes. */
static const char *const once_tag[] = { "once" };
static const struct annot once = { 1, (char **)once_tag };
static const char *const noreturn_tag[] = { "noreturn" };
static const struct annot noreturn = { 1, (char **)noreturn_tag };
static const char *const mb_tag[] = { "mb" };
static const struct annot mb = { 1, (char **)mb_tag };

static int local_index(const struct run *r, const struct trace_event *e)
{
	return (int)(e - r->events);
}

static bool add_value(struct value_set *s, int loc, struct value v,
		      const struct event_limits *limits)
{
	int i;

	for (i = 0; i < s->n[loc]; i++)
		if (value_eq(s->v[loc][i], v))
			return false;
	if (s->n[loc] == limits->max_values)
		die(EXIT_LIMIT, "more than %d distinct values stored at one location "
		    "(raise -max-values)", limits->max_values);
	/* Room doubled when the count reaches a power of two: no capacity kept, few reallocs. */
	if (!(s->n[loc] & (s->n[loc] - 1)))
		s->v[loc] = xrealloc(s->v[loc], (s->n[loc] ? 2 * s->n[loc] : 1) * sizeof(**s->v));
	s->v[loc][s->n[loc]++] = v;
	return true;
}

static int loc_of(struct run *r, struct tval addr)
{
	if (!addr.v.is_addr || value_is_symbolic(addr.v)) {
		/* A guessed value no write may justify; drop the run. */
		r->abandoned = true;
		return -1;
	}
	return (int)addr.v.n;
}

static struct tval eval(struct run *r, const struct expr *e);

/* Guess the value a load of loc returns. */
static struct value guess(struct run *r, int loc, struct srcpos pos)
{
	const struct value_set *known = &r->sets->known;

	return known->v[loc][choose(r, known->n[loc], pos)];
}


/* The address operand of an annotated primitive: "*p" names p's target. */
static struct tval eval_address(struct run *r, const struct expr *e, const char *what)
{
	if (e->kind != X_LOAD || e->annot.n)
		die_at(e->pos, "bad %s argument: expected '*pointer'", what);
	return eval(r, e->args[0]);
}

static struct tval load(struct run *r, struct tval addr, const struct annot *a,
			bool atomic, struct srcpos pos)
{
	int loc = loc_of(r, addr);
	struct trace_event *e;
	struct value v;

	if (loc < 0)
		return (struct tval){ zero, 0, false };
	v = guess(r, loc, pos);
	e = emit(r, EV_READ, loc, pos);
	if (a)
		set_annot(e, a);
	e->atomic = atomic;
	e->addr_deps = addr.deps;
	e->val = v;
	e->has_val = true;
	return (struct tval){ e->val, UINT64_C(1) << local_index(r, e), true };
}

static struct trace_event *store(struct run *r, int loc, struct tval addr, struct tval v,
				 struct srcpos pos)
{
	struct trace_event *e = emit(r, EV_WRITE, loc, pos);

	e->addr_deps = addr.deps;
	e->data_deps = v.deps;
	e->copy_of = v.copy ? __builtin_ctzll(v.deps) : -1;
	e->val = v.v;
	e->has_val = true;
	if (add_value(&r->sets->found, loc, v.v, r->limits))
		r->sets->grew = true;
	return e;
}

static void fence(struct run *r, const struct annot *a, struct srcpos pos)
{
	set_annot(emit(r, EV_FENCE, -1, pos), a);
}

/*
 * An address used as a number, e.g. "y + r" with r a guessed non-zero
 * value: the locations of a test are not laid out in memory, so such a
 * run is given up (no store justifies it in the tests seen so far).
 */
static long long int_of(struct run *r, struct tval v)
{
	if (v.v.is_addr)
		r->abandoned = true;
	return v.v.n;
}

static struct value int_value(long long n)
{
	return (struct value){ false, n };
}

/* x + y as 64-bit registers wrap, where C's signed overflow is undefined (a fuzzed test's huge values). */
static long long wrap_add(long long x, unsigned long long y)
{
	return (long long)((unsigned long long)x + y);
}

static struct tval binary(struct run *r, const struct expr *e)
{
	struct tval a = eval(r, e->args[0]);
	struct tval b = eval(r, e->args[1]);
	struct tval out = { zero, a.deps | b.deps, false };
	long long x, y;

	/*
	 * A symbolic value is the value of reads no equation solves.  herd7
	 * computes with such a value by an equation of its own (v := S + 1),
	 * which stays unsolved, and drops every execution left with one
	 * (even when nothing reads v); on a condition it would split.  Give
	 * the run up.
	 */
	if (value_is_symbolic(a.v) || value_is_symbolic(b.v)) {
		r->abandoned = true;
		out.v = symbolic;
		return out;
	}
	if (e->op == OP_EQ || e->op == OP_NE) {
		out.v = int_value(value_eq(a.v, b.v) == (e->op == OP_EQ));
		return out;
	}
	/* Address arithmetic that herd7's symbolic values also simplify. */
	if ((e->op == OP_ADD || e->op == OP_SUB) && a.v.is_addr && !b.v.is_addr && !b.v.n) {
		out.v = a.v;
		return out;
	}
	if (e->op == OP_ADD && b.v.is_addr && !a.v.is_addr && !a.v.n) {
		out.v = b.v;
		return out;
	}
	if (e->op == OP_SUB && a.v.is_addr && value_eq(a.v, b.v)) {
		out.v = int_value(0);
		return out;
	}
	x = int_of(r, a);
	y = int_of(r, b);
	switch (e->op) {
	case OP_ADD: out.v.n = wrap_add(x, y); break;
	case OP_SUB: out.v.n = wrap_add(x, -(unsigned long long)y); break;
	case OP_MUL: out.v.n = (long long)((unsigned long long)x * (unsigned long long)y); break;
	case OP_DIV:
	case OP_MOD:
		if (!y)
			die_at(e->pos, "division by zero");
		out.v.n = e->op == OP_DIV ? x / y : x % y;
		break;
	case OP_AND: out.v.n = x & y; break;
	case OP_OR: out.v.n = x | y; break;
	case OP_XOR: out.v.n = x ^ y; break;
	case OP_SHL: out.v.n = (long long)((unsigned long long)x << (y & 63)); break;
	case OP_SHR: out.v.n = x >> (y & 63); break;
	case OP_LT: out.v.n = x < y; break;
	case OP_LE: out.v.n = x <= y; break;
	case OP_GT: out.v.n = x > y; break;
	case OP_GE: out.v.n = x >= y; break;
	case OP_LAND: out.v.n = x && y; break;
	case OP_LOR: out.v.n = x || y; break;
	}
	return out;
}

static long long apply_rmw_op(struct run *r, int op, struct tval old, struct tval v)
{
	long long x = int_of(r, old), y = int_of(r, v);

	switch (op) {
	case OP_ADD: return wrap_add(x, y);
	case OP_SUB: return wrap_add(x, -(unsigned long long)y);
	case OP_AND: return x & y;
	case OP_OR: return x | y;
	case OP_ANDNOT: return x & ~y;
	default: return x ^ y;
	}
}

static bool is_tagged(const struct annot *a, const char *tag)
{
	return a->n == 1 && !strcmp(a->tags[0], tag);
}

/* The annotations of an RMW's R* and W*, and whether fences wrap it (events.h). */
struct rmw_shape {
	const struct annot *read, *write, *failed_read;
	bool fenced;
};

static struct rmw_shape rmw_shape(const struct run *r, const struct expr *e)
{
	const struct annot *a = &e->annot;
	bool add_unless = e->kind == X_ADD_UNLESS;

	if (r->prog->rmw_style == RMW_LKMMV2)
		return (struct rmw_shape){ a, a, a, false };
	return (struct rmw_shape){
		.read = !add_unless && is_tagged(a, "acquire") ? a : &once,
		.write = !add_unless && is_tagged(a, "release") ? a : &once,
		.failed_read = &once,
		.fenced = add_unless || is_tagged(a, "mb"),
	};
}

static struct trace_event *rmw_read(struct run *r, int loc, struct tval addr,
				    struct value v, const struct annot *a, struct srcpos pos)
{
	struct trace_event *e = emit(r, EV_READ, loc, pos);

	set_annot(e, a);
	e->atomic = true;
	e->addr_deps = addr.deps;
	e->val = v;
	e->has_val = true;
	return e;
}

static void rmw_write(struct run *r, const struct trace_event *read, struct tval addr,
		      struct tval v, const struct annot *a, struct srcpos pos)
{
	int read_index = local_index(r, read);
	struct trace_event *w = store(r, read->loc, addr, v, pos);

	set_annot(w, a);
	w->atomic = true;
	w->rmw_read = read_index;
}

/*
 * xchg, cmpxchg, atomic_*_return, atomic_fetch_*, atomic_add_unless, as
 * herd7 represents them (rmw_shape()): R* W* when the RMW happens, with
 * F[mb] around under lkmmv1 if fully ordered; a lone R* when a conditional
 * one fails.
 */
static struct tval rmw(struct run *r, const struct expr *e)
{
	struct rmw_shape shape = rmw_shape(r, e);
	struct tval addr = eval(r, e->args[0]);
	struct tval operand = e->nargs > 1 ? eval(r, e->args[1]) : (struct tval){ zero, 0, false };
	struct tval third = e->nargs > 2 ? eval(r, e->args[2]) : (struct tval){ zero, 0, false };
	int loc = loc_of(r, addr);
	struct tval old = { zero, 0, true }, stored = { zero, 0, false }, result;
	struct trace_event *read;
	bool succeeds = true;

	if (loc < 0)
		return (struct tval){ zero, 0, false };
	old.v = guess(r, loc, e->pos);
	if (value_is_symbolic(old.v) && (e->kind == X_CMPXCHG || e->kind == X_ADD_UNLESS)) {
		r->abandoned = true;	/* see binary() */
		return (struct tval){ zero, 0, false };
	}
	switch (e->kind) {
	case X_CMPXCHG:
		succeeds = value_eq(old.v, operand.v);
		break;
	case X_ADD_UNLESS:
		succeeds = !value_eq(old.v, third.v);
		break;
	default:
		break;
	}
	if (!succeeds) {
		read = rmw_read(r, loc, addr, old.v, shape.failed_read, e->pos);
		old.deps = UINT64_C(1) << local_index(r, read);
		return e->kind == X_ADD_UNLESS ? (struct tval){ int_value(0), 0, false } : old;
	}
	if (shape.fenced)
		fence(r, &mb, e->pos);
	read = rmw_read(r, loc, addr, old.v, shape.read, e->pos);
	if (e->kind == X_CMPXCHG) {	/* herd7: read value := expected value */
		read->pinned = true;
		read->pin_deps = operand.deps;
	}
	old.deps = UINT64_C(1) << local_index(r, read);
	result = old;
	switch (e->kind) {
	case X_XCHG:
		stored = operand;
		break;
	case X_CMPXCHG:
		stored = third;
		break;
	case X_ADD_UNLESS:
		stored.v = int_value(apply_rmw_op(r, OP_ADD, old, operand));
		stored.deps = old.deps | operand.deps;
		result = (struct tval){ int_value(1), 0, false };
		break;
	default:	/* X_ATOMIC_RETURN */
		stored.v = int_value(apply_rmw_op(r, e->op, old, operand));
		stored.deps = old.deps | operand.deps;
		if (!e->fetch)
			result = stored;
		break;
	}
	rmw_write(r, read, addr, stored, shape.write, e->pos);
	if (shape.fenced)
		fence(r, &mb, e->pos);
	return result;
}

/*
 * spin_trylock(): LKR LKW and 1, or LF and 0.  spin_is_locked(): RL/RU.
 * As in herd7, the value of a query that is a read of the lock (LF, RL,
 * RU) depends on that read: a store of it carries a data dependency, a
 * branch on it a control dependency.  A successful trylock's 1 depends on
 * nothing: herd7 counts the lock's read and write as no load.
 */
static struct tval lock_query(struct run *r, const struct expr *e)
{
	struct tval addr = eval(r, e->args[0]);
	int loc = loc_of(r, addr);
	struct trace_event *ev;
	bool yes;

	if (loc < 0)
		return (struct tval){ zero, 0, false };
	yes = choose(r, 2, e->pos) == 0;
	if (e->kind == X_TRYLOCK && yes) {
		emit(r, EV_LOCK_READ, loc, e->pos)->addr_deps = addr.deps;
		emit(r, EV_LOCK_WRITE, loc, e->pos)->addr_deps = addr.deps;
		return (struct tval){ int_value(1), 0, false };
	}
	ev = emit(r, e->kind == X_TRYLOCK ? EV_LOCK_FAIL :
		  yes ? EV_READ_LOCKED : EV_READ_UNLOCKED, loc, e->pos);
	ev->addr_deps = addr.deps;
	return (struct tval){ int_value(yes), UINT64_C(1) << local_index(r, ev), false };
}

/* __srcu{srcu-lock}(s) as a value: herd7 makes up a per-call index. */
static struct tval srcu_value(struct run *r, const struct expr *e)
{
	struct tval addr = eval(r, e->args[0]);
	int loc = loc_of(r, addr);
	struct trace_event *ev;

	if (loc < 0)
		return (struct tval){ zero, 0, false };
	ev = emit(r, EV_SRCU, loc, e->pos);
	set_annot(ev, &e->annot);
	ev->addr_deps = addr.deps;
	if (e->annot.n == 1 && !strcmp(e->annot.tags[0], "srcu-lock")) {
		ev->val = int_value((r->proc + 1) * 307LL + (r->nevents - 1) * 599LL);
		ev->has_val = true;
		return (struct tval){ ev->val, UINT64_C(1) << local_index(r, ev), false };
	}
	return (struct tval){ zero, 0, false };
}

/* A register not yet seen by that pointer: found by name, out of reg()'s way. */
static __attribute__((noinline)) void reg_miss(struct run *r, struct reg_seen *s, const char *name,
					       struct srcpos pos)
{
	int i = program_reg(r->prog, r->proc, name);

	if (i < 0)
		die_at(pos, "unknown register or parameter '%s' in P%d", name, r->proc);
	*s = (struct reg_seen){ name, r->proc, i };
}

static inline struct tval *reg(struct run *r, const char *name, struct srcpos pos)
{
	/* Names are arena strings, 16-byte aligned: the low four bits say nothing. */
	struct reg_seen *s = &r->seen[(uintptr_t)name / 16 % (sizeof(r->seen) / sizeof(*r->seen))];

	if (s->name != name || s->proc != r->proc)
		reg_miss(r, s, name, pos);
	return &r->regs[s->reg];
}

static struct tval eval(struct run *r, const struct expr *e)
{
	struct tval v = { zero, 0, false };
	int loc;

	if (r->abandoned)
		return v;
	switch (e->kind) {
	case X_CONST:
		v.v = int_value(e->value);
		return v;
	case X_NAME:
		return *reg(r, e->name, e->pos);
	case X_ADDR_OF:
		loc = program_loc(r->prog, e->name);
		if (loc < 0)
			die_at(e->pos, "unknown variable '%s'", e->name);
		v.v = (struct value){ true, loc };
		return v;
	case X_LOAD:
		if (e->annot.n)
			return load(r, eval_address(r, e->args[0], "__load"), &e->annot,
				    false, e->pos);
		return load(r, eval(r, e->args[0]), NULL, false, e->pos);
	case X_UNARY:
		v = eval(r, e->args[0]);
		v.copy = false;
		if (e->op == '!')
			v.v = int_value(value_eq(v.v, zero));
		else if (e->op == '-')
			v.v = int_value(-int_of(r, v));
		else
			v.v = int_value(~int_of(r, v));
		return v;
	case X_BINARY:
		return binary(r, e);
	case X_XCHG:
	case X_CMPXCHG:
	case X_ATOMIC_RETURN:
	case X_ADD_UNLESS:
		return rmw(r, e);
	case X_TRYLOCK:
	case X_ISLOCKED:
		return lock_query(r, e);
	case X_SRCU:
		return srcu_value(r, e);
	case X_CALL:
		break;
	}
	die_at(e->pos, "Unknown macro %s", e->name);
}

static void exec_stmt(struct run *r, const struct stmt *s);

/*
 * Run the branch taken by cond; its events depend on the loads the
 * condition read (herd7 gives no control dependency past the join point).
 */
static bool run_branch(struct run *r, const struct expr *cond, const struct stmt *then,
		       const struct stmt *otherwise)
{
	struct tval c = eval(r, cond);
	uint64_t outer = r->ctrl;
	bool taken = !value_eq(c.v, zero);

	if (value_is_symbolic(c.v)) {
		r->abandoned = true;	/* see binary() */
		return false;
	}
	r->ctrl |= c.deps;
	exec_stmt(r, taken ? then : otherwise);
	r->ctrl = outer;
	return taken;
}

static void exec_store(struct run *r, const struct stmt *s)
{
	struct tval addr = s->annot.n ? eval_address(r, s->args[0], "__store")
				      : eval(r, s->args[0]);
	struct tval v = eval(r, s->args[1]);
	int loc = loc_of(r, addr);
	struct trace_event *e;

	if (loc < 0)
		return;
	e = store(r, loc, addr, v, s->pos);
	set_annot(e, &s->annot);
}

/*
 * __atomic_op{a}(addr, op, v): R*[noreturn] W*[once] under lkmmv1 (the
 * annotation dropped), R*[a] W*[a] under lkmmv2.
 */
static void exec_atomic_op(struct run *r, const struct stmt *s)
{
	bool as_written = r->prog->rmw_style == RMW_LKMMV2;
	struct tval addr = eval(r, s->args[0]);
	struct tval operand = eval(r, s->args[1]);
	int loc = loc_of(r, addr);
	struct trace_event *read;
	struct tval old = { zero, 0, true }, stored = { zero, 0, false };

	if (loc < 0)
		return;
	old.v = guess(r, loc, s->pos);
	read = rmw_read(r, loc, addr, old.v, as_written ? &s->annot : &noreturn, s->pos);
	old.deps = UINT64_C(1) << local_index(r, read);
	stored.v = int_value(apply_rmw_op(r, s->op, old, operand));
	stored.deps = old.deps | operand.deps;
	rmw_write(r, read, addr, stored, as_written ? &s->annot : &once, s->pos);
}

static void exec_lock(struct run *r, const struct stmt *s)
{
	struct tval addr = eval(r, s->args[0]);
	int loc = loc_of(r, addr);

	if (loc < 0)
		return;
	if (s->kind == S_LOCK) {
		emit(r, EV_LOCK_READ, loc, s->pos)->addr_deps = addr.deps;
		emit(r, EV_LOCK_WRITE, loc, s->pos)->addr_deps = addr.deps;
	} else {
		emit(r, EV_UNLOCK, loc, s->pos)->addr_deps = addr.deps;
	}
}

static void exec_srcu(struct run *r, const struct stmt *s)
{
	struct tval addr = eval(r, s->args[0]);
	int loc = loc_of(r, addr);
	struct trace_event *e;

	if (loc < 0)
		return;
	e = emit(r, EV_SRCU, loc, s->pos);
	set_annot(e, &s->annot);
	e->addr_deps = addr.deps;
	if (s->nargs > 1) {
		struct tval v = eval(r, s->args[1]);

		e->val = v.v;
		e->has_val = true;
		e->data_deps = v.deps;
	}
}

static void exec_while(struct run *r, const struct stmt *s)
{
	int iterations = 0;

	for (;;) {
		if (r->abandoned)
			return;
		if (iterations++ == LOOP_UNROLL) {
			r->abandoned = true;	/* herd7 cuts the run off here */
			return;
		}
		if (!run_branch(r, s->args[0], s->body[0], NULL))
			return;
	}
}

static void exec_stmt(struct run *r, const struct stmt *s)
{
	int i;

	if (r->abandoned || !s)
		return;
	switch (s->kind) {
	case S_BLOCK:
		for (i = 0; i < s->nbody; i++)
			exec_stmt(r, s->body[i]);
		break;
	case S_DECL:
		break;
	case S_ASSIGN:
		if (s->name) {
			struct tval v = eval(r, s->args[0]);

			*reg(r, s->name, s->pos) = v;
		} else {
			eval(r, s->args[0]);
		}
		break;
	case S_STORE:
		exec_store(r, s);
		break;
	case S_IF:
		run_branch(r, s->args[0], s->body[0], s->body[1]);
		break;
	case S_WHILE:
		exec_while(r, s);
		break;
	case S_FENCE:
		set_annot(emit(r, EV_FENCE, -1, s->pos), &s->annot);
		break;
	case S_LOCK:
	case S_UNLOCK:
		exec_lock(r, s);
		break;
	case S_ATOMIC_OP:
		exec_atomic_op(r, s);
		break;
	case S_SRCU:
		exec_srcu(r, s);
		break;
	case S_CALL:
		die_at(s->pos, "Unknown macro %s", s->name);
	}
}

static int intern(char ***names, int *n, const char *name)
{
	int i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*names)[i], name))
			return i;
	*names = xrealloc(*names, (*n + 1) * sizeof(**names));
	(*names)[*n] = xstrdup(name);
	return (*n)++;
}

static void collect_regs(struct proc_info *pi, const struct stmt *s)
{
	int i;

	if (!s)
		return;
	if ((s->kind == S_DECL || s->kind == S_ASSIGN) && s->name)
		intern(&pi->reg_names, &pi->nregs, s->name);
	for (i = 0; i < s->nbody; i++)
		collect_regs(pi, s->body[i]);
}

static void collect_prop_names(struct program *p, const struct prop *pr)
{
	const struct cond_loc *locs[2];
	int i;

	if (!pr)
		return;
	collect_prop_names(p, pr->left);
	collect_prop_names(p, pr->right);
	if (pr->kind != P_ATOM)
		return;
	locs[0] = &pr->loc;
	locs[1] = pr->rhs_is_loc ? &pr->rhs_loc : NULL;
	for (i = 0; i < 2 && locs[i]; i++) {
		if (locs[i]->proc >= p->nprocs)
			die_at(locs[i]->pos, "the condition names process %d, which does not exist",
			       locs[i]->proc);
		if (locs[i]->proc >= 0)
			intern(&p->procs[locs[i]->proc].reg_names,
			       &p->procs[locs[i]->proc].nregs, locs[i]->name);
		else
			intern(&p->loc_names, &p->nlocs, locs[i]->name);
	}
	if (!pr->rhs_is_loc && pr->value.is_addr)
		intern(&p->loc_names, &p->nlocs, pr->value.addr_of);
}

/* Every global: parameters, init section, and names used as values. */
static void collect_names(struct program *p)
{
	const struct litmus *t = p->test;
	int i, j;

	for (i = 0; i < t->ninit; i++) {
		const struct init_item *it = &t->init[i];

		if (it->proc < 0)
			intern(&p->loc_names, &p->nlocs, it->name);
		if (it->has_value && it->value.is_addr)
			intern(&p->loc_names, &p->nlocs, it->value.addr_of);
		if (it->proc >= t->nprocs)
			die_at(it->pos, "register of process %d, which does not exist", it->proc);
		if (it->proc >= 0)
			intern(&p->procs[it->proc].reg_names, &p->procs[it->proc].nregs,
			       it->name);
	}
	for (i = 0; i < t->nprocs; i++) {
		struct proc_info *pi = &p->procs[i];

		for (j = 0; j < t->procs[i].nparams; j++) {
			intern(&p->loc_names, &p->nlocs, t->procs[i].params[j].name);
			intern(&pi->reg_names, &pi->nregs, t->procs[i].params[j].name);
		}
		collect_regs(pi, t->procs[i].body);
	}
	for (i = 0; i < t->nlocations; i++) {
		const struct cond_loc *l = &t->locations[i];

		if (l->proc >= t->nprocs)
			die_at(l->pos, "'locations' names process %d, which does not exist",
			       l->proc);
		if (l->proc >= 0)
			intern(&p->procs[l->proc].reg_names, &p->procs[l->proc].nregs, l->name);
		else
			intern(&p->loc_names, &p->nlocs, l->name);
	}
	collect_prop_names(p, t->filter);
	collect_prop_names(p, t->cond);
}

static struct value init_value(const struct program *p, const struct init_value *v)
{
	if (v->is_addr)
		return (struct value){ true, program_loc(p, v->addr_of) };
	return int_value(v->n);
}

/* The integer types whose values herd7 wraps (checked against herd7 7.57). */
static const struct {
	const char *type;
	struct value_width width;
} wrapping_types[] = {
	{ "char", { 8, false } }, { "int8_t", { 8, false } },
	{ "uint8_t", { 8, true } },
	{ "short", { 16, false } }, { "int16_t", { 16, false } },
	{ "uint16_t", { 16, true } },
	{ "uint32_t", { 32, true } }, { "atomic_t", { 32, true } },
};

static struct value_width width_of_type(const char *type)
{
	size_t i;

	for (i = 0; type && i < sizeof(wrapping_types) / sizeof(wrapping_types[0]); i++)
		if (!strcmp(type, wrapping_types[i].type))
			return wrapping_types[i].width;
	return (struct value_width){ 0, false };
}

static void set_initial_values(struct program *p)
{
	const struct litmus *t = p->test;
	int i;

	p->loc_init = xcalloc(p->nlocs, sizeof(*p->loc_init));
	p->loc_width = xcalloc(p->nlocs, sizeof(*p->loc_width));
	for (i = 0; i < t->ninit; i++) {
		const struct init_item *it = &t->init[i];

		if (it->proc >= 0)
			continue;
		if (it->has_value)
			p->loc_init[program_loc(p, it->name)] = init_value(p, &it->value);
		p->loc_width[program_loc(p, it->name)] = width_of_type(it->type);
	}
}

/* Registers at the start of a run: parameters point at their globals. */
static void start_regs(struct run *r)
{
	const struct litmus *t = r->prog->test;
	const struct process *pr = &t->procs[r->proc];
	int i;

	memset(r->start, 0, r->prog->procs[r->proc].nregs * sizeof(*r->start));
	for (i = 0; i < pr->nparams; i++)
		r->start[program_reg(r->prog, r->proc, pr->params[i].name)].v =
			(struct value){ true, program_loc(r->prog, pr->params[i].name) };
	for (i = 0; i < t->ninit; i++)
		if (t->init[i].proc == r->proc && t->init[i].has_value)
			r->start[program_reg(r->prog, r->proc, t->init[i].name)].v =
				init_value(r->prog, &t->init[i].value);
}

static void reset_run(struct run *r)
{
	memcpy(r->regs, r->start, r->prog->procs[r->proc].nregs * sizeof(*r->regs));
	r->ctrl = 0;
	r->nevents = 0;
	r->depth = 0;
	r->abandoned = false;
}

/* The run just made, its events and registers in the program's arena. */
static void save_trace(struct run *r, struct proc_info *pi, struct arena *runs)
{
	struct trace *tr;
	int i;

	if (pi->ntraces == r->limits->max_traces)
		die(EXIT_LIMIT, "%s: process P%d has more than %d runs (raise -max-traces)",
		    r->prog->test->file, r->proc, r->limits->max_traces);
	pi->traces = grow_array(pi->traces, pi->ntraces, &pi->traces_cap, sizeof(*pi->traces));
	tr = &pi->traces[pi->ntraces++];
	tr->nevents = r->nevents;
	/* One block, the registers after the events (their alignment is the events'). */
	tr->events = arena_alloc(runs, r->nevents * sizeof(*tr->events) +
				       (pi->nregs + 1) * sizeof(*tr->regs));
	memcpy(tr->events, r->events, r->nevents * sizeof(*tr->events));
	tr->regs = (struct value *)(tr->events + r->nevents);
	for (i = 0; i < pi->nregs; i++)
		tr->regs[i] = r->regs[i].v;
}

/* All runs of one process, odometer style. */
static void run_process(struct program *p, int proc, struct value_sets *sets,
			const struct event_limits *limits)
{
	struct proc_info *pi = &p->procs[proc];
	struct run *r = sets->run;
	int d;

	r->prog = p;
	r->sets = sets;
	r->limits = limits;
	r->proc = proc;
	r->nchoices = 0;
	start_regs(r);
	pi->ntraces = 0;	/* a new round: the last one's runs stay in the arena until the end */
	for (;;) {
		reset_run(r);
		exec_stmt(r, p->test->procs[proc].body);
		if (!r->abandoned)
			save_trace(r, pi, &p->runs);
		for (d = r->depth - 1; d >= 0 && r->choice[d] + 1 >= r->alternatives[d]; d--)
			;
		if (d < 0)
			break;
		r->choice[d]++;
		r->nchoices = d + 1;
	}
}

static struct value_set new_value_set(int nlocs)
{
	struct value_set s;

	s.n = xcalloc(nlocs ? nlocs : 1, sizeof(*s.n));
	s.v = xcalloc(nlocs ? nlocs : 1, sizeof(*s.v));
	return s;
}

static void free_value_set(struct value_set *s, int nlocs)
{
	int i;

	for (i = 0; s->v && i < nlocs; i++)
		free(s->v[i]);
	free(s->v);
	free(s->n);
	s->v = NULL;
	s->n = NULL;
}

static void free_build_state(struct program *p)
{
	struct value_sets *sets = p->building;

	free_value_set(&sets->known, p->nlocs);
	free_value_set(&sets->found, p->nlocs);
	free_value_set(&sets->consts, 1);
	if (sets->run) {
		free(sets->run->regs);
		free(sets->run);
	}
	free(sets);
	p->building = NULL;
}

static void collect_expr_constants(const struct expr *e, struct value_set *consts,
				   const struct event_limits *limits)
{
	int i;

	if (e->kind == X_CONST)
		add_value(consts, 0, int_value(e->value), limits);
	for (i = 0; i < e->nargs; i++)
		collect_expr_constants(e->args[i], consts, limits);
}

static void collect_constants(const struct stmt *s, struct value_set *consts,
			      const struct event_limits *limits)
{
	int i;

	if (!s)
		return;
	for (i = 0; i < s->nargs; i++)
		collect_expr_constants(s->args[i], consts, limits);
	for (i = 0; i < s->nbody; i++)
		collect_constants(s->body[i], consts, limits);
}

/*
 * A store's value may be justified only through a cycle: in
 * "if (READ_ONCE(*x)) r = 1; WRITE_ONCE(*y, r);" racing with
 * "WRITE_ONCE(*x, READ_ONCE(*y));", x = 1 needs y = 1 and vice versa.
 * herd7 finds such executions by solving equations; here every integer
 * constant of the code is a candidate value of every location, and so is
 * the symbolic value, for cycles that carry no constant at all (herd7
 * leaves those unsolved).  enumerate.c keeps only the executions whose
 * concrete values some store really derives.
 */
static void seed_constants(const struct program *p, struct value_sets *sets,
			   const struct event_limits *limits)
{
	struct value_set *consts = &sets->consts;
	int i, k;

	*consts = new_value_set(1);
	for (i = 0; i < p->nprocs; i++)
		collect_constants(p->test->procs[i].body, consts, limits);
	add_value(consts, 0, symbolic, limits);
	for (i = 0; i < p->nlocs; i++) {
		for (k = 0; k < consts->n[0]; k++) {
			add_value(&sets->known, i, consts->v[0][k], limits);
			add_value(&sets->found, i, consts->v[0][k], limits);
		}
	}
	free_value_set(consts, 1);
}

/*
 * How deep a chain of justification can be in one execution: the most
 * stores that depend on a load (for their value, their address or whether
 * they happen) the processes can make together.
 */
static int chain_depth_bound(const struct program *p)
{
	int i, j, k, total = 0;

	for (i = 0; i < p->nprocs; i++) {
		int most = 0;

		for (j = 0; j < p->procs[i].ntraces; j++) {
			const struct trace *tr = &p->procs[i].traces[j];
			int n = 0;

			for (k = 0; k < tr->nevents; k++)
				n += tr->events[k].kind == EV_WRITE &&
				     (tr->events[k].data_deps | tr->events[k].addr_deps |
				      tr->events[k].ctrl_deps);
			if (n > most)
				most = n;
		}
		total += most;
	}
	return total;
}

void program_build(struct program *p, const struct litmus *t, const struct event_limits *limits,
		   enum rmw_style rmw_style)
{
	struct value_sets *sets;
	struct tval *regs;
	int i, round, nregs = 0;

	p->test = t;
	p->rmw_style = rmw_style;
	p->nprocs = t->nprocs;
	p->procs = xcalloc(t->nprocs, sizeof(*p->procs));
	sets = p->building = xcalloc(1, sizeof(*sets));
	collect_names(p);
	for (i = 0; i < p->nprocs; i++)
		nregs = p->procs[i].nregs > nregs ? p->procs[i].nregs : nregs;
	/* Not cleared: a run writes its events and choices before it reads them. */
	regs = xcalloc(2 * (nregs ? nregs : 1), sizeof(*regs));
	sets->run = xmalloc(sizeof(*sets->run));
	memset(sets->run->seen, 0, sizeof(sets->run->seen));
	sets->run->regs = regs;
	sets->run->start = regs + (nregs ? nregs : 1);
	set_initial_values(p);
	sets->known = new_value_set(p->nlocs);
	sets->found = new_value_set(p->nlocs);
	for (i = 0; i < p->nlocs; i++) {
		add_value(&sets->known, i, p->loc_init[i], limits);
		add_value(&sets->found, i, p->loc_init[i], limits);
	}
	seed_constants(p, sets, limits);
	/*
	 * Round k runs with the values whose justification is at most k
	 * stores deep: one store of a constant or an address, then a chain of
	 * stores of values computed from loads.  No execution has a chain
	 * longer than its number of computed stores, so rounds stop there even
	 * when the sets keep growing (atomic_inc() makes ever larger values).
	 */
	for (round = 0;; round++) {
		sets->grew = false;
		for (i = 0; i < p->nprocs; i++)
			run_process(p, i, sets, limits);
		if (!sets->grew || round > chain_depth_bound(p))
			break;
		for (i = 0; i < p->nlocs; i++) {
			int k;

			for (k = 0; k < sets->found.n[i]; k++)
				add_value(&sets->known, i, sets->found.v[i][k], limits);
		}
	}
	free_build_state(p);
}

void program_free(struct program *p)
{
	int i, j;

	if (p->building)
		free_build_state(p);
	arena_free(&p->runs);
	for (i = 0; i < p->nprocs; i++) {
		free(p->procs[i].traces);
		for (j = 0; j < p->procs[i].nregs; j++)
			free(p->procs[i].reg_names[j]);
		free(p->procs[i].reg_names);
	}
	for (i = 0; i < p->nlocs; i++)
		free(p->loc_names[i]);
	free(p->loc_names);
	free(p->loc_init);
	free(p->loc_width);
	free(p->procs);
	free(p);
}

static const char *const kind_names[] = {
	[EV_READ] = "R", [EV_WRITE] = "W", [EV_FENCE] = "F",
	[EV_LOCK_READ] = "LKR", [EV_LOCK_WRITE] = "LKW", [EV_UNLOCK] = "UL",
	[EV_LOCK_FAIL] = "LF", [EV_READ_LOCKED] = "RL", [EV_READ_UNLOCKED] = "RU",
	[EV_SRCU] = "SRCU",
};

static void print_deps(const char *name, uint64_t deps, struct strbuf *sb)
{
	int i;
	const char *sep = "";

	if (!deps)
		return;
	sb_addf(sb, " %s:", name);
	for (i = 0; i < 64; i++) {
		if (deps >> i & 1) {
			sb_addf(sb, "%se%d", sep, i);
			sep = ",";
		}
	}
}

void event_print(const struct program *p, const struct event *e, struct strbuf *sb)
{
	int t;

	sb_addf(sb, "%s%s", kind_names[e->kind], e->atomic ? "*" : "");
	if (e->ntags) {
		sb_addf(sb, "[");
		for (t = 0; t < e->ntags; t++)
			sb_addf(sb, "%s%s", t ? "," : "", e->tags[t]);
		sb_addf(sb, "]");
	}
	if (e->loc >= 0)
		sb_addf(sb, " %s", p->loc_names[e->loc]);
	if (e->has_val) {
		sb_addf(sb, "=");
		value_print(p, e->val, sb);
	}
}

static void print_event(const struct program *p, int i, const struct trace_event *e,
			struct strbuf *sb)
{
	const struct event view = {
		.kind = e->kind, .atomic = e->atomic, .ntags = e->ntags, .tags = e->tags,
		.loc = e->loc, .val = e->val, .has_val = e->has_val,
	};

	sb_addf(sb, "    e%d: ", i);
	event_print(p, &view, sb);
	if (e->rmw_read >= 0)
		sb_addf(sb, " rmw:e%d", e->rmw_read);
	print_deps("addr", e->addr_deps, sb);
	print_deps("data", e->data_deps, sb);
	print_deps("ctrl", e->ctrl_deps, sb);
	sb_addf(sb, "\n");
}

void program_text(const struct program *p, struct strbuf *out)
{
	int i, j, k;

	sb_addf(out, "Test %s\nLocations:", p->test->name);
	for (i = 0; i < p->nlocs; i++) {
		sb_addf(out, " %s=", p->loc_names[i]);
		value_print(p, p->loc_init[i], out);
	}
	sb_addf(out, "\n");
	for (i = 0; i < p->nprocs; i++) {
		const struct proc_info *pi = &p->procs[i];

		sb_addf(out, "P%d: %d run%s\n", i, pi->ntraces, pi->ntraces == 1 ? "" : "s");
		for (j = 0; j < pi->ntraces; j++) {
			const struct trace *tr = &pi->traces[j];

			sb_addf(out, "  run %d:", j);
			for (k = 0; k < pi->nregs; k++) {
				sb_addf(out, " %s=", pi->reg_names[k]);
				value_print(p, tr->regs[k], out);
			}
			sb_addf(out, "\n");
			for (k = 0; k < tr->nevents; k++)
				print_event(p, k, &tr->events[k], out);
		}
	}
}
