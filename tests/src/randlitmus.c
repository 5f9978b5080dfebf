/*
 * randlitmus.c - random LKMM litmus tests, deterministic from a seed.
 *
 *     randlitmus [-values K] SEED COUNT DIR
 *                                   writes DIR/rSEED-N.litmus, N = 0..COUNT-1
 *
 * Each test has 2-4 processes of a few statements drawn from every family
 * of linux-kernel.def: ONCE accesses, acquire/release, the fences and the
 * smp_mb__*() fences, xchg/cmpxchg and their _relaxed/_acquire/_release
 * forms, the atomic_t operations, spinlocks (lock/unlock, trylock,
 * is_locked), RCU and SRCU, rcu_assign_pointer()/rcu_dereference(), with
 * address, data and control dependencies, and an exists clause over some
 * registers and locations.  Tests are small so that herd7 decides each in
 * well under a second; make fidelity-sweep compares lkmm with herd7 on them.
 *
 * -values K folds every constant a store writes into 1..K (the tests are
 * otherwise the same): with K = 1, stores of equal values to one location,
 * which a few of herd7's counts turn on, are in most tests.
 *
 * The same seed gives the same tests on every machine: the generator uses
 * its own PRNG (splitmix64) and no library randomness.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number in [0, n). */
static int rnd(int n)
{
	return (int)(rng_next() % (uint64_t)n);
}

static const char *pick(const char *const *v, int n)
{
	return v[rnd(n)];
}

#define PICK(v) pick(v, (int)(sizeof(v) / sizeof((v)[0])))

/* The shared locations a test may use. */
enum loc { L_X, L_Y, L_Z, L_A, L_B, L_S, L_SS, L_P, NLOCS };
static const char *const loc_name[NLOCS] = { "x", "y", "z", "a", "b", "s", "ss", "p" };
static const char *const loc_param[NLOCS] = {
	"int *x", "int *y", "int *z", "atomic_t *a", "atomic_t *b",
	"spinlock_t *s", "struct srcu_struct *ss", "int **p",
};

#define MAXREGS 8
#define BUFSZ 4096

struct buf {
	char s[BUFSZ];
	size_t n;
};

static void bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(b->s + b->n, BUFSZ - b->n, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= BUFSZ - b->n) {
		fprintf(stderr, "randlitmus: test too large\n");
		exit(1);
	}
	b->n += (size_t)k;
}

enum regkind { R_INT, R_PTR };

struct proc {
	struct buf body;
	bool uses[NLOCS];
	int nregs;
	enum regkind kind[MAXREGS];
	bool observable[MAXREGS];	/* may appear in the exists clause */
	int budget;			/* memory events still to generate */
	int depth;			/* nesting of blocks */
	int nptr;			/* registers holding a pointer: their indices */
	int ptr[MAXREGS];
};

struct test {
	int nprocs;
	struct proc p[4];
	bool uses[NLOCS];
};

static void indent(struct proc *p)
{
	bprintf(&p->body, "\t");
	for (int i = 0; i < p->depth; i++)
		bprintf(&p->body, "\t");
}

static int new_reg(struct proc *p, enum regkind k, bool observable)
{
	int r = p->nregs++;

	p->kind[r] = k;
	p->observable[r] = observable;
	if (k == R_PTR)
		p->ptr[p->nptr++] = r;
	return r;
}

/* An int register already loaded, or -1. */
static int some_int_reg(struct proc *p)
{
	int c[MAXREGS], n = 0;

	for (int r = 0; r < p->nregs; r++)
		if (p->kind[r] == R_INT)
			c[n++] = r;
	return n ? c[rnd(n)] : -1;
}

/* How many of x, y, z and of a, b this test uses: few, so that processes meet. */
static int nints, natomics;
/* Out of 5, how often a store's value comes from a register (data dependency). */
static int depbias;
/* -values K: constants stored are 1..K; 0: as drawn. */
static int nvalues;

/* A constant to store, drawn as v in 1..3, folded into 1..K by -values K. */
static int stored(int v)
{
	return nvalues ? 1 + (v - 1) % nvalues : v;
}

static enum loc int_loc(struct proc *p)
{
	enum loc l = (enum loc)rnd(nints);

	p->uses[l] = true;
	return l;
}

