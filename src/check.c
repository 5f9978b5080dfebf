/*
 * check.c - decide each test given on the command line: parse, expand,
 * generate events, enumerate executions through the model, report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cat.h"
#include "check.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* -o DIR: DIR/NAME.out, NAME being the file's name without .litmus. */
static void write_out_file(const char *dir, const char *path, const char *text)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t len = strlen(base);
	struct strbuf name = { 0 };
	FILE *f;

	if (len > 7 && !strcmp(base + len - 7, ".litmus"))
		len -= 7;
	sb_addf(&name, "%s/%.*s.out", dir, (int)len, base);
	f = fopen(name.buf, "w");
	if (!f || fputs(text, f) == EOF || fclose(f))
		die(EXIT_BAD_INPUT, "cannot write %s: %s", name.buf, strerror(errno));
	sb_free(&name);
}

/*
 * What one test holds while it is checked: when bad input or a limit
 * deeper down ends the test (die() jumps back to check_one()), everything
 * here is freed and the run goes on with the next test.
 */
struct test_run {
	char *text;
	struct litmus *test;
	struct program *prog;
	struct outcomes outcomes;
	struct strbuf out;
};

static void test_run_free(struct test_run *r)
{
	outcomes_free(&r->outcomes);
	sb_free(&r->out);
	if (r->prog)
		program_free(r->prog);
	if (r->test)
		litmus_free(r->test);
	free(r->text);
	free(r);
}

/* What run_test() needs besides the test_run it fills. */
struct test_job {
	struct test_run *run;
	const char *path;
	struct cat_model *model;
	const struct macro_table *macros;
	const struct check_options *opts;
	int status;
};

/* The test's output in r->out; EXIT_LIMIT, with the reason printed, if a limit ended it. */
static void run_test(void *arg)
{
	struct test_job *job = arg;
	struct test_run *r = job->run;
	const struct check_options *opts = job->opts;
	double start = now();

	r->text = read_file(job->path, NULL);
	if (!r->text)
		die(EXIT_BAD_INPUT, "cannot read %s: %s", job->path, strerror(errno));
	r->test = xcalloc(1, sizeof(*r->test));
	litmus_read(r->test, job->path, r->text);
	litmus_expand(r->test, job->macros);
	r->prog = xcalloc(1, sizeof(*r->prog));
	program_build(r->prog, r->test, &opts->limits);
	enumerate(r->prog, job->model, opts, &r->outcomes);
	if (r->outcomes.limit) {
		fflush(stdout);
		fprintf(stderr, "lkmm: %s\n", r->outcomes.limit);
		job->status = EXIT_LIMIT;
		return;
	}
	report(r->prog, &r->outcomes, now() - start, &r->out);
	if (opts->explain)
		explain(r->prog, &r->outcomes, &r->out);
}

/*
 * An error in a test is caught here and the run goes on with the next:
 * the test's text, tree and runs are freed from r, and the search's limits
 * stop the search, which frees what it holds, rather than jump.
 */
static int check_one(const char *path, struct cat_model *model,
		     const struct macro_table *macros, const struct check_options *opts)
{
	struct test_run *r = xcalloc(1, sizeof(*r));
	struct test_job job = { r, path, model, macros, opts, 0 };
	int status = catch_die(run_test, &job);

	if (!status)
		status = job.status;
	if (!status && !opts->quiet) {
		fputs(r->out.buf, stdout);
		fputs("\n", stdout);
		fflush(stdout);
	}
	if (!status && opts->out_dir)
		write_out_file(opts->out_dir, path, r->out.buf);
	test_run_free(r);
	return status;
}

/* Each file is reported on its own; the exit status is the worst seen. */
int check_files(char **files, int nfiles, const struct check_options *opts)
{
	struct cat_model *model = cat_load(opts->model_dir, opts->cfg_name);
	struct macro_table *macros = load_macros(cat_macros_file(model));
	int i, worst = 0;

	for (i = 0; i < nfiles; i++) {
		int status = check_one(files[i], model, macros, opts);

		if (status > worst)
			worst = status;
	}
	macros_free(macros);
	cat_free(model);
	return worst;
}
