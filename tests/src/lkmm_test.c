/*
 * lkmm_test.c - unit tests of the library entry (lkmm.h): a test is
 * decided as `lkmm check` decides it, and an error in the model or in a
 * test comes back to the caller as its status, in the same process,
 * with the context still usable.
 *
 * The kernel model is read from $LKMM_MODEL_DIR, by default the tree
 * unpacked under build/.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"
#include "lkmm.h"

static const char *model_dir(void)
{
	const char *dir = getenv("LKMM_MODEL_DIR");

	return dir ? dir : "build/kernel-model/tools/memory-model";
}

/* The model in dir/cfg_name, as lkmm_open() opens it with the cache in cache_dir. */
static int open_model(struct lkmm *ctx, const char *dir, const char *cfg_name,
		      const char *cache_dir)
{
	const struct model_spec spec = { .dir = dir, .cfg_name = cfg_name };

	return lkmm_open(ctx, &spec, cache_dir);
}

/* `lkmm check`'s defaults (main.c), with no -j. */
static struct check_options defaults(void)
{
	return (struct check_options){ .model = { .dir = model_dir(), .cfg_name = "linux-kernel.cfg" },
				       .max_executions = 10000000,
				       .limits = { .max_traces = 100000, .max_values = 256 } };
}

static char *kernel_test(const char *name)
{
	char *path = malloc(strlen(model_dir()) + strlen(name) + 32);

	sprintf(path, "%s/litmus-tests/%s.litmus", model_dir(), name);
	return path;
}

static int setup(void **state)
{
	struct lkmm *ctx = malloc(sizeof(*ctx));

	if (open_model(ctx, model_dir(), "linux-kernel.cfg", NULL)) {
		free(ctx);
		return -1;
	}
	*state = ctx;
	return 0;
}

static int teardown(void **state)
{
	lkmm_close(*state);
	free(*state);
	return 0;
}

/* Check one kernel test; its status, the line starting with `line` in *found. */
static int check(struct lkmm *ctx, const char *path, const struct check_options *opts,
		 const char *line, char *found, size_t size)
{
	struct lkmm_result *r;
	int status = lkmm_check_file(ctx, path, opts, &r);
	const char *at = status ? NULL : strstr(r->out.buf, line);

	snprintf(found, size, "%.*s", at ? (int)strcspn(at, "\n") : 0, at ? at : "");
	lkmm_result_free(r);
	return status;
}

static void test_decides_as_the_cli(void **state)
{
	struct check_options opts = defaults();
	char *sb = kernel_test("SB+poonceonces"), line[128];

	assert_int_equal(check(*state, sb, &opts, "Observation", line, sizeof(line)), 0);
	assert_string_equal(line, "Observation SB+poonceonces Sometimes 1 3");
	free(sb);
}

/* Each error is the test's own: the next test, with the same context, is decided. */
static void test_errors_return_and_the_context_goes_on(void **state)
{
	struct check_options opts = defaults(), limited = defaults();
	char *sb = kernel_test("SB+poonceonces"), *mp = kernel_test("MP+pooncerelease+poacquireonce");
	char bad[] = "/tmp/lkmm_test.XXXXXX", line[128];
	int fd = mkstemp(bad);
	struct lkmm_result *r;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "C bad\n{}\nP0(int *x) { WRITE_ONCE(*x 1); }\n", 41), 41);
	close(fd);
	assert_int_equal(check(*state, bad, &opts, "", line, sizeof(line)), EXIT_BAD_INPUT);
	assert_int_equal(check(*state, "/no/such.litmus", &opts, "", line, sizeof(line)),
			 EXIT_BAD_INPUT);
	limited.max_executions = 2;
	assert_int_equal(lkmm_check_file(*state, sb, &limited, &r), EXIT_LIMIT);
	assert_non_null(strstr(r->outcomes.limit, "more than 2 candidate executions"));
	lkmm_result_free(r);
	assert_int_equal(check(*state, mp, &opts, "Observation", line, sizeof(line)), 0);
	assert_string_equal(line, "Observation MP+pooncerelease+poacquireonce Never 0 3");
	unlink(bad);
	free(sb);
	free(mp);
}

