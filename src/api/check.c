/*
 * check.c - decide each test given on the command line: parse, expand,
 * generate events, enumerate executions through the model, report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "api.h"

/*
 * What one test holds while it is checked: when bad input or a limit
 * deeper down ends the test (die() jumps back to lkmm_check_file()),
 * everything is in the result, freed here.
 */
void lkmm_result_free(struct lkmm_result *r)
{
	if (!r)
		return;
	outcomes_free(&r->outcomes);
	sb_free(&r->out);
	sb_free(&r->herd);
	sb_free(&r->stats);
	sb_free(&r->events);
	sb_free(&r->explanation);
	sb_free(&r->suggestion);
	sb_free(&r->dot);
	sb_free(&r->svg);
	sb_free(&r->module);
	if (r->as_written)
		litmus_free(r->as_written);
	arena_free(&r->module_scratch);
	if (r->prog)
		program_free(r->prog);
	if (r->test)
		litmus_free(r->test);
	free(r->text);
	free(r->path);
	free(r);
}

/* What run_test() needs besides the test_run it fills. */
struct test_job {
	struct lkmm_result *run;
	const char *path;
	const char *text;		/* the test, or NULL to read it from path */
	const struct checker *checker;
	int status;
};

void check_options_init(struct check_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->speedcheck = SPEEDCHECK_FALSE;
	opts->max_executions = 10000000;
	opts->limits.max_traces = 100000;
	opts->limits.max_values = 256;
	opts->max_variants = 0;		/* the time budget bounds the search */
	opts->suggest_timeout = SUGGEST_TIMEOUT;
}

/* Parse, expand, generate and enumerate r->text. */
static void decide(struct lkmm_result *r, const char *path, const struct checker *c)
{
	r->test = xcalloc(1, sizeof(*r->test));
	litmus_read(r->test, path, r->text);
	litmus_expand(r->test, c->macros);
	r->prog = xcalloc(1, sizeof(*r->prog));
	program_build(r->prog, r->test, &c->opts->limits, model_rmw_style(c->model));
	if (c->opts->events_only)
		return;
	enumerate(r->prog, c->eval, c->threads, c->opts, &r->outcomes);
}

/* The test's output in r->out; EXIT_LIMIT, with the reason printed, if a limit ended it. */
static void run_test(void *arg)
{
	struct test_job *job = arg;
	struct lkmm_result *r = job->run;
	const struct check_options *opts = job->checker->opts;
	double start = monotonic_seconds();
	struct strbuf in_short = { 0 };

	r->text = job->text ? xstrdup(job->text) : read_file(job->path, NULL);
	if (!r->text)
		die(EXIT_BAD_INPUT, "cannot read %s: %s", job->path, strerror(errno));
	decide(r, job->path, job->checker);
	if (opts->events_only) {
		program_text(r->prog, &r->events);
		return;
	}
	if (r->outcomes.limit) {
		job->status = EXIT_LIMIT;	/* the reason is printed in order, by finish_one() */
		return;
	}
	report(r->prog, &r->outcomes, monotonic_seconds() - start, &r->herd);
	sb_add(&r->out, r->herd.buf, r->herd.len);
	r->herd_len = r->out.len;
	if (opts->stats) {
		stats_print(&r->outcomes, &r->stats);
		sb_add(&r->out, r->stats.buf, r->stats.len);
	}
	/* The suggestion first: the explanation opens with its answer in one line. */
	if (opts->suggest)
		suggest(job->checker, job->path, r->text, &r->outcomes,
			opts->explain ? &in_short : NULL, &r->suggestion);
	if (opts->explain) {
		explain(r->prog, &r->outcomes, opts->suggest, opts->glossary, in_short.buf,
			&r->explanation);
		sb_addf(&r->out, "%s", r->explanation.buf);
	}
	sb_free(&in_short);
	if (opts->suggest)
		sb_addf(&r->out, "%s", r->suggestion.buf ? r->suggestion.buf : "");
	if (opts->graph) {
		struct graph g;

		explain_graph(r->prog, &r->outcomes, &g);
		graph_dot(&g, &r->dot);
		graph_svg(&g, &r->svg);
		graph_free(&g);
	}
	if (opts->module) {
		/* The kernel's own READ_ONCE() and friends implement the test as written. */
		r->as_written = xcalloc(1, sizeof(*r->as_written));
		litmus_read(r->as_written, job->path, r->text);
		module_emit(r->as_written, r->prog, &r->outcomes, &r->module_scratch, &r->module);
	}
}

/* What outcome_reachable() hands decide() under catch_die(). */
struct variant_job {
	struct lkmm_result *run;
	const char *path;
	const struct checker *checker;
};

static void decide_variant(void *arg)
{
	struct variant_job *job = arg;

	decide(job->run, job->path, job->checker);
}

/*
 * A variant decided under opts (a copy of the checker's, which the caller
 * has changed); NULL if it does not parse or a limit ends it.
 */
