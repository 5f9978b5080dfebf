/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw Linux AIO syscalls for the guest programs, so that their static
 * binaries need no libaio, and the block size they write.
 */
#ifndef LKMM_GUEST_AIO_H
#define LKMM_GUEST_AIO_H

#include <linux/aio_abi.h>
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

#endif