static enum loc atomic_loc(struct proc *p)
{
	enum loc l = natomics > 1 && rnd(2) ? L_B : L_A;

	p->uses[l] = true;
	return l;
}

/* A value to store: a constant, or (a data dependency) one computed from a register. */
static void value(struct proc *p, char *out, size_t n)
{
	int r = some_int_reg(p);

	if (r >= 0 && rnd(5) < depbias) {
		switch (rnd(4)) {
		case 0: case 1: snprintf(out, n, "r%d", r); break;
		case 2: snprintf(out, n, "r%d + 1", r); break;
		default: snprintf(out, n, "(r%d & 1) + 1", r); break;
		}
	} else {
		snprintf(out, n, "%d", stored(1 + rnd(rnd(4) ? 2 : 3)));
	}
}

static void gen_stmt(struct proc *p, bool in_lock);

/* A store to an int location: ONCE, release, store_mb, plain, or via a pointer register. */
static void gen_store(struct proc *p)
{
	char v[64];
	enum loc l = int_loc(p);

	value(p, v, sizeof(v));
	indent(p);
	if (p->nptr && rnd(3) == 0) {	/* address dependency */
		bprintf(&p->body, "WRITE_ONCE(*r%d, %s);\n", p->ptr[rnd(p->nptr)], v);
		p->budget--;
		return;
	}
	switch (rnd(10)) {
	case 0: case 1: case 2: case 3: case 4:
		bprintf(&p->body, "WRITE_ONCE(*%s, %s);\n", loc_name[l], v); break;
	case 5: case 6: case 7:
		bprintf(&p->body, "smp_store_release(%s, %s);\n", loc_name[l], v); break;
	case 8:
		bprintf(&p->body, "smp_store_mb(*%s, %s);\n", loc_name[l], v); break;
	default:
		bprintf(&p->body, "*%s = %s;\n", loc_name[l], v); break;
	}
	p->budget--;
}

static void gen_load(struct proc *p)
{
	int r;

	if (p->nptr && rnd(3) == 0) {	/* address dependency */
		int q = p->ptr[rnd(p->nptr)];

		r = new_reg(p, R_INT, true);
		indent(p);
		bprintf(&p->body, "r%d = READ_ONCE(*r%d);\n", r, q);
		p->budget--;
		return;
	}
	enum loc l = int_loc(p);

	r = new_reg(p, R_INT, true);
	indent(p);
	switch (rnd(8)) {
	case 0: case 1: case 2: case 3:
		bprintf(&p->body, "r%d = READ_ONCE(*%s);\n", r, loc_name[l]); break;
	case 4: case 5: case 6:
		bprintf(&p->body, "r%d = smp_load_acquire(%s);\n", r, loc_name[l]); break;
	default:
		bprintf(&p->body, "r%d = *%s;\n", r, loc_name[l]); break;
	}
	p->budget--;
}

static void gen_fence(struct proc *p)
{
	static const char *const fences[] = {
		"smp_mb()", "smp_mb()", "smp_rmb()", "smp_wmb()",
		"smp_mb__before_atomic()", "smp_mb__after_atomic()",
		"smp_mb__after_spinlock()", "smp_mb__after_unlock_lock()",
		"barrier()", "synchronize_rcu()", "synchronize_rcu_expedited()",
	};

	indent(p);
	bprintf(&p->body, "%s;\n", PICK(fences));
}

static void gen_xchg(struct proc *p)
{
	static const char *const sfx[] = { "", "_relaxed", "_acquire", "_release" };
	enum loc l = int_loc(p);
	char v[64];
	int r;

	value(p, v, sizeof(v));
	r = new_reg(p, R_INT, true);
	indent(p);
	if (rnd(2))
		bprintf(&p->body, "r%d = xchg%s(%s, %s);\n", r, PICK(sfx), loc_name[l], v);
	else
		bprintf(&p->body, "r%d = cmpxchg%s(%s, %d, %s);\n", r, PICK(sfx),
			loc_name[l], rnd(3), v);
	p->budget -= 2;
}

