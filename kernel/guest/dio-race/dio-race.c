// SPDX-License-Identifier: GPL-2.0
/*
 * dio-race: race the first asynchronous O_DIRECT writes on fresh
 * superblocks, for kernel/scripts/dio-race.sh.
 *
 * Each round mounts the filesystem (a new superblock: s_dio_done_wq is
 * NULL), lets THREADS threads open their own file with O_DIRECT and set up
 * an AIO context, releases them together and has each io_submit() one
 * 4 KiB write, waits for the completions and unmounts.  Every thread that
 * finds s_dio_done_wq still NULL calls sb_init_dio_done_wq(), which
 * allocates a workqueue; the measurement kernel says in its log which of
 * them published theirs and which lost.  This program only marks the
 * rounds in the kernel log ("dio-race: round R begin" / "end" through
 * /dev/kmsg, so they are ordered with the kernel's own lines) and checks
 * that the writes succeeded.
 *
 * The threads are released by a flag they spin on rather than by a
 * barrier, whose futex wake-ups would start them one after the other.
 * The files are written in full before the rounds, so the O_DIRECT writes
 * are overwrites of allocated blocks: ext4 makes extending writes
 * synchronous, and those never touch s_dio_done_wq.
 *
 * Usage: dio-race FSTYPE DEVICE MOUNTPOINT ROUNDS THREADS
 * Prints "dio-race: PASS ..." and exits 0, or "dio-race: FAIL ..." and
 * exits 1.  Needs root (mount) and printk.devkmsg=on (the marks must not
 * be rate-limited).
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

#include "guest.h"

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

static int kmsg = -1;
static atomic_long ready;	/* threads ready in this round */
static atomic_long go;		/* the round whose writes may start */
static pthread_barrier_t phase;	/* mounted; writes done */

static void mark(const char *fmt, long round)
{
	char line[128];
	int n = snprintf(line, sizeof(line), fmt, round);

	if (write(kmsg, line, (size_t)n) != n)
		fail("write /dev/kmsg: %s", strerror(errno));
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
	int failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 6)
		fail("usage: dio-race FSTYPE DEVICE MOUNTPOINT ROUNDS THREADS");
	cfg = (struct config){
		.fstype = argv[1],
		.device = argv[2],
		.mountpoint = argv[3],
		.rounds = parse_count(argv[4], MAX_ROUNDS),
		.threads = parse_count(argv[5], MAX_THREADS),
	};
	kmsg = open("/dev/kmsg", O_WRONLY);
	if (kmsg < 0)
		fail("open /dev/kmsg: %s", strerror(errno));
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
	for (long round = 1; round <= cfg.rounds; round++) {
		mark("<6>dio-race: round %ld begin\n", round);
		mount_or_fail(cfg.device, cfg.mountpoint, cfg.fstype);
		atomic_store(&ready, 0);
		pthread_barrier_wait(&phase);	/* mounted */
		while (atomic_load(&ready) != cfg.threads)
			sched_yield();
		atomic_store(&go, round);
		pthread_barrier_wait(&phase);	/* written */
		umount_or_fail(cfg.mountpoint);
		mark("<6>dio-race: round %ld end\n", round);
	}
	for (long id = 0; id < cfg.threads; id++) {
		pthread_join(workers[id].thread, NULL);
		failed |= workers[id].failed;
	}
	if (failed)
		fail("some writes failed (see above)");
	printf("dio-race: PASS %s: %ld rounds, %ld threads\n", cfg.fstype,
	       cfg.rounds, cfg.threads);
	return 0;
}
