// SPDX-License-Identifier: GPL-2.0
/*
 * dio-race: race the first asynchronous O_DIRECT writes on fresh
 * superblocks and count the workqueues sb_init_dio_done_wq() creates, for
 * kernel/scripts/dio-race.sh and the kernel-check guest (kernel/guest/init).
 *
 * Each round mounts the filesystem (a new superblock: s_dio_done_wq is
 * NULL), lets THREADS threads open their own file with O_DIRECT and set up
 * an AIO context, releases them together and has each io_submit() one
 * 4 KiB write, waits for the completions and unmounts.  Every thread that
 * finds s_dio_done_wq still NULL calls sb_init_dio_done_wq().  With the
 * cmpxchg() of 6.12 each of them allocates a workqueue and all but one
 * destroy theirs again; allocating under call_once()'s mutex creates one.
 *
 * The count needs no change to the kernel, only tracepoints (CONFIG_FTRACE,
 * kernel/config/lkmm.config): the "dio/<dev>" workqueue is WQ_MEM_RECLAIM,
 * so alloc_workqueue() creates its rescuer kthread, "kworker/R-dio/<dev>"
 * (the comm keeps 15 characters, "kworker/R-dio/v"), and destroy_workqueue()
 * stops it.  task:task_newtask and sched:sched_process_exit, filtered on
 * that name, count the workqueues created and destroyed.  Per round, the
 * trace is cleared before the mount, read after the writes (created, and
 * destroyed before the unmount: the losers) and after the unmount (the
 * superblock's own workqueue destroyed too; reread for up to two seconds,
 * as the exit event may trail umount()).
 *
 * The files are written in full before the rounds, so the O_DIRECT writes
 * are overwrites of allocated blocks: ext4 makes extending writes
 * synchronous, and those never touch s_dio_done_wq.  The threads are
 * released by a flag they spin on rather than by a barrier, whose futex
 * wake-ups would start them one after the other.
 *
 * Usage: dio-race FSTYPE DEVICE MOUNTPOINT ROUNDS THREADS any|one
 * Prints one line per round and a total.  With "one", fails unless every
 * round created exactly one workqueue and destroyed it at the unmount
 * (none before it); with "any", only counts.  Prints "dio-race: PASS ..."
 * and exits 0, or "dio-race: FAIL ..." and exits 1.  Needs root (mount).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>

#include "guest.h"

#define TRACEFS "/sys/kernel/tracing"
#define RESCUER "kworker/R-dio/*"

#define MAX_THREADS 64
#define MAX_ROUNDS 100000

struct config {
	const char *fstype;
	const char *device;
	const char *mountpoint;
	long rounds;
	long threads;
};

struct worker {
	const struct config *cfg;
	pthread_t thread;
	long id;
	unsigned char *buf;	/* one aligned block */
	int failed;
};

static atomic_long ready;	/* threads ready in this round */
static atomic_long go;		/* the round whose writes may start */
static pthread_barrier_t phase;	/* mounted; writes done */

/* Write @text to tracefs file @file, or fail. */
static void trace_set(const char *file, const char *text)
{
	char path[128];
	size_t len = strlen(text);
	int fd;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len || close(fd))
		fail("write '%s' to %s: %s", text, path, strerror(errno));
}

/*
 * Trace the creation and the exit of the dio workqueues' rescuer threads,
 * and nothing else.  Reading the trace must not pause it (pause-on-trace),
 * and the buffer starts empty.
 */
static void trace_start(void)
{
	static const char *const events[] = {
		"events/task/task_newtask", "events/sched/sched_process_exit",
	};
	char file[128];

	if (mount("nodev", TRACEFS, "tracefs", 0, NULL) && errno != EBUSY)
		fail("mount tracefs on " TRACEFS ": %s (CONFIG_FTRACE?)",
		     strerror(errno));
	trace_set("tracing_on", "0");
	trace_set("options/pause-on-trace", "0");
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		snprintf(file, sizeof(file), "%s/filter", events[i]);
		trace_set(file, "comm ~ \"" RESCUER "\"");
		snprintf(file, sizeof(file), "%s/enable", events[i]);
		trace_set(file, "1");
	}
	trace_set("trace", "");
	trace_set("tracing_on", "1");
}

/* Rescuer threads created and exited since the trace was last cleared. */
static void trace_count(long *created, long *exited)
{
	char line[512];
	FILE *f = fopen(TRACEFS "/trace", "r");

	if (!f)
		fail("open " TRACEFS "/trace: %s", strerror(errno));
	*created = *exited = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (strstr(line, " task_newtask: "))
			(*created)++;
		else if (strstr(line, " sched_process_exit: "))
			(*exited)++;
	}
	fclose(f);
}

static void file_path(const struct config *cfg, long id, char *path, size_t len)
{
	snprintf(path, len, "%s/dio-race-%ld", cfg->mountpoint, id);
}

static void create_files(const struct config *cfg, unsigned char *buf)
{
	char path[256];

	mount_or_fail(cfg->device, cfg->mountpoint, cfg->fstype);
	memset(buf, 0x5a, IO_SIZE);
	for (long id = 0; id < cfg->threads; id++) {
		file_path(cfg, id, path, sizeof(path));
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0)
			fail("create %s: %s", path, strerror(errno));
		if (write(fd, buf, IO_SIZE) != IO_SIZE || fsync(fd) || close(fd))
			fail("write %s: %s", path, strerror(errno));
	}
	umount_or_fail(cfg->mountpoint);
}