static void gen_atomic(struct proc *p)
{
	static const char *const sfx[] = { "", "_relaxed", "_acquire", "_release" };
	static const char *const void_ops[] = { "add", "sub" };
	static const char *const void_ops1[] = { "inc", "dec" };
	static const char *const ret_ops[] = { "add_return", "fetch_add", "sub_return", "fetch_sub" };
	static const char *const ret_ops1[] = {
		"inc_return", "fetch_inc", "dec_return", "fetch_dec",
	};
	static const char *const tests1[] = { "dec_and_test", "inc_and_test" };
	enum loc l = atomic_loc(p);
	const char *a = loc_name[l];
	int r, k = rnd(12);

	indent(p);
	if (k < 2) {
		bprintf(&p->body, "atomic_%s(%d, %s);\n", PICK(void_ops), 1 + rnd(2), a);
		p->budget -= 2;
		return;
	}
	if (k < 3) {
		bprintf(&p->body, "atomic_%s(%s);\n", PICK(void_ops1), a);
		p->budget -= 2;
		return;
	}
	if (k == 3) {
		bprintf(&p->body, "atomic_set%s(%s, %d);\n", rnd(2) ? "" : "_release", a,
			rnd(4) ? stored(1 + rnd(2)) : -1);
		p->budget--;
		return;
	}
	r = new_reg(p, R_INT, true);
	switch (k) {
	case 4:
		bprintf(&p->body, "r%d = atomic_read%s(%s);\n", r, rnd(2) ? "" : "_acquire", a);
		p->budget--;
		return;
	case 5: case 6:
		bprintf(&p->body, "r%d = atomic_%s%s(%d, %s);\n", r, PICK(ret_ops), PICK(sfx),
			1 + rnd(2), a);
		break;
	case 7: case 8:
		bprintf(&p->body, "r%d = atomic_%s%s(%s);\n", r, PICK(ret_ops1), PICK(sfx), a);
		break;
	case 9:
		bprintf(&p->body, "r%d = atomic_xchg%s(%s, %d);\n", r, PICK(sfx), a, rnd(3));
		break;
	case 10:
		bprintf(&p->body, "r%d = atomic_cmpxchg%s(%s, %d, %d);\n", r, PICK(sfx), a,
			rnd(2), stored(1 + rnd(2)));
		break;
	default:
		if (rnd(3))
			bprintf(&p->body, "r%d = atomic_%s(%s);\n", r, PICK(tests1), a);
		else
			bprintf(&p->body, "r%d = atomic_%s(%d, %s);\n", r,
				rnd(2) ? "sub_and_test" : "add_negative", 1 + rnd(2), a);
		break;
	}
	p->budget -= 2;
}

/* spin_lock()...spin_unlock(), trylock with its critical section, or is_locked. */
static void gen_lock(struct proc *p)
{
	int r, k = rnd(6);

	p->uses[L_S] = true;
	if (k < 2 && p->depth < 2) {
		indent(p);
		bprintf(&p->body, "spin_lock(s);\n");
		if (rnd(4) == 0) {
			indent(p);
			bprintf(&p->body, "smp_mb__after_spinlock();\n");
		}
		p->budget -= 3;
		gen_stmt(p, true);
		if (rnd(2))
			gen_stmt(p, true);
		indent(p);
		bprintf(&p->body, "spin_unlock(s);\n");
		return;
	}
	r = new_reg(p, R_INT, true);
	if (k < 4 && p->depth < 2) {
		indent(p);
		bprintf(&p->body, "r%d = spin_trylock(s);\n", r);
		indent(p);
		bprintf(&p->body, "if (r%d) {\n", r);
		p->depth++;
		p->budget -= 3;
		gen_stmt(p, true);
		indent(p);
		bprintf(&p->body, "spin_unlock(s);\n");
		p->depth--;
		indent(p);
		bprintf(&p->body, "}\n");
		return;
	}
	indent(p);
	bprintf(&p->body, "r%d = spin_is_locked(s);\n", r);
	p->budget--;
}

static void gen_rcu(struct proc *p)
{
	int k = rnd(5);

	if (k < 2 && p->depth < 2) {
		indent(p);
		bprintf(&p->body, "rcu_read_lock();\n");
		gen_stmt(p, true);
		if (rnd(2))
			gen_stmt(p, true);
		indent(p);
		bprintf(&p->body, "rcu_read_unlock();\n");
		return;
	}
	if (k < 4 && p->depth < 2) {
		int r;

		p->uses[L_SS] = true;
		r = new_reg(p, R_INT, false);
		indent(p);
		if (rnd(4))
			bprintf(&p->body, "r%d = srcu_read_lock(ss);\n", r);
		else
			bprintf(&p->body, "r%d = srcu_down_read(ss);\n", r);
		gen_stmt(p, true);
		indent(p);
		bprintf(&p->body, "srcu_%s(ss, r%d);\n", rnd(4) ? "read_unlock" : "up_read", r);
		p->budget -= 2;
		return;
	}
	p->uses[L_SS] = true;
	indent(p);
	bprintf(&p->body, "synchronize_srcu%s(ss);\n", rnd(3) ? "" : "_expedited");
	p->budget--;
}

