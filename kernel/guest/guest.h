/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest programs share: raw Linux AIO syscalls, so that their
 * static binaries need no libaio, the block size they write, and how they
 * fail and read their counts.
 */
#ifndef LKMM_GUEST_H
#define LKMM_GUEST_H

#include <errno.h>
#include <linux/aio_abi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#define IO_SIZE 4096

static inline long sys_io_setup(unsigned int nr, aio_context_t *ctx)
{
	return syscall(SYS_io_setup, nr, ctx);
}

static inline long sys_io_submit(aio_context_t ctx, long nr, struct iocb **iocbs)
{
	return syscall(SYS_io_submit, ctx, nr, iocbs);
}

static inline long sys_io_getevents(aio_context_t ctx, long min_nr, long nr,
				    struct io_event *events)
{
	return syscall(SYS_io_getevents, ctx, min_nr, nr, events, NULL);
}

static inline long sys_io_destroy(aio_context_t ctx)
{
	return syscall(SYS_io_destroy, ctx);
}

/*
 * Print "PROGRAM: FAIL <message>", the line the harness looks for, and
 * exit 1.  Needs _GNU_SOURCE for program_invocation_short_name.
 */
static inline void fail(const char *fmt, ...)
{
	va_list ap;

	printf("%s: FAIL ", program_invocation_short_name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	exit(1);
}

/* A count argument from 1 to @max, or fail. */
static inline long parse_count(const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 1 || v > max)
		fail("bad count '%s' (1..%ld)", s, max);
	return v;
}

/* Mount @device (of @fstype) on @mountpoint, or fail. */
static inline void mount_or_fail(const char *device, const char *mountpoint, const char *fstype)
{
	if (mount(device, mountpoint, fstype, 0, NULL))
		fail("mount %s %s: %s", fstype, device, strerror(errno));
}

static inline void umount_or_fail(const char *mountpoint)
{
	if (umount(mountpoint))
		fail("umount %s: %s", mountpoint, strerror(errno));
}

#endif
