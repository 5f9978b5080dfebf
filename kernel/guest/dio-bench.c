// SPDX-License-Identifier: GPL-2.0
/*
 * dio-bench: asynchronous O_DIRECT writes per second on one filesystem.
 *
 * The series changes what every asynchronous direct-I/O write does first:
 * it tests sb->s_dio_done_wq (a plain load before, an smp_load_acquire() after).
 * This measures the whole path from io_submit() to the completion, the
 * way an application sees it, so `make kernel-bench` can compare the two
 * kernels.  One thread keeps DEPTH 4 KiB writes in flight, overwriting a
 * preallocated file (an extending write would not be asynchronous), for
 * SECONDS after the mount of a fresh superblock.
 *
 * Usage: dio-bench FSTYPE DEVICE MOUNTPOINT SECONDS DEPTH
 * Prints "dio-bench: FSTYPE: N writes in T s: R writes/s" and exits 0, or
 * "dio-bench: FAIL ..." and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define MAX_DEPTH 256

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A file of @depth blocks, written with buffered I/O and synced. */
static void preallocate(const char *path, unsigned char *buf, long depth)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		fail("create %s: %s", path, strerror(errno));
	if (write(fd, buf, depth * IO_SIZE) != depth * IO_SIZE || fsync(fd) || close(fd))
		fail("write %s: %s", path, strerror(errno));
}

/* Wait for @nr completions; each must have written a whole block. */
static void reap(aio_context_t ctx, long nr)
{
	struct io_event ev[MAX_DEPTH];

	while (nr > 0) {
		long n = sys_io_getevents(ctx, 1, nr, ev);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			fail("io_getevents: %s", strerror(errno));
		for (long i = 0; i < n; i++)
			if (ev[i].res != IO_SIZE)
				fail("write: res %" PRId64, (int64_t)ev[i].res);
		nr -= n;
	}
}

int main(int argc, char **argv)
{
	struct iocb cbs[MAX_DEPTH], *cbp[MAX_DEPTH];
	const char *fstype, *device, *mountpoint;
	long seconds, depth, writes = 0;
	aio_context_t ctx = 0;
	unsigned char *buf;
	double start, elapsed;
	char path[256];
	int fd;

	if (argc != 6)
		fail("usage: %s FSTYPE DEVICE MOUNTPOINT SECONDS DEPTH", argv[0]);
	fstype = argv[1];
	device = argv[2];
	mountpoint = argv[3];
	seconds = parse_count(argv[4], 3600);
	depth = parse_count(argv[5], MAX_DEPTH);

	buf = aligned_alloc(IO_SIZE, depth * IO_SIZE);
	if (!buf)
		fail("out of memory");
	memset(buf, 0xa5, depth * IO_SIZE);
	if (mount(device, mountpoint, fstype, 0, NULL))
		fail("mount %s %s: %s", fstype, device, strerror(errno));
	snprintf(path, sizeof(path), "%s/dio-bench", mountpoint);
	preallocate(path, buf, depth);

	fd = open(path, O_WRONLY | O_DIRECT);
	if (fd < 0 || sys_io_setup((unsigned int)depth, &ctx))
		fail("open/io_setup %s: %s", path, strerror(errno));
	memset(cbs, 0, sizeof(cbs));
	for (long blk = 0; blk < depth; blk++) {
		cbs[blk].aio_lio_opcode = IOCB_CMD_PWRITE;
		cbs[blk].aio_fildes = (uint32_t)fd;
		cbs[blk].aio_buf = (uint64_t)(uintptr_t)(buf + blk * IO_SIZE);
		cbs[blk].aio_nbytes = IO_SIZE;
		cbs[blk].aio_offset = blk * IO_SIZE;
		cbp[blk] = &cbs[blk];
	}

	start = now();
	do {
		if (sys_io_submit(ctx, depth, cbp) != depth)
			fail("io_submit %s: %s", path, strerror(errno));
		reap(ctx, depth);
		writes += depth;
		elapsed = now() - start;
	} while (elapsed < seconds);

	sys_io_destroy(ctx);
	close(fd);
	if (unlink(path) || umount(mountpoint))
		fail("unlink/umount %s: %s", mountpoint, strerror(errno));
	printf("dio-bench: %s: %ld writes in %.2f s: %.0f writes/s\n",
	       fstype, writes, elapsed, writes / elapsed);
	return 0;
}