/* rcu_assign_pointer() of x, y or z to p, or a load of p into a pointer register. */
static void gen_pointer(struct proc *p)
{
	p->uses[L_P] = true;
	indent(p);
	if (rnd(2)) {
		enum loc l = int_loc(p);

		if (rnd(3))
			bprintf(&p->body, "rcu_assign_pointer(*p, %s);\n", loc_name[l]);
		else
			bprintf(&p->body, "WRITE_ONCE(*p, %s);\n", loc_name[l]);
	} else {
		int r = new_reg(p, R_PTR, true);

		bprintf(&p->body, "r%d = %s(*p);\n", r, rnd(3) ? "rcu_dereference" : "READ_ONCE");
	}
	p->budget--;
}

/* A control dependency: if on a loaded register, a store (sometimes an else). */
static void gen_ctrl(struct proc *p)
{
	int r = some_int_reg(p);

	if (r < 0 || p->depth >= 2) {
		gen_store(p);
		return;
	}
	indent(p);
	switch (rnd(3)) {
	case 0: bprintf(&p->body, "if (r%d) {\n", r); break;
	case 1: bprintf(&p->body, "if (r%d == %d) {\n", r, rnd(3)); break;
	default: bprintf(&p->body, "if (r%d != 0) {\n", r); break;
	}
	p->depth++;
	gen_store(p);
	p->depth--;
	indent(p);
	if (rnd(4) == 0) {
		bprintf(&p->body, "} else {\n");
		p->depth++;
		gen_stmt(p, true);
		p->depth--;
		indent(p);
	}
	bprintf(&p->body, "}\n");
}

/* One statement; in_lock: inside a block, keep it to a plain access or two. */
static void gen_stmt(struct proc *p, bool in_lock)
{
	int k = rnd(in_lock ? 10 : 24);

	if (p->nregs >= MAXREGS - 2)
		k = 0;
	if (k < 3)
		gen_store(p);
	else if (k < 6)
		gen_load(p);
	else if (k < 7)
		gen_fence(p);
	else if (k < 8)
		gen_xchg(p);
	else if (k < 9)
		gen_atomic(p);
	else if (k < 10)
		gen_ctrl(p);
	else if (k < 12)
		gen_fence(p);
	else if (k < 14)
		gen_lock(p);
	else if (k < 16)
		gen_rcu(p);
	else if (k < 18)
		gen_pointer(p);
	else if (k < 20)
		gen_ctrl(p);
	else if (k < 22)
		gen_atomic(p);
	else
		gen_xchg(p);
}

/* One atom of the condition: a register of some process or a location's final value. */
static bool gen_atom(const struct test *t, struct buf *b)
{
	for (int tries = 0; tries < 8; tries++) {
		if (rnd(4) == 0) {
			static const enum loc locs[] = { L_X, L_Y, L_Z, L_A, L_B };
			enum loc l = locs[rnd(5)];

			if (!t->uses[l])
				continue;
			bprintf(b, "%s=%d", loc_name[l], rnd(3));
			return true;
		}
		int i = rnd(t->nprocs);
		const struct proc *p = &t->p[i];
		int r;

		if (!p->nregs)
			continue;
		r = rnd(p->nregs);
		if (!p->observable[r])
			continue;
		if (p->kind[r] == R_PTR) {
			static const enum loc locs[] = { L_X, L_Y, L_Z };

			bprintf(b, "%d:r%d=%s", i, r, loc_name[locs[rnd(nints)]]);
		} else {
			bprintf(b, "%d:r%d=%d", i, r, rnd(3));
		}
		return true;
	}
	return false;
}

