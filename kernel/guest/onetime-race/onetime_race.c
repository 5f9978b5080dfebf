// SPDX-License-Identifier: GPL-2.0
/*
 * onetime_race: the open-coded one-time initialization that 6.12 uses for
 * super_block->s_dio_done_wq, raced by one kthread per CPU, for KCSAN.
 *
 * The direct-I/O stress reaches sb_init_dio_done_wq() once per mount, and
 * between two mounts lie milliseconds of mount, open and allocation work,
 * so KCSAN's sampled watchpoints rarely cover the few instructions where
 * the race is (docs/kernel-before-after.md).  This module runs only those
 * instructions, thousands of times: each round empties the pointer, lines
 * up one kthread per online CPU and lets them all make the first use.
 *
 * mode=plain    the pattern as 6.12 has it: a plain load tests the pointer,
 *               cmpxchg() publishes it, the loser frees its object and the
 *               caller reads the pointer again with a plain load
 * mode=acquire  the same with smp_load_acquire() for both loads and
 *               cmpxchg_release(), as patch 1 of the series does
 *
 * Every thread checks the object it ends up using was fully initialized.
 * The module prints "onetime_race: mode=M rounds=R threads=T torn=N" and
 * refuses to stay loaded (-EAGAIN), so that the guest can load it again.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
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

static unsigned int rounds = 2000;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "rounds of one first use per online CPU");

/* The lazily created object, as s_dio_done_wq in a super_block. */
static struct onetime_obj *shared;
static bool use_acquire;
static atomic_t lined_up, torn;
static struct completion finished;
static struct task_struct **threads;	/* nr_cpu_ids of them */

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

static int racer(void *unused)
{
	struct onetime_obj *obj;

	/* One thread per CPU spins here until all have arrived. */
	atomic_inc(&lined_up);
	while (atomic_read(&lined_up) < num_online_cpus())
		cpu_relax();
	obj = first_use();
	if (obj && READ_ONCE(obj->magic) != OBJ_MAGIC)
		atomic_inc(&torn);
	complete(&finished);
	return 0;
}

/*
 * One round: an empty pointer, then every CPU's first use at once.  The
 * threads are all created before any is woken, so that none spins while
 * kthreadd still has to run on its CPU.
 */
static int race_once(void)
{
	unsigned int cpu, i, created = 0;
	struct task_struct *t;

	WRITE_ONCE(shared, NULL);
	atomic_set(&lined_up, 0);
	reinit_completion(&finished);
	for_each_online_cpu(cpu) {
		t = kthread_create_on_cpu(racer, NULL, cpu, "onetime_race/%u");
		if (IS_ERR(t))
			break;
		threads[created++] = t;
	}
	/* Threads that were not created must not keep the others spinning. */
	atomic_add(num_online_cpus() - created, &lined_up);
	for (i = 0; i < created; i++)
		wake_up_process(threads[i]);
	for (i = 0; i < created; i++)
		wait_for_completion(&finished);
	kfree(shared);
	return created == num_online_cpus() ? 0 : -ENOMEM;
}

static int __init onetime_race_init(void)
{
	unsigned int i;
	int ret = 0;

	if (!strcmp(mode, "acquire"))
		use_acquire = true;
	else if (strcmp(mode, "plain"))
		return -EINVAL;
	threads = kcalloc(nr_cpu_ids, sizeof(*threads), GFP_KERNEL);
	if (!threads)
		return -ENOMEM;
	init_completion(&finished);
	atomic_set(&torn, 0);
	for (i = 0; i < rounds && !ret; i++)
		ret = race_once();
	kfree(threads);
	pr_info("onetime_race: mode=%s rounds=%u threads=%u torn=%d%s\n",
		mode, i, num_online_cpus(), atomic_read(&torn),
		ret ? " (stopped: a kthread did not start)" : "");
	return -EAGAIN;
}

module_init(onetime_race_init);
MODULE_DESCRIPTION("KCSAN's view of 6.12's open-coded s_dio_done_wq initialization");
MODULE_LICENSE("GPL");