static struct lkmm_result *decide_text(const struct checker *c, const struct check_options *opts,
				       const char *path, const char *text)
{
	struct checker quick = { c->model, c->eval, c->macros, opts, 0, NULL, NULL };
	struct lkmm_result *r = xcalloc(1, sizeof(*r));
	struct variant_job job = { r, path, &quick };

	r->text = xstrdup(text);
	if (catch_die(decide_variant, &job) || r->outcomes.limit) {
		lkmm_result_free(r);
		return NULL;
	}
	return r;
}

/* struct checker's reachable(), for --suggest. */
static bool outcome_reachable(const struct checker *c, const char *path, const char *text,
			      bool *ok, struct snapshot **witness)
{
	struct check_options opts = *c->opts;
	struct lkmm_result *r;
	bool reachable = false;

	/* Whether is all we ask: stop at the first execution that settles it. */
	opts.speedcheck = SPEEDCHECK_TRUE;
	opts.keep_executions = witness != NULL;
	r = decide_text(c, &opts, path, text);
	*ok = r != NULL;
	if (witness)
		*witness = NULL;
	if (!r)
		return false;
	reachable = r->test->quantifier == Q_FORALL ? r->outcomes.negative > 0 :
		    r->outcomes.positive > 0;
	if (witness) {
		*witness = r->outcomes.witness;
		r->outcomes.witness = NULL;
	}
	lkmm_result_free(r);
	return reachable;
}

/* struct checker's raises_flag(), for --suggest. */
static bool flag_raised(const struct checker *c, const char *path, const char *text,
			const char *flag, bool *ok)
{
	struct check_options opts = *c->opts;
	struct lkmm_result *r;
	bool raised = false;
	int i;

	/* Every execution may raise it: no -speedcheck. */
	opts.speedcheck = SPEEDCHECK_FALSE;
	opts.keep_executions = false;
	r = decide_text(c, &opts, path, text);
	*ok = r != NULL;
	for (i = 0; r && i < r->outcomes.nflags; i++)
		raised |= !strcmp(r->outcomes.flags[i], flag);
	if (r)
		lkmm_result_free(r);
	return raised;
}

/*
 * An error in a test is caught here and the caller goes on with the next:
 * the test's text, tree and runs are in the result, and the search's
 * limits stop the search, which frees what it holds, rather than jump.
 */
int lkmm_check_text(const struct lkmm *ctx, const char *path, const char *text,
		    const struct check_options *opts, struct lkmm_result **result)
{
	const struct checker c = { ctx->loaded.model, ctx->eval, ctx->loaded.macros, opts,
				   ctx->threads, outcome_reachable, flag_raised };
	struct test_job job = { xcalloc(1, sizeof(**result)), NULL, text, &c, 0 };
	int status;

	/* The result's positions name the file: it keeps its own copy of the name. */
	job.path = job.run->path = xstrdup(path);
	status = catch_die(run_test, &job);

	*result = job.run;
	return status ? status : job.status;
}

int lkmm_check_file(const struct lkmm *ctx, const char *path, const struct check_options *opts,
		    struct lkmm_result **result)
{
	return lkmm_check_text(ctx, path, NULL, opts, result);
}

/* What open_model() fills under catch_die(): the context, the macros' text. */
struct open_job {
	struct lkmm *ctx;
	const struct model_spec *spec;
	char *text;
};

static void open_model(void *arg)
{
	struct open_job *job = arg;
	const char *path;

	job->ctx->loaded.model = cat_load(job->spec);
	path = cat_macros_file(job->ctx->loaded.model);
	if (!path)
		die(EXIT_BAD_INPUT, "the model's configuration names no macros file");
	job->text = model_file_read(job->spec, path);
	if (!job->text)
		die(EXIT_BAD_INPUT, "cannot read %s: %s", path, strerror(errno));
	job->ctx->loaded.macros = xcalloc(1, sizeof(*job->ctx->loaded.macros));
	macros_read(job->ctx->loaded.macros, path, job->text);
}

int lkmm_open(struct lkmm *ctx, const struct model_spec *spec, const char *cache_dir)
{
	struct open_job job = { ctx, spec, NULL };
	int status = 0;

	memset(ctx, 0, sizeof(*ctx));
	if (!cache_dir || !model_cache_load(&ctx->loaded, cache_dir, spec)) {
		status = catch_die(open_model, &job);
		if (!status && cache_dir)
			model_cache_store(&ctx->loaded, cache_dir, spec, job.text);
		free(job.text);
	}
	if (status)
		lkmm_close(ctx);
	else
		ctx->eval = cat_eval_new(ctx->loaded.model);
	return status;
}

void lkmm_close(struct lkmm *ctx)
{
	if (ctx->eval)
		cat_eval_free(ctx->eval);
	if (ctx->loaded.macros)
		macros_free(ctx->loaded.macros);
	if (ctx->loaded.model)
		cat_free(ctx->loaded.model);
	if (ctx->loaded.image)
		munmap(ctx->loaded.image, ctx->loaded.image_size);
	memset(ctx, 0, sizeof(*ctx));
}