static void gen_test(FILE *f, const char *name)
{
	struct test t;
	struct buf cond = { .n = 0 };
	int total;

	memset(&t, 0, sizeof(t));
	t.nprocs = 2 + rnd(3);
	nints = rnd(4) ? 2 : 1 + 2 * rnd(2);
	natomics = 1 + (rnd(4) == 0);
	depbias = rnd(3) ? 2 : 4;
	total = t.nprocs == 4 ? 9 : t.nprocs == 3 ? 10 : 9;
	for (int i = 0; i < t.nprocs; i++) {
		struct proc *p = &t.p[i];
		int want = 1 + rnd(3);

		p->budget = total / t.nprocs + 1;
		for (int k = 0; k < want && p->budget > 0; k++)
			gen_stmt(p, false);
		for (int l = 0; l < NLOCS; l++)
			t.uses[l] |= p->uses[l];
	}

	fprintf(f, "C %s\n\n{\n", name);
	if (t.uses[L_P])
		fprintf(f, "\tp=%s;\n", loc_name[rnd(nints)]);
	if (t.uses[L_A] && rnd(3) == 0)
		fprintf(f, "\tatomic_t a = ATOMIC_INIT(1);\n");
	if (t.uses[L_X] && rnd(5) == 0)
		fprintf(f, "\tx=1;\n");
	fprintf(f, "}\n");
	for (int i = 0; i < t.nprocs; i++) {
		struct proc *p = &t.p[i];
		const char *sep = "";

		fprintf(f, "\nP%d(", i);
		for (int l = 0; l < NLOCS; l++) {
			/* P's pointers may point at x, y or z: pass all three */
			bool pass = p->uses[l] || (t.uses[L_P] && p->nptr && l <= L_Z && t.uses[l]);

			if (pass) {
				fprintf(f, "%s%s", sep, loc_param[l]);
				sep = ", ";
			}
		}
		if (!*sep)
			fprintf(f, "int *x");
		fprintf(f, ")\n{\n");
		for (int r = 0; r < p->nregs; r++)
			fprintf(f, "\tint %sr%d;\n", p->kind[r] == R_PTR ? "*" : "", r);
		if (p->nregs)
			fprintf(f, "\n");
		fprintf(f, "%s}\n", p->body.s);
	}

	int natoms = 1 + rnd(3), n = 0;

	for (int k = 0; k < natoms; k++) {
		struct buf atom = { .n = 0 };

		if (!gen_atom(&t, &atom))
			continue;
		if (n)
			bprintf(&cond, rnd(5) ? " /\\ " : " \\/ ");
		bprintf(&cond, "%s", atom.s);
		n++;
	}
	if (!n)
		bprintf(&cond, "true");
	fprintf(f, "\n%s (%s)\n", rnd(10) ? "exists" : "~exists", cond.s);
}

int main(int argc, char **argv)
{
	unsigned long long seed;
	long count;
	char *end;

	if (argc == 6 && !strcmp(argv[1], "-values")) {
		nvalues = (int)strtol(argv[2], &end, 10);
		if (*end || nvalues < 1 || nvalues > 3) {
			fprintf(stderr, "randlitmus: -values takes 1, 2 or 3\n");
			return 2;
		}
		argc -= 2;
		argv += 2;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: %s [-values K] SEED COUNT DIR\n", argv[0]);
		return 2;
	}
	errno = 0;
	seed = strtoull(argv[1], &end, 10);
	if (errno || *end) {
		fprintf(stderr, "randlitmus: bad seed '%s'\n", argv[1]);
		return 2;
	}
	count = strtol(argv[2], &end, 10);
	if (errno || *end || count < 0) {
		fprintf(stderr, "randlitmus: bad count '%s'\n", argv[2]);
		return 2;
	}
	for (long i = 0; i < count; i++) {
		char name[64], path[4096];
		FILE *f;

		/* each test from its own stream: test N does not depend on COUNT */
		rng_state = seed;
		rng_state = rng_next() ^ (uint64_t)i;
		rng_state = rng_next();
		snprintf(name, sizeof(name), "r%llu-%ld", seed, i);
		snprintf(path, sizeof(path), "%s/%s.litmus", argv[3], name);
		f = fopen(path, "w");
		if (!f) {
			fprintf(stderr, "randlitmus: %s: %s\n", path, strerror(errno));
			return 1;
		}
		gen_test(f, name);
		if (fclose(f)) {
			fprintf(stderr, "randlitmus: %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	return 0;
}
