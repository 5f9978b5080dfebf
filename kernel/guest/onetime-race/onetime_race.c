// SPDX-License-Identifier: GPL-2.0
/*
 * onetime_race: the open-coded one-time initialization that 6.12 uses for
 * super_block->s_dio_done_wq, raced by one kthread per CPU, for KCSAN.
 *
 * The direct-I/O stress reaches sb_init_dio_done_wq() once per mount, and
 * between two mounts lie milliseconds of mount, open and allocation work,
 * so KCSAN's sampled watchpoints rarely cover the few instructions where
 * the race is (docs/kernel-before-after.md).  This module runs only those
 * instructions, thousands of times: one kthread per online CPU, and in
 * each round, all of them make the first use of an empty pointer at once.
 *
 * mode=plain    the pattern as 6.12 has it: a plain load tests the pointer,
 *               cmpxchg() publishes it, the loser frees its object and the
 *               caller reads the pointer again with a plain load
 * mode=acquire  the same with smp_load_acquire() for both loads and
 *               cmpxchg_release(), as patch 1 of the series does
 *
 * Every thread checks the object it ends up using was fully initialized.
 * The module prints "onetime_race: mode=M rounds=R threads=T torn=N" when
 * loaded; the guest then unloads it and loads it again for the next mode.
 * (Failing the load instead would not do: busybox's insmod retries a
 * failed finit_module() with init_module(), which runs it twice.)
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/sched.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>

#define OBJ_MAGIC 0x6f6e6365u

struct onetime_obj {
	unsigned int magic;
};

static char *mode = "plain";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "plain (6.12's pattern) or acquire (the fix)");

static unsigned int rounds = 20000;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "rounds of one first use per online CPU");

/* The lazily created object, as s_dio_done_wq in a super_block. */
static struct onetime_obj *shared;
static bool use_acquire;
static unsigned int nthreads;
/* Arrivals at the barriers so far, all threads and phases together. */
static atomic_t arrivals;
static atomic_t torn;
static struct completion finished;

static struct onetime_obj *obj_create(void)
{
	struct onetime_obj *obj = kmalloc(sizeof(*obj), GFP_KERNEL);

	if (obj)
		obj->magic = OBJ_MAGIC;
	return obj;
}

/* The shape of sb_init_dio_done_wq() in 6.12 (fs/super.c). */
static int init_plain(void)
{
	struct onetime_obj *old, *obj = obj_create();

	if (!obj)
		return -ENOMEM;
	old = cmpxchg(&shared, NULL, obj);
	if (old)
		kfree(obj);
	return 0;
}

static int init_acquire(void)
{
	struct onetime_obj *obj = obj_create();

	if (!obj)
		return -ENOMEM;
	if (cmpxchg_release(&shared, NULL, obj))
		kfree(obj);
	return 0;
}

/* The callers' side: __iomap_dio_rw() and friends, then the use. */
static struct onetime_obj *first_use(void)
{
	if (use_acquire) {
		/* Pairs with cmpxchg_release() in init_acquire(). */
		if (!smp_load_acquire(&shared) && init_acquire())
			return NULL;
		/* The loser's too: its failed cmpxchg() ordered nothing. */
		return smp_load_acquire(&shared);
	}
	if (!shared && init_plain())
		return NULL;
	return shared;
}

/*
 * The @phase-th barrier of the run: every thread waits until all have
 * arrived.  The count only grows, so one counter serves every phase.
 */
static void barrier_wait(unsigned int phase)
{
	atomic_inc(&arrivals);
	while (atomic_read(&arrivals) < phase * nthreads)
		cond_resched();
}

/*
 * One thread per CPU, the same threads for every round, so that a round
 * costs only the race itself: the first use, all threads at once, then
 * thread 0 empties the pointer for the next round.
 */
static int racer(void *arg)
{
	unsigned int id = (unsigned long)arg, phase = 0, round;
	struct onetime_obj *obj;

	for (round = 0; round < rounds; round++) {
		barrier_wait(++phase);
		obj = first_use();
		if (!obj || READ_ONCE(obj->magic) != OBJ_MAGIC)
			atomic_inc(&torn);
		barrier_wait(++phase);
		if (id == 0) {
			/* No thread looks at it until the next barrier. */
			kfree(shared);
			WRITE_ONCE(shared, NULL);
		}
		barrier_wait(++phase);
	}
	complete(&finished);
	return 0;
}

/*
 * The threads are all created before any is woken, so that none spins
 * while kthreadd still has to run on its CPU.
 */
static int __init onetime_race_init(void)
{
	struct task_struct **threads;
	unsigned int cpu, i, created = 0;

	if (!strcmp(mode, "acquire"))
		use_acquire = true;
	else if (strcmp(mode, "plain"))
		return -EINVAL;
	threads = kcalloc(nr_cpu_ids, sizeof(*threads), GFP_KERNEL);
	if (!threads)
		return -ENOMEM;
	init_completion(&finished);
	nthreads = num_online_cpus();
	for_each_online_cpu(cpu) {
		threads[created] = kthread_create_on_cpu(racer, (void *)(unsigned long)created,
							 cpu, "onetime_race/%u");
		if (IS_ERR(threads[created]))
			break;
		created++;
	}
	if (created < nthreads) {
		for (i = 0; i < created; i++)
			kthread_stop(threads[i]);
		kfree(threads);
		return -ENOMEM;
	}
	for (i = 0; i < created; i++)
		wake_up_process(threads[i]);
	for (i = 0; i < created; i++)
		wait_for_completion(&finished);
	kfree(threads);
	pr_info("onetime_race: mode=%s rounds=%u threads=%u torn=%d\n",
		mode, rounds, nthreads, atomic_read(&torn));
	return 0;
}

static void __exit onetime_race_exit(void)
{
}

module_init(onetime_race_init);
module_exit(onetime_race_exit);
MODULE_DESCRIPTION("KCSAN's view of 6.12's open-coded s_dio_done_wq initialization");
MODULE_LICENSE("GPL");