/* A model that does not load is the caller's to report: status 2, no exit. */
static void test_bad_model_returns(void **state)
{
	char dir[] = "/tmp/lkmm_test.XXXXXX", path[64];
	struct lkmm ctx;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/bad.cfg", dir);
	f = fopen(path, "w");
	fputs("macros bad.def\nmodel bad.cat\n", f);
	fclose(f);
	assert_int_equal(open_model(&ctx, dir, "bad.cfg", NULL), EXIT_BAD_INPUT);
	assert_null(ctx.loaded.model);
	snprintf(path, sizeof(path), "%s/bad.cat", dir);
	f = fopen(path, "w");
	fputs("\"bad\"\nacyclic po |\n", f);
	fclose(f);
	assert_int_equal(open_model(&ctx, dir, "bad.cfg", NULL), EXIT_BAD_INPUT);
	unlink(path);
	snprintf(path, sizeof(path), "%s/bad.cfg", dir);
	unlink(path);
	rmdir(dir);
}

/* The cache file lkmm_open() wrote in dir, removed; false if there was none. */
static bool remove_cache_files(const char *dir)
{
	char command[128];

	snprintf(command, sizeof(command), "ls %s | grep -q '^model-' && rm -f %s/model-*", dir, dir);
	return system(command) == 0;
}

/*
 * A context opened from the model cache decides as one opened from the
 * files, twice in one process (the second maps the image elsewhere and
 * moves it), and closes with nothing left (the ASan build's leak check).
 */
static void test_model_cache_decides_the_same(void **state)
{
	struct check_options opts = defaults();
	char dir[] = "/tmp/lkmm_test.XXXXXX", *lb = kernel_test("LB+poonceonces"), line[128];
	struct lkmm cold, warm, moved, *ctxs[] = { &cold, &warm, &moved };

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(open_model(&cold, model_dir(), "linux-kernel.cfg", dir), 0);
	assert_null(cold.loaded.image);
	assert_int_equal(open_model(&warm, model_dir(), "linux-kernel.cfg", dir), 0);
	assert_int_equal(open_model(&moved, model_dir(), "linux-kernel.cfg", dir), 0);
	assert_non_null(warm.loaded.image);
	assert_non_null(moved.loaded.image);
	assert_ptr_not_equal(warm.loaded.image, moved.loaded.image);
	for (size_t i = 0; i < sizeof(ctxs) / sizeof(ctxs[0]); i++) {
		assert_int_equal(check(ctxs[i], lb, &opts, "Observation", line, sizeof(line)), 0);
		assert_string_equal(line, "Observation LB+poonceonces Sometimes 1 3");
		lkmm_close(ctxs[i]);
	}
	assert_true(remove_cache_files(dir));
	assert_int_equal(rmdir(dir), 0);
	free(lb);
}

/* The kernel tests a shared model is checked on, and their verdicts from one thread. */
static const char *const shared_tests[] = {
	"SB+poonceonces", "MP+poonceonces", "LB+poonceonces", "IRIW+poonceonces+OnceOnce",
	"Z6.0+pooncelock+poonceLock+pombonce", "MP+polocks", "ISA2+poonceonces",
	"R+fencembonceonces",
};
enum { NSHARED = sizeof(shared_tests) / sizeof(shared_tests[0]), NTHREADS = 4 };

struct shared_job {
	struct lkmm_model *model;
	long positive[NSHARED], negative[NSHARED];
	int failures;
};

static void *check_shared(void *arg)
{
	struct shared_job *job = arg;
	struct lkmm_options opts;

	lkmm_options_init(&opts);
	opts.explain = 1;
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < NSHARED; i++) {
			char *path = kernel_test(shared_tests[i]);
			FILE *f = fopen(path, "r");
			char text[8192];
			size_t len = f ? fread(text, 1, sizeof(text), f) : 0;
			struct lkmm_result *r;
			struct lkmm_error *err;

			if (f)
				fclose(f);
			if (lkmm_check(job->model, path, text, len, &opts, &r, &err)) {
				job->failures++;
				lkmm_error_free(err);
			} else {
				lkmm_verdict(r, &job->positive[i], &job->negative[i]);
				lkmm_result_free(r);
			}
			free(path);
		}
	}
	return NULL;
}

/*
 * One model opened through include/lkmm.h, checked from four threads at
 * once: every thread's verdicts are one thread's (the model is read-only;
 * each call evaluates in a context of its own).  Under ASan, no leak.
 */
static void test_threads_share_one_model(void **state)
{
	struct lkmm_model *model;
	struct lkmm_error *err;
	struct shared_job alone = { 0 }, jobs[NTHREADS];
	pthread_t threads[NTHREADS];

	(void)state;
	assert_int_equal(lkmm_model_open(&model, model_dir(), NULL, &err), 0);
	alone.model = model;
	check_shared(&alone);
	assert_int_equal(alone.failures, 0);
	assert_true(alone.positive[0] > 0);
	for (int t = 0; t < NTHREADS; t++) {
		jobs[t] = (struct shared_job){ .model = model };
		assert_int_equal(pthread_create(&threads[t], NULL, check_shared, &jobs[t]), 0);
	}
	for (int t = 0; t < NTHREADS; t++) {
		assert_int_equal(pthread_join(threads[t], NULL), 0);
		assert_int_equal(jobs[t].failures, 0);
		assert_memory_equal(jobs[t].positive, alone.positive, sizeof(alone.positive));
		assert_memory_equal(jobs[t].negative, alone.negative, sizeof(alone.negative));
	}
	lkmm_model_close(model);
}