static int write_round(struct worker *w, long round)
{
	struct iocb cb, *cbp = &cb;
	struct io_event ev;
	aio_context_t ctx = 0;
	char path[256];
	int ok = 1;

	pthread_barrier_wait(&phase);	/* mounted */
	file_path(w->cfg, w->id, path, sizeof(path));
	int fd = open(path, O_WRONLY | O_DIRECT);

	if (fd < 0 || sys_io_setup(1, &ctx)) {
		printf("dio-race: open/io_setup %s: %s\n", path, strerror(errno));
		ok = 0;
	}
	memset(w->buf, (int)(round + w->id), IO_SIZE);
	memset(&cb, 0, sizeof(cb));
	cb.aio_lio_opcode = IOCB_CMD_PWRITE;
	cb.aio_fildes = (uint32_t)fd;
	cb.aio_buf = (uint64_t)(uintptr_t)w->buf;
	cb.aio_nbytes = IO_SIZE;
	atomic_fetch_add(&ready, 1);
	while (atomic_load(&go) != round)
		;
	if (ok && sys_io_submit(ctx, 1, &cbp) != 1) {
		printf("dio-race: io_submit %s: %s\n", path, strerror(errno));
		ok = 0;
	}
	while (ok) {
		long n = sys_io_getevents(ctx, 1, 1, &ev);

		if (n < 0 && errno == EINTR)
			continue;
		if (n != 1 || ev.res != IO_SIZE) {
			printf("dio-race: write %s: %ld events, res %" PRId64 ": %s\n",
			       path, n, (int64_t)ev.res, strerror(errno));
			ok = 0;
		}
		break;
	}
	if (ctx)
		sys_io_destroy(ctx);
	if (fd >= 0)
		close(fd);
	pthread_barrier_wait(&phase);	/* written: unmount may start */
	return ok;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (long round = 1; round <= w->cfg->rounds; round++)
		if (!write_round(w, round))
			w->failed = 1;
	return NULL;
}

int main(int argc, char **argv)
{
	static struct worker workers[MAX_THREADS];
	struct config cfg;
	unsigned char *buf;
	long total_created = 0, total_losers = 0, with_loser = 0, most = 0;
	long wrong = 0;
	int failed = 0, expect_one;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 7 || (strcmp(argv[6], "one") && strcmp(argv[6], "any")))
		fail("usage: dio-race FSTYPE DEVICE MOUNTPOINT ROUNDS THREADS any|one");
	expect_one = !strcmp(argv[6], "one");
	cfg = (struct config){
		.fstype = argv[1],
		.device = argv[2],
		.mountpoint = argv[3],
		.rounds = parse_count(argv[4], MAX_ROUNDS),
		.threads = parse_count(argv[5], MAX_THREADS),
	};
	if (posix_memalign((void **)&buf, IO_SIZE, IO_SIZE))
		fail("out of memory");
	create_files(&cfg, buf);
	if (pthread_barrier_init(&phase, NULL, (unsigned int)cfg.threads + 1))
		fail("pthread_barrier_init");
	for (long id = 0; id < cfg.threads; id++) {
		struct worker *w = &workers[id];

		w->cfg = &cfg;
		w->id = id;
		if (posix_memalign((void **)&w->buf, IO_SIZE, IO_SIZE))
			fail("out of memory");
		if (pthread_create(&w->thread, NULL, worker_main, w))
			fail("pthread_create");
	}
	trace_start();
	for (long round = 1; round <= cfg.rounds; round++) {
		long created, losers, after, exited;

		trace_set("trace", "");
		mount_or_fail(cfg.device, cfg.mountpoint, cfg.fstype);
		atomic_store(&ready, 0);
		pthread_barrier_wait(&phase);	/* mounted */
		while (atomic_load(&ready) != cfg.threads)
			sched_yield();
		atomic_store(&go, round);
		pthread_barrier_wait(&phase);	/* written */
		trace_count(&created, &losers);
		umount_or_fail(cfg.mountpoint);
		for (int tries = 0; tries < 200; tries++) {
			trace_count(&after, &exited);
			if (exited >= after)
				break;
			nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
		}
		printf("dio-race: round %ld: %ld created, %ld destroyed before the unmount, %ld in all\n",
		       round, after, losers, exited);
		total_created += after;
		total_losers += losers;
		with_loser += after > 1;
		if (after - 1 > most)
			most = after - 1;
		wrong += after != 1 || losers != 0 || exited != 1;
	}
	for (long id = 0; id < cfg.threads; id++) {
		pthread_join(workers[id].thread, NULL);
		failed |= workers[id].failed;
	}
	if (failed)
		fail("some writes failed (see above)");
	printf("dio-race: total: %ld rounds, %ld threads, %ld workqueues created, %ld destroyed before the unmount, %ld rounds with more than one, at most %ld extra in a round\n",
	       cfg.rounds, cfg.threads, total_created, total_losers, with_loser,
	       most);
	if (expect_one && wrong)
		fail("%s: %ld of %ld rounds did not create exactly one workqueue, destroyed at the unmount",
		     cfg.fstype, wrong, cfg.rounds);
	printf("dio-race: PASS %s: %ld rounds, %ld threads%s\n", cfg.fstype,
	       cfg.rounds, cfg.threads,
	       expect_one ? ", one workqueue per superblock" : "");
	return 0;
}
