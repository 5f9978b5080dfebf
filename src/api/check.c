/*
 * check.c - decide each test given on the command line: parse, expand,
 * generate events, enumerate executions through the model, report.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "api.h"

/* DIR/NAME.SUFFIX, NAME being the file's name without .litmus. */
static char *output_path(const char *dir, const char *path, const char *suffix)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t len = strlen(base);
	struct strbuf name = { 0 };

	if (len > 7 && !strcmp(base + len - 7, ".litmus"))
		len -= 7;
	sb_addf(&name, "%s/%.*s.%s", dir, (int)len, base, suffix);
	return name.buf;
}

/* -o DIR: DIR/NAME.out. */
static void write_out_file(const char *dir, const char *path, const char *text)
{
	char *name = output_path(dir, path, "out");

	write_file(name, text);
	free(name);
}

/*
 * What one test holds while it is checked: when bad input or a limit
 * deeper down ends the test (die() jumps back to lkmm_check_file()),
 * everything is in the result, freed here.
 */
void lkmm_result_free(struct lkmm_result *r)
{
	outcomes_free(&r->outcomes);
	sb_free(&r->out);
	sb_free(&r->herd);
	sb_free(&r->stats);
	sb_free(&r->explanation);
	sb_free(&r->suggestion);
	sb_free(&r->dot);
	sb_free(&r->svg);
	if (r->prog)
		program_free(r->prog);
	if (r->test)
		litmus_free(r->test);
	free(r->text);
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
	enumerate(r->prog, c->eval, c->threads, c->opts, &r->outcomes);
}