/* The text of a model file, read whole (allocated). */
static char *model_file(const char *name)
{
	char path[4096];
	FILE *f;
	long len;
	char *text;

	snprintf(path, sizeof(path), "%s/%s", model_dir(), name);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = calloc(1, len + 1);
	assert_int_equal(fread(text, 1, len, f), (size_t)len);
	fclose(f);
	return text;
}

/* The kernel test name checked under model with opts (NULL: the defaults) through the public calls. */
static struct lkmm_result *public_check(struct lkmm_model *model, const char *name,
					const struct lkmm_options *opts)
{
	char *path = kernel_test(name), text[8192];
	FILE *f = fopen(path, "r");
	size_t len = fread(text, 1, sizeof(text), f);
	struct lkmm_options defaults;
	struct lkmm_result *r;
	struct lkmm_error *err = NULL;

	fclose(f);
	lkmm_options_init(&defaults);
	assert_int_equal(lkmm_check(model, path, text, len, opts ? opts : &defaults, &r, &err), 0);
	free(path);
	return r;
}

/* A verdict of the kernel test name under model: "Observation ... N M". */
static void public_verdict(struct lkmm_model *model, const char *name, long *pos, long *neg)
{
	struct lkmm_result *r = public_check(model, name, NULL);

	lkmm_verdict(r, pos, neg);
	lkmm_result_free(r);
}

/*
 * A model given in memory (the browser's way) decides as the same model
 * read from its directory; a file it names but that is not given is an
 * error at the line that names it.
 */
static void test_model_from_memory(void **state)
{
	static const char *const names[] = {
		"linux-kernel.cfg", "linux-kernel.def", "linux-kernel.bell", "linux-kernel.cat",
		"lock.cat",
	};
	enum { N = sizeof(names) / sizeof(names[0]) };
	struct lkmm_file files[N];
	struct lkmm_model *from_dir, *from_memory;
	struct lkmm_error *err = NULL;
	long pos[2], neg[2];

	(void)state;
	for (int i = 0; i < N; i++)
		files[i] = (struct lkmm_file){ names[i], model_file(names[i]) };
	assert_int_equal(lkmm_model_open(&from_dir, model_dir(), NULL, &err), 0);
	assert_int_equal(lkmm_model_open_files(&from_memory, files, N, NULL, &err), 0);
	for (int t = 0; t < 3; t++) {
		const char *tests[] = { "MP+poonceonces", "MP+polocks", "SB+poonceonces" };

		public_verdict(from_dir, tests[t], &pos[0], &neg[0]);
		public_verdict(from_memory, tests[t], &pos[1], &neg[1]);
		assert_int_equal(pos[0], pos[1]);
		assert_int_equal(neg[0], neg[1]);
		assert_true(pos[0] + neg[0] > 0);
	}
	lkmm_model_close(from_memory);
	lkmm_model_close(from_dir);
	/* Without lock.cat: the include that names it is the error's place. */
	assert_int_equal(lkmm_model_open_files(&from_memory, files, N - 1, NULL, &err),
			 LKMM_BAD_INPUT);
	assert_null(from_memory);
	assert_non_null(err);
	assert_non_null(err->file);
	assert_non_null(strstr(err->file, "linux-kernel.cat"));
	assert_true(err->line > 0);
	assert_non_null(strstr(err->message, "lock.cat"));
	lkmm_error_free(err);
	for (int i = 0; i < N; i++)
		free((char *)files[i].text);
}

/* lkmm code asks the model which primitives it defines, and whether they have a value. */
static void test_primitives_of_the_model(void **state)
{
	struct lkmm_model *model;
	struct lkmm_error *err;

	(void)state;
	assert_int_equal(lkmm_model_open(&model, model_dir(), NULL, &err), 0);
	assert_int_equal(lkmm_model_primitive(model, "READ_ONCE"), LKMM_EXPRESSION);
	assert_int_equal(lkmm_model_primitive(model, "xchg_acquire"), LKMM_EXPRESSION);
	assert_int_equal(lkmm_model_primitive(model, "WRITE_ONCE"), LKMM_STATEMENT);
	assert_int_equal(lkmm_model_primitive(model, "smp_mb"), LKMM_STATEMENT);
	assert_int_equal(lkmm_model_primitive(model, "no_such_primitive"), LKMM_UNDEFINED);
	lkmm_model_close(model);
}

