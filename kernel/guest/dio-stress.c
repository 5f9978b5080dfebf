// SPDX-License-Identifier: GPL-2.0
/*
 * dio-stress: contend the first use of a superblock's s_dio_done_wq.
 *
 * The per-superblock direct-I/O completion workqueue is created lazily by
 * sb_init_dio_done_wq() on the first *asynchronous* O_DIRECT write after a
 * mount and freed again at unmount.  So each round of this program mounts
 * the filesystem (a new superblock, no workqueue yet), lets several
 * threads open their files, lines them up on a barrier and lets them
 * io_submit() their O_DIRECT writes, two at a time, the pairs STAGGER_US
 * apart: the threads of a pair race to create s_dio_done_wq, and later
 * ones test it while an earlier one may be publishing it.  After the last
 * round the data is read back and checked.
 *
 * Runs as PID 1's child in the test guest; it needs to be root to mount.
 *
 * Usage: dio-stress FSTYPE DEVICE MOUNTPOINT ROUNDS THREADS WRITES
 * (WRITES: 4 KiB writes per thread and round, all in one io_submit()).
 * Prints "dio-stress: PASS ..." and exits 0, or "dio-stress: FAIL ..."
 * and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define MAX_WRITES 256		/* writes each thread may have in flight per round */
#define MAX_THREADS 64
#define STAGGER_US 500		/* between the start of successive thread pairs */

struct config {
	const char *fstype;
	const char *device;
	const char *mountpoint;
	long rounds;
	long threads;
	long writes;	/* per thread and round, one IO_SIZE block each */
};

struct worker {
	const struct config *cfg;
	pthread_t thread;
	long id;
	unsigned char *buf;	/* cfg->writes aligned blocks */
	int failed;
};

static void file_path(const struct config *cfg, long id, char *path, size_t len)
{
	snprintf(path, len, "%s/dio-%ld", cfg->mountpoint, id);
}

/* Byte that block @blk of thread @id holds after round @round. */
static unsigned char pattern(long round, long id, long blk)
{
	return (unsigned char)(round * 131 + id * 17 + blk * 3 + 1);
}

static void fill(const struct config *cfg, unsigned char *buf, long round, long id)
{
	for (long blk = 0; blk < cfg->writes; blk++)
		memset(buf + blk * IO_SIZE, pattern(round, id, blk), IO_SIZE);
}

/*
 * Write each file in full with buffered I/O before the rounds start, so
 * the O_DIRECT writes are pure overwrites of allocated blocks: ext4 makes
 * extending DIO writes synchronous and vfat falls back to buffered I/O
 * for them, and neither would then touch s_dio_done_wq.
 */
static void create_files(const struct config *cfg, unsigned char *buf)
{
	char path[256];

	mount_or_fail(cfg->device, cfg->mountpoint, cfg->fstype);
	for (long id = 0; id < cfg->threads; id++) {
		file_path(cfg, id, path, sizeof(path));
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			fail("create %s: %s", path, strerror(errno));
		fill(cfg, buf, 0, id);
		ssize_t n = write(fd, buf, cfg->writes * IO_SIZE);
		if (n != cfg->writes * IO_SIZE || fsync(fd) || close(fd))
			fail("write %s: %s", path, strerror(errno));
	}
	umount_or_fail(cfg->mountpoint);
}

/*
 * All threads and the main thread meet here three times a round: after the
 * mount, right before the writes and before the unmount.
 */
static pthread_barrier_t phase;