/* The test's output in r->out; EXIT_LIMIT, with the reason printed, if a limit ended it. */
static void run_test(void *arg)
{
	struct test_job *job = arg;
	struct lkmm_result *r = job->run;
	const struct check_options *opts = job->checker->opts;
	double start = monotonic_seconds();

	r->text = job->text ? xstrdup(job->text) : read_file(job->path, NULL);
	if (!r->text)
		die(EXIT_BAD_INPUT, "cannot read %s: %s", job->path, strerror(errno));
	decide(r, job->path, job->checker);
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
	if (opts->explain || opts->html_file)
		explain(r->prog, &r->outcomes, opts->suggest, &r->explanation);
	if (opts->explain)
		sb_addf(&r->out, "%s", r->explanation.buf);
	if (opts->suggest) {
		suggest(job->checker, job->path, r->text, &r->outcomes, &r->suggestion);
		sb_addf(&r->out, "%s", r->suggestion.buf ? r->suggestion.buf : "");
	}
	if (opts->graph) {
		struct graph g;

		explain_graph(r->prog, &r->outcomes, &g);
		graph_dot(&g, &r->dot);
		graph_svg(&g, &r->svg);
		graph_free(&g);
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

/* What the run writes besides standard output: graphs and the page. */
struct run_outputs {
	struct strbuf html;		/* the sections of --html's page */
};

static void html_escaped(const char *text, struct strbuf *out)
{
	for (; text && *text; text++) {
		switch (*text) {
		case '<':
			sb_addf(out, "&lt;");
			break;
		case '>':
			sb_addf(out, "&gt;");
			break;
		case '&':
			sb_addf(out, "&amp;");
			break;
		case '"':
			sb_addf(out, "&quot;");
			break;
		default:
			sb_addf(out, "%c", *text);
		}
	}
}

/* The test's graph: DIR/NAME.dot with --graph DIR, DIR/NAME.svg with --svg too. */
static void write_graph(struct lkmm_result *r, const char *path, const struct check_options *opts)
{
	char *name = output_path(opts->graph_dir, path, "dot");

	write_file(name, r->dot.buf);
	free(name);
	if (opts->svg) {
		name = output_path(opts->graph_dir, path, "svg");
		write_file(name, r->svg.buf);
		free(name);
	}
}

/* The test's section of the --html page: verdict, explanation, suggestion, graph. */
static void html_section(struct lkmm_result *r, struct run_outputs *outs)
{
	sb_addf(&outs->html, "<section id=\"");
	html_escaped(r->test->name, &outs->html);
	sb_addf(&outs->html, "\">\n<h2>");
	html_escaped(r->test->name, &outs->html);
	sb_addf(&outs->html, " <span class=\"verdict\">%s</span></h2>\n<pre class=\"herd\">",
		observation(&r->outcomes));
	r->out.buf[r->herd_len] = '\0';
	html_escaped(r->out.buf, &outs->html);
	sb_addf(&outs->html, "</pre>\n<pre class=\"explanation\">");
	html_escaped(r->explanation.buf, &outs->html);
	sb_addf(&outs->html, "</pre>\n");
	if (r->suggestion.buf) {
		sb_addf(&outs->html, "<pre class=\"suggestion\">");
		html_escaped(r->suggestion.buf, &outs->html);
		sb_addf(&outs->html, "</pre>\n");
	}
	sb_addf(&outs->html, "<div class=\"graph\">%s</div>\n</section>\n", r->svg.buf);
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
	struct test_job job = { xcalloc(1, sizeof(**result)), path, text, &c, 0 };
	int status = catch_die(run_test, &job);

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
	job->text = read_file(path, NULL);
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

void lkmm_split(struct lkmm *ctx, int nthreads)
{
	ctx->threads = nthreads;
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

/* r's text after herd7's block, retold by opts->retell. */
static void retell_result(struct lkmm_result *r, const struct check_options *opts)
{
	struct strbuf *texts[] = { &r->explanation, &r->suggestion };
	struct strbuf tail = { 0 };
	size_t i;

	if (!opts->retell)
		return;
	if (r->out.len > r->herd_len) {
		opts->retell(opts->retell_arg, r->out.buf + r->herd_len, &tail);
		r->out.len = r->herd_len;
		r->out.buf[r->herd_len] = '\0';
		if (tail.buf)
			sb_adds(&r->out, tail.buf);
		sb_free(&tail);
	}
	for (i = 0; i < sizeof(texts) / sizeof(*texts); i++) {
		struct strbuf told = { 0 };

		if (!texts[i]->buf)
			continue;
		opts->retell(opts->retell_arg, texts[i]->buf, &told);
		sb_free(texts[i]);
		*texts[i] = told;
	}
}

/*
 * What a decided test leaves, in the order of the files given: errors,
 * the messages of its errors that a -j worker kept (NULL if none).
 */
static void finish_one(const char *path, struct lkmm_result *r, int status, const char *errors,
		       const struct check_options *opts, struct run_outputs *outs)
{
	if (errors) {
		fflush(stdout);
		fputs(errors, stderr);
	}
	if (status == EXIT_LIMIT && r->outcomes.limit) {
		fflush(stdout);
		fprintf(stderr, "lkmm: %s\n", r->outcomes.limit);
	}
	if (!status)
		retell_result(r, opts);
	if (!status && !opts->quiet) {
		fputs(r->out.buf, stdout);
		fputs("\n", stdout);
		fflush(stdout);
	}
	if (!status && opts->out_dir)
		write_out_file(opts->out_dir, path, r->out.buf);
	if (!status && opts->graph_dir)
		write_graph(r, path, opts);
	if (!status && opts->html_file)
		html_section(r, outs);
	lkmm_result_free(r);
}

static const char html_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<title>lkmm: litmus tests explained</title>\n<style>\n"
	"body { font-family: sans-serif; margin: 2em; }\n"
	"pre { background: #f6f6f6; padding: 0.5em; white-space: pre-wrap; }\n"
	"section { border-top: 1px solid #ccc; margin-top: 2em; }\n"
	".verdict { font-weight: normal; color: #555; }\n"
	".graph svg { max-width: 100%; height: auto; }\n"
	"</style>\n</head>\n<body>\n<h1>Litmus tests explained by lkmm</h1>\n";

static void write_html(const char *file, const struct strbuf *sections)
{
	struct strbuf page = { 0 };

	sb_addf(&page, "%s%s</body>\n</html>\n", html_head, sections->buf ? sections->buf : "");
	write_file(file, page.buf);
	sb_free(&page);
}

/*
 * -j: worker threads take the files in turn, each with a context of its
 * own that shares the one model (read-only) and has its own evaluation
 * of it; the main thread prints each test's output as soon as it and
 * all before it are done, so the output is -j 1's.
 */
struct slot {
	struct lkmm_result *run;
	int status;
	struct strbuf errors;	/* its error messages, for the main thread to print */
	bool done;
};

struct pool {
	char **files;
	int nfiles, next;
	const struct check_options *opts;
	pthread_mutex_t lock;
	pthread_cond_t done;
	struct slot *slots;
};

struct worker {
	struct pool *pool;
	struct lkmm ctx;
};

static void *worker(void *arg)
{
	struct worker *w = arg;
	struct pool *pool = w->pool;

	for (;;) {
		struct lkmm_result *r;
		struct strbuf errors = { 0 };
		int i, status;

		pthread_mutex_lock(&pool->lock);
		i = pool->next++;
		pthread_mutex_unlock(&pool->lock);
		if (i >= pool->nfiles)
			break;
		die_output = &errors;
		status = lkmm_check_file(&w->ctx, pool->files[i], pool->opts, &r);
		die_output = NULL;
		pthread_mutex_lock(&pool->lock);
		pool->slots[i] = (struct slot){ r, status, errors, true };
		pthread_cond_broadcast(&pool->done);
		pthread_mutex_unlock(&pool->lock);
	}
	return NULL;
}

static int check_in_parallel(char **files, int nfiles, const struct lkmm *ctx,
			     const struct check_options *opts, struct run_outputs *outs)
{
	int nthreads = opts->jobs < nfiles ? opts->jobs : nfiles, i, started, worst = 0;
	struct pool pool = { files, nfiles, 0, opts,
			     PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL };
	pthread_t *threads = xcalloc(nthreads, sizeof(*threads));
	struct worker *workers = xcalloc(nthreads, sizeof(*workers));

	/* The first worker has ctx, the others its model with an evaluation of their own. */
	for (i = 0; i < nthreads; i++) {
		workers[i].pool = &pool;
		workers[i].ctx = *ctx;
		if (i)
			workers[i].ctx.eval = cat_eval_new(ctx->loaded.model);
	}
	pool.slots = xcalloc(nfiles, sizeof(*pool.slots));
	for (started = 0; started < nthreads; started++)
		if (pthread_create(&threads[started], NULL, worker, &workers[started]))
			break;
	if (!started)
		die(EXIT_INTERNAL, "cannot start a thread for -j");
	for (i = 0; i < nfiles; i++) {
		struct slot slot;

		pthread_mutex_lock(&pool.lock);
		while (!pool.slots[i].done)
			pthread_cond_wait(&pool.done, &pool.lock);
		slot = pool.slots[i];
		pthread_mutex_unlock(&pool.lock);
		finish_one(files[i], slot.run, slot.status, slot.errors.buf, opts, outs);
		sb_free(&slot.errors);
		worst = slot.status > worst ? slot.status : worst;
	}
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	for (i = 1; i < nthreads; i++)
		cat_eval_free(workers[i].ctx.eval);
	free(workers);
	free(threads);
	free(pool.slots);
	return worst;
}

/* Each file is reported on its own; the exit status is the worst seen. */
int check_files(char **files, int nfiles, const struct check_options *opts)
{
	struct lkmm ctx;
	struct run_outputs outs = { 0 };
	int i, worst = lkmm_open(&ctx, &opts->model, opts->cache_dir);

	if (worst)
		return worst;
	/* One test: its search gets the threads. */
	if (opts->jobs > 1 && nfiles == 1)
		lkmm_split(&ctx, opts->jobs);
	if (opts->jobs > 1 && nfiles > 1) {
		worst = check_in_parallel(files, nfiles, &ctx, opts, &outs);
	} else {
		for (i = 0; i < nfiles; i++) {
			struct lkmm_result *r;
			int status = lkmm_check_file(&ctx, files[i], opts, &r);

			finish_one(files[i], r, status, NULL, opts, &outs);
			worst = status > worst ? status : worst;
		}
	}
	if (opts->html_file)
		write_html(opts->html_file, &outs.html);
	sb_free(&outs.html);
	lkmm_close(&ctx);
	return worst;
}
