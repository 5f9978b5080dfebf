/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lkmm-runtime.h - the part of every `lkmm run` module that does not depend
 * on the litmus test.
 *
 * The generated part (src/kernel-run/module.c writes it) describes the test in a
 * struct lkmm_test: the size of one instance of the shared locations, how
 * to initialise it, each process' body, and how to read the final state.
 * This part runs the processes in kthreads, one per CPU, over `size`
 * instances per run, and prints a histogram of the final states to the
 * kernel log, one "lkmm-run:" line each, for `lkmm run` to read back.
 *
 * The module parameters keep klitmus7's names and meaning.
 */
#ifndef LKMM_RUNTIME_H
#define LKMM_RUNTIME_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/gcd.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/vmalloc.h>

static unsigned int nruns = 10;
module_param(nruns, uint, 0444);
MODULE_PARM_DESC(nruns, "runs; each one starts the threads afresh");
static unsigned int size = 1000;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "instances of the test per run and thread group");
static unsigned int stride = 1;
module_param(stride, uint, 0444);
MODULE_PARM_DESC(stride, "step of the walk over the instances (coprime to size)");
static unsigned int avail;
module_param(avail, uint, 0444);
MODULE_PARM_DESC(avail, "CPUs to use (default: all online)");
static unsigned int ninst = 1;
module_param(ninst, uint, 0444);
MODULE_PARM_DESC(ninst, "groups of threads running the test at the same time");
static int affincr = 1;
module_param(affincr, int, 0444);
MODULE_PARM_DESC(affincr, "thread t runs on CPU t * affincr % avail; 0: unbound");

/* A final value: an integer, or the address of location loc (loc >= 0). */
struct lkmm_val {
	long n;
	long loc;		/* long: no padding, so states compare with memcmp() */
};

struct lkmm_test {
	const char *name;
	int nprocs;
	int nvars;
	const char *vars;		/* the variables' names, space-separated */
	const char *const *loc_names;
	size_t inst_size;
	void (*init)(void *inst);
	void (*fini)(void *inst);	/* NULL when nothing needs undoing */
	void (*proc)(int k, void *inst);
	void (*final)(const void *inst, struct lkmm_val *vals);
	bool (*keep)(const void *inst);	/* the filter; NULL when none */
};

#define LKMM_MAX_STATES 4096

struct lkmm_histogram {
	int nstates;
	u64 count[LKMM_MAX_STATES];
	struct lkmm_val *vals;		/* nvars per state */
	u64 dropped;			/* states beyond LKMM_MAX_STATES */
	u64 filtered;			/* instances the filter rejected */
};

/*
 * A sense-reversing barrier: the threads of a group meet before each
 * instance, so that their accesses to it really overlap.
 */
struct lkmm_barrier {
	atomic_t left;
	int n;
	int sense;
};

static void lkmm_barrier_wait(struct lkmm_barrier *b, int *sense)
{
	unsigned int spins = 0;

	*sense = !*sense;
	if (atomic_dec_and_test(&b->left)) {
		atomic_set(&b->left, b->n);
		/* Orders the reset of left before the others leave. */
		smp_store_release(&b->sense, *sense);
		return;
	}
	/* Pairs with the release above: the others see left reset. */
	while (smp_load_acquire(&b->sense) != *sense) {
		cpu_relax();
		/* A grace period in a test body needs the others to pass one. */
		if (!(++spins & 0xfff))
			cond_resched();
	}
}

struct lkmm_group {
	struct lkmm_barrier barrier;
	char *insts;			/* size instances */
};

struct lkmm_thread {
	const struct lkmm_test *test;
	struct lkmm_group *group;
	int proc;
	struct task_struct *task;
	struct completion done;
};

static int lkmm_thread_fn(void *data)
{
	struct lkmm_thread *th = data;
	const struct lkmm_test *t = th->test;
	int sense = 0;
	unsigned int i;

	for (i = 0; i < size; i++) {
		size_t idx = (size_t)i * stride % size;

		lkmm_barrier_wait(&th->group->barrier, &sense);
		t->proc(th->proc, th->group->insts + idx * t->inst_size);
	}
	kthread_complete_and_exit(&th->done, 0);
}

/* An address stands for its location, whichever instance it is in. */
static void lkmm_canonical(const struct lkmm_test *t, struct lkmm_val *vals)
{
	int v;

	for (v = 0; v < t->nvars; v++)
		if (vals[v].loc >= 0)
			vals[v].n = 0;
}

static void lkmm_tally(const struct lkmm_test *t, struct lkmm_histogram *h,
		       const struct lkmm_val *vals)
{
	int s;

	for (s = 0; s < h->nstates; s++)
		if (!memcmp(h->vals + s * t->nvars, vals, t->nvars * sizeof(*vals)))
			goto found;
	if (h->nstates == LKMM_MAX_STATES) {
		h->dropped++;
		return;
	}
	memcpy(h->vals + s * t->nvars, vals, t->nvars * sizeof(*vals));
	h->count[s] = 0;
	h->nstates++;
found:
	h->count[s]++;
}

/*
 * One thread per process and group, each on its own CPU.  All are created
 * before any starts, so a failure leaves no thread waiting at a barrier.
 */
static int lkmm_start(const struct lkmm_test *t, struct lkmm_group *groups,
		      struct lkmm_thread *th, unsigned int cpus)
{
	unsigned int n = ninst * t->nprocs, i;