/* A console as the guest prints it: MP's run, with state "1 0" count times when count > 0. */
static const char *mp_log(long forbidden)
{
	static char log[1024];
	char extra[64] = "";

	if (forbidden)
		snprintf(extra, sizeof(extra), "[    1.004] lkmm-run: state %ld 1 0\n", forbidden);
	snprintf(log, sizeof(log),
		 "[    1.000] lkmm-run: begin MP+pooncerelease+poacquireonce\n"
		 "[    1.001] lkmm-run: vars 1:r0 1:r1\n"
		 "[    1.002] lkmm-run: state 600 0 0\n"
		 "[    1.003] lkmm-run: state 400 1 1\n"
		 "%s"
		 "[    1.005] lkmm-run: end MP+pooncerelease+poacquireonce runs=2 size=500 "
		 "ninst=1 cpus=2 ns=2000000\n", extra);
	return log;
}

/*
 * lkmm run's half in the library: the test as a module, whether it fits
 * the guest, and the guest's log held against the verdict, each run
 * taken once.
 */
static void test_module_and_its_log(void **state)
{
	struct lkmm_model *model;
	struct lkmm_error *err = NULL;
	struct lkmm_options opts;
	struct lkmm_result *r;
	struct lkmm_log *log;
	struct lkmm_run *run;
	const char *text;

	(void)state;
	assert_int_equal(lkmm_model_open(&model, model_dir(), NULL, &err), 0);
	r = public_check(model, "MP+pooncerelease+poacquireonce", NULL);
	assert_string_equal(lkmm_text(r, LKMM_MODULE), "");
	lkmm_result_free(r);
	lkmm_options_init(&opts);
	opts.module = 1;
	r = public_check(model, "MP+pooncerelease+poacquireonce", &opts);
	assert_non_null(strstr(lkmm_text(r, LKMM_MODULE), "#include \"lkmm-runtime.h\""));
	assert_non_null(strstr(lkmm_text(r, LKMM_MODULE), "smp_store_release("));
	assert_non_null(strstr(lkmm_module_runtime(), "module_param"));

	/* Two processes: one CPU is too few, at the second process's line. */
	assert_int_equal(lkmm_module_fits(r, 2, 1, &err), 0);
	assert_int_equal(lkmm_module_fits(r, 1, 1, &err), LKMM_BAD_INPUT);
	assert_true(err->line > 1);
	assert_non_null(strstr(err->message, "raise --cpus"));
	lkmm_error_free(err);

	text = mp_log(0);
	assert_int_equal(lkmm_log_read(&log, "console.log", text, strlen(text), &err), 0);
	assert_int_equal(lkmm_log_compare(log, r, &run, &err), 0);
	assert_int_equal(run->positive, 0);
	assert_int_equal(run->negative, 1000);
	assert_int_equal(run->states, 2);
	assert_int_equal(run->violations, 0);
	assert_string_equal(run->alarms, "");
	assert_non_null(strstr(run->text, "Model MP+pooncerelease+poacquireonce Never 0 3"));
	lkmm_run_free(run);
	/* Its one run is taken: a second look finds none. */
	assert_int_equal(lkmm_log_compare(log, r, &run, &err), LKMM_BAD_INPUT);
	assert_null(run);
	assert_non_null(strstr(err->message, "no result in the log"));
	lkmm_error_free(err);
	lkmm_log_free(log);

	text = mp_log(7);
	assert_int_equal(lkmm_log_read(&log, "console.log", text, strlen(text), &err), 0);
	assert_int_equal(lkmm_log_compare(log, r, &run, &err), 0);
	assert_int_equal(run->positive, 7);
	assert_int_equal(run->violations, 1);
	assert_non_null(strstr(run->alarms, "MODEL VIOLATION"));
	assert_non_null(strstr(run->text, "FORBIDDEN 7"));
	lkmm_run_free(run);
	lkmm_log_free(log);
	lkmm_result_free(r);
	lkmm_model_close(model);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_decides_as_the_cli, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors_return_and_the_context_goes_on,
						setup, teardown),
		cmocka_unit_test(test_bad_model_returns),
		cmocka_unit_test(test_model_cache_decides_the_same),
		cmocka_unit_test(test_threads_share_one_model),
		cmocka_unit_test(test_model_from_memory),
		cmocka_unit_test(test_primitives_of_the_model),
		cmocka_unit_test(test_module_and_its_log),
	};

	return cmocka_run_group_tests_name("lkmm", tests, NULL, NULL);
}
