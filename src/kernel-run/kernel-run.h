/*
 * kernel-run.h - `lkmm run`: litmus tests as kernel modules in a QEMU
 * guest, or on the user's own machine, held against the model (run.c),
 * over the library alone (include/lkmm.h).
 */
#ifndef LKMM_RUN_H
#define LKMM_RUN_H

#include <stdbool.h>

#include "base/base.h"
#include "lkmm.h"

struct run_options {
	const char *model_dir;		/* the model's directory */
	struct lkmm_model_options model;
	struct lkmm_options check;	/* limits on deciding each test */
	/* klitmus7's module parameters. */
	long runs, size, stride, ninst, affincr;
	long cpus;			/* the guest's vCPUs */
	long boot_timeout;		/* seconds; 0: the harness' default */
	const char *emit_dir;		/* --emit: write the modules, run nothing */
	const char *compare_log;	/* --compare: read this log, run nothing */
	bool where;			/* --where: print the kernel half's root, run nothing */
};

/*
 * Run each file in a kernel (or only emit or only compare) and print
 * klitmus7's block and the model's verdict for each; the worst exit
 * status of all (util.h), EXIT_VIOLATION when the kernel reached a state
 * the model forbids.
 */
int run_files(char **files, int nfiles, const struct run_options *opts);

#endif