/* One round of one thread: all its writes submitted in one io_submit(). */
static int write_round(struct worker *w, long round)
{
	struct iocb cbs[MAX_WRITES], *cbp[MAX_WRITES];
	struct io_event ev[MAX_WRITES];
	const long writes = w->cfg->writes;
	aio_context_t ctx = 0;
	char path[256];
	long done = 0;
	int ok = 1;

	pthread_barrier_wait(&phase);	/* mounted */
	file_path(w->cfg, w->id, path, sizeof(path));
	int fd = open(path, O_WRONLY | O_DIRECT);
	if (fd < 0 || sys_io_setup((unsigned)writes, &ctx)) {
		printf("dio-stress: open/io_setup %s: %s\n", path, strerror(errno));
		ok = 0;
	}
	fill(w->cfg, w->buf, round, w->id);
	memset(cbs, 0, sizeof(cbs));
	for (long blk = 0; blk < writes; blk++) {
		cbs[blk].aio_lio_opcode = IOCB_CMD_PWRITE;
		cbs[blk].aio_fildes = (uint32_t)fd;
		cbs[blk].aio_buf = (uint64_t)(uintptr_t)(w->buf + blk * IO_SIZE);
		cbs[blk].aio_nbytes = IO_SIZE;
		cbs[blk].aio_offset = blk * IO_SIZE;
		cbp[blk] = &cbs[blk];
	}
	/*
	 * Threads start in groups of two, the groups STAGGER_US apart: each
	 * pair contends for the creation itself, and the later pairs test
	 * s_dio_done_wq while an earlier creator may be publishing it.
	 */
	pthread_barrier_wait(&phase);
	struct timespec stagger = { .tv_nsec = (w->id / 2) % 4 * STAGGER_US * 1000L };
	nanosleep(&stagger, NULL);
	if (ok && sys_io_submit(ctx, writes, cbp) != writes) {
		printf("dio-stress: io_submit %s: %s\n", path, strerror(errno));
		ok = 0;
	}
	while (ok && done < writes) {
		long n = sys_io_getevents(ctx, 1, writes - done, ev);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			printf("dio-stress: io_getevents: %s\n", strerror(errno));
			ok = 0;
		}
		for (long i = 0; ok && i < n; i++) {
			if (ev[i].res != IO_SIZE) {
				printf("dio-stress: write %s: res %" PRId64 "\n",
				       path, (int64_t)ev[i].res);
				ok = 0;
			}
		}
		done += n;
	}
	if (ctx)
		sys_io_destroy(ctx);
	if (fd >= 0)
		close(fd);
	pthread_barrier_wait(&phase);	/* unmount may start */
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

static void verify_files(const struct config *cfg, unsigned char *buf)
{
	char path[256];

	mount_or_fail(cfg->device, cfg->mountpoint, cfg->fstype);
	for (long id = 0; id < cfg->threads; id++) {
		file_path(cfg, id, path, sizeof(path));
		int fd = open(path, O_RDONLY);
		if (fd < 0 || read(fd, buf, cfg->writes * IO_SIZE) !=
			      cfg->writes * IO_SIZE)
			fail("read back %s: %s", path, strerror(errno));
		close(fd);
		for (long blk = 0; blk < cfg->writes; blk++) {
			unsigned char want = pattern(cfg->rounds, id, blk);
			for (long i = 0; i < IO_SIZE; i++)
				if (buf[blk * IO_SIZE + i] != want)
					fail("%s block %ld byte %ld: got %u, want %u",
					     path, blk, i, buf[blk * IO_SIZE + i], want);
		}
	}
	umount_or_fail(cfg->mountpoint);
}

int main(int argc, char **argv)
{
	struct config cfg;
	struct worker workers[MAX_THREADS];
	unsigned char *scratch;

	if (argc != 7)
		fail("usage: %s FSTYPE DEVICE MOUNTPOINT ROUNDS THREADS WRITES", argv[0]);
	cfg.fstype = argv[1];
	cfg.device = argv[2];
	cfg.mountpoint = argv[3];
	cfg.rounds = parse_count(argv[4], 1000000);
	cfg.threads = parse_count(argv[5], MAX_THREADS);
	cfg.writes = parse_count(argv[6], MAX_WRITES);

	scratch = aligned_alloc(IO_SIZE, cfg.writes * IO_SIZE);
	if (!scratch)
		fail("out of memory");
	create_files(&cfg, scratch);

	/* The main thread takes part in every phase. */
	if (pthread_barrier_init(&phase, NULL, (unsigned)cfg.threads + 1))
		fail("pthread_barrier_init");
	for (long id = 0; id < cfg.threads; id++) {
		workers[id] = (struct worker){ .cfg = &cfg, .id = id };
		workers[id].buf = aligned_alloc(IO_SIZE, cfg.writes * IO_SIZE);
		if (!workers[id].buf)
			fail("out of memory");
	}

	for (long round = 1; round <= cfg.rounds; round++) {
		mount_or_fail(cfg.device, cfg.mountpoint, cfg.fstype);
		if (round == 1)
			for (long id = 0; id < cfg.threads; id++)
				if (pthread_create(&workers[id].thread, NULL,
						   worker_main, &workers[id]))
					fail("pthread_create");
		for (int i = 0; i < 3; i++)
			pthread_barrier_wait(&phase);
		umount_or_fail(cfg.mountpoint);
	}
	for (long id = 0; id < cfg.threads; id++) {
		pthread_join(workers[id].thread, NULL);
		if (workers[id].failed)
			fail("%s: thread %ld had I/O errors (see above)", cfg.fstype, id);
	}
	verify_files(&cfg, scratch);
	printf("dio-stress: PASS %s: %ld rounds x %ld threads x %ld async O_DIRECT writes\n",
	       cfg.fstype, cfg.rounds, cfg.threads, cfg.writes);
	return 0;
}