	for (i = 0; i < n; i++) {
		th[i].test = t;
		th[i].group = &groups[i / t->nprocs];
		th[i].proc = i % t->nprocs;
		init_completion(&th[i].done);
		th[i].task = kthread_create(lkmm_thread_fn, &th[i], "lkmm/%u", i);
		if (IS_ERR(th[i].task)) {
			int err = PTR_ERR(th[i].task);

			pr_err("lkmm-run: error %s: cannot create thread %u\n", t->name, i);
			while (i--)
				kthread_stop(th[i].task);
			return err;
		}
		if (affincr)
			kthread_bind(th[i].task, (i * affincr) % cpus);
	}
	for (i = 0; i < n; i++)
		wake_up_process(th[i].task);
	return 0;
}

/* One run: fresh instances, the threads over all of them, then the tally. */
static int lkmm_one_run(const struct lkmm_test *t, struct lkmm_group *groups,
			struct lkmm_thread *th, unsigned int cpus,
			struct lkmm_histogram *h, struct lkmm_val *vals)
{
	unsigned int g, i;
	int err;

	for (g = 0; g < ninst; g++) {
		atomic_set(&groups[g].barrier.left, t->nprocs);
		groups[g].barrier.n = t->nprocs;
		groups[g].barrier.sense = 0;
		for (i = 0; i < size; i++)
			t->init(groups[g].insts + i * t->inst_size);
	}
	err = lkmm_start(t, groups, th, cpus);
	if (err)
		return err;
	for (i = 0; i < ninst * t->nprocs; i++)
		wait_for_completion(&th[i].done);
	for (g = 0; g < ninst; g++) {
		for (i = 0; i < size; i++) {
			void *inst = groups[g].insts + i * t->inst_size;

			if (!t->keep || t->keep(inst)) {
				t->final(inst, vals);
				lkmm_canonical(t, vals);
				lkmm_tally(t, h, vals);
			} else {
				h->filtered++;
			}
			if (t->fini)
				t->fini(inst);
		}
	}
	return 0;
}

static void lkmm_print(const struct lkmm_test *t, const struct lkmm_histogram *h)
{
	char line[900];
	int s, v, len;

	pr_info("lkmm-run: vars %s\n", t->vars);
	for (s = 0; s < h->nstates; s++) {
		const struct lkmm_val *vals = h->vals + s * t->nvars;

		len = scnprintf(line, sizeof(line), "%llu", h->count[s]);
		for (v = 0; v < t->nvars; v++) {
			if (vals[v].loc >= 0)
				len += scnprintf(line + len, sizeof(line) - len, " &%s",
						 t->loc_names[vals[v].loc]);
			else
				len += scnprintf(line + len, sizeof(line) - len, " %ld",
						 vals[v].n);
		}
		pr_info("lkmm-run: state %s\n", line);
	}
	if (h->dropped)
		pr_err("lkmm-run: error %s: %llu iterations ended in states beyond the first %d\n",
		       t->name, h->dropped, LKMM_MAX_STATES);
}

static int lkmm_check_params(const struct lkmm_test *t, unsigned int cpus)
{
	if (!nruns || !size || !ninst || !stride || gcd(stride, size) != 1) {
		pr_err("lkmm-run: error %s: nruns, size, ninst and stride must be positive, stride coprime to size\n",
		       t->name);
		return -EINVAL;
	}
	if (affincr && ninst * t->nprocs > cpus) {
		pr_err("lkmm-run: error %s: %u threads need as many CPUs, %u available\n",
		       t->name, ninst * t->nprocs, cpus);
		return -EINVAL;
	}
	return 0;
}

static int lkmm_run(const struct lkmm_test *t)
{
	unsigned int cpus = avail ? avail : num_online_cpus();
	struct lkmm_group *groups;
	struct lkmm_thread *th;
	struct lkmm_histogram *h;
	struct lkmm_val *vals;
	unsigned int g, r;
	ktime_t start;
	int err;

	err = lkmm_check_params(t, cpus);
	if (err)
		return err;
	groups = kcalloc(ninst, sizeof(*groups), GFP_KERNEL);
	th = kcalloc(ninst * t->nprocs, sizeof(*th), GFP_KERNEL);
	h = kvzalloc(sizeof(*h), GFP_KERNEL);
	vals = kcalloc(t->nvars + 1, sizeof(*vals), GFP_KERNEL);
	err = -ENOMEM;
	if (!groups || !th || !h || !vals)
		goto out;
	h->vals = kvcalloc((size_t)LKMM_MAX_STATES * t->nvars + 1, sizeof(*h->vals), GFP_KERNEL);
	if (!h->vals)
		goto out;
	for (g = 0; g < ninst; g++) {
		groups[g].insts = kvcalloc(size, t->inst_size, GFP_KERNEL);
		if (!groups[g].insts)
			goto out;
	}
	pr_info("lkmm-run: begin %s\n", t->name);
	start = ktime_get();
	for (r = 0; r < nruns; r++) {
		err = lkmm_one_run(t, groups, th, cpus, h, vals);
		if (err)
			goto out;
	}
	lkmm_print(t, h);
	pr_info("lkmm-run: end %s runs=%u size=%u ninst=%u cpus=%u filtered=%llu ns=%lld\n",
		t->name, nruns, size, ninst, cpus, h->filtered,
		ktime_to_ns(ktime_sub(ktime_get(), start)));
out:
	if (err == -ENOMEM)
		pr_err("lkmm-run: error %s: out of memory\n", t->name);
	for (g = 0; groups && g < ninst; g++)
		kvfree(groups[g].insts);
	if (h)
		kvfree(h->vals);
	kvfree(h);
	kfree(vals);
	kfree(th);
	kfree(groups);
	return err;
}

#endif /* LKMM_RUNTIME_H */
