/*
 * fuzz_log.c - libFuzzer target for the log `lkmm run --compare` reads
 * (src/report/runlog.c, through run.c): any input is a kernel's log,
 * with "lkmm-run:" lines and klitmus7's blocks, held against four tests:
 * the kernel's MP and SB, and two of tests/src/run (atomic_t locations,
 * a filter).
 *
 * A log may name other tests, other variables, values that are not
 * numbers, or states the model forbids: each is a diagnostic, a test
 * not run or a MODEL VIOLATION (exit 5), never a crash.  The model comes
 * from the cache after the first input; what is printed is libFuzzer's
 * -close_fd_mask to drop.
 */
#include <stdlib.h>

#include "fuzz.h"
#include "kernel-run/kernel-run.h"

static char *tests[] = {
	FUZZ_MODEL_DIR "/litmus-tests/MP+pooncerelease+poacquireonce.litmus",
	FUZZ_MODEL_DIR "/litmus-tests/SB+poonceonces.litmus",
	FUZZ_TESTS_DIR "/run/atomic-int.litmus",
	FUZZ_TESTS_DIR "/run/filter.litmus",
};
static struct run_options opts = { .runs = 10, .size = 1000, .stride = 1, .ninst = 1,
				   .affincr = 1, .cpus = 4 };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const struct check_options bounds = fuzz_options();

	(void)argc;
	(void)argv;
	/* lkmm run takes the library's options: the same bounds, in its terms. */
	lkmm_options_init(&opts.check);
	opts.check.timeout = bounds.timeout;
	opts.check.max_executions = bounds.max_executions;
	opts.check.max_traces = bounds.limits.max_traces;
	opts.check.max_values = bounds.limits.max_values;
	opts.model_dir = FUZZ_MODEL_DIR;
	opts.model.cache_dir = fuzz_path("cache");
	opts.compare_log = fuzz_path("run.log");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int status;

	free(fuzz_write("run.log", data, size));
	status = run_files(tests, sizeof(tests) / sizeof(tests[0]), &opts);
	if (status == EXIT_INTERNAL)
		abort();
	return 0;
}
