/*
 * check.c - decide each test given on the command line: parse, expand,
 * generate events, enumerate executions through the model, report.
 */
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cat.h"
#include "check.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

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
 * Graphviz's dot renders dot_path to svg_path; false when it is not
 * installed or fails (the checker itself never links against Graphviz).
 */
static bool render_svg(const char *dot_path, const char *svg_path)
{
	char *argv[] = { "dot", "-Tsvg", (char *)dot_path, "-o", (char *)svg_path, NULL };
	extern char **environ;
	pid_t pid;
	int status;

	if (posix_spawnp(&pid, "dot", NULL, NULL, argv, environ))
		return false;
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status);
}

/*
 * What one test holds while it is checked: when bad input or a limit
 * deeper down ends the test (die() jumps back to run_one()), everything
 * here is freed and the run goes on with the next test.
 */
struct test_run {
	char *text;
	struct litmus *test;
	struct program *prog;
	struct outcomes outcomes;
	struct strbuf out;
	size_t herd_len;		/* herd7's output: the start of out */
	struct strbuf explanation, suggestion, dot;
};

static void test_run_free(struct test_run *r)
{
	outcomes_free(&r->outcomes);
	sb_free(&r->out);
	sb_free(&r->explanation);
	sb_free(&r->suggestion);
	sb_free(&r->dot);
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
	const struct checker *checker;
	int status;
};

/* Parse, expand, generate and enumerate r->text. */
static void decide(struct test_run *r, const char *path, const struct checker *c)
{
	r->test = xcalloc(1, sizeof(*r->test));
	litmus_read(r->test, path, r->text);
	litmus_expand(r->test, c->macros);
	r->prog = xcalloc(1, sizeof(*r->prog));
	program_build(r->prog, r->test, &c->opts->limits);
	enumerate(r->prog, c->model, c->opts, &r->outcomes);
}

/* The test's output in r->out; EXIT_LIMIT, with the reason printed, if a limit ended it. */
static void run_test(void *arg)
{
	struct test_job *job = arg;
	struct test_run *r = job->run;
	const struct check_options *opts = job->checker->opts;
	double start = now();

	r->text = read_file(job->path, NULL);
	if (!r->text)
		die(EXIT_BAD_INPUT, "cannot read %s: %s", job->path, strerror(errno));
	decide(r, job->path, job->checker);
	if (r->outcomes.limit) {
		job->status = EXIT_LIMIT;	/* the reason is printed in order, by finish_one() */
		return;
	}
	report(r->prog, &r->outcomes, now() - start, &r->out);
	r->herd_len = r->out.len;
	if (opts->stats)
		stats_print(&r->outcomes, &r->out);
	if (opts->explain || opts->html_file)
		explain(r->prog, &r->outcomes, &r->explanation);
	if (opts->explain)
		sb_addf(&r->out, "%s", r->explanation.buf);
	if (opts->suggest) {
		suggest(job->checker, job->path, r->text, &r->outcomes, &r->suggestion);
		sb_addf(&r->out, "%s", r->suggestion.buf ? r->suggestion.buf : "");
	}
	if (opts->graph_dir || opts->html_file)
		explain_graph(r->prog, &r->outcomes, &r->dot);
}

/* What outcome_reachable() hands decide() under catch_die(). */
struct variant_job {
	struct test_run *run;
	const char *path;
	const struct checker *checker;
};

static void decide_variant(void *arg)
{
	struct variant_job *job = arg;

	decide(job->run, job->path, job->checker);
}

bool outcome_reachable(const struct checker *c, const char *path, const char *text, bool *ok)
{
	struct check_options opts = *c->opts;
	struct checker quick = { c->model, c->macros, &opts };
	struct test_run *r = xcalloc(1, sizeof(*r));
	struct variant_job job = { r, path, &quick };
	bool reachable = false;

	/* Whether is all we ask: stop at the first execution that settles it. */
	opts.speedcheck = SPEEDCHECK_TRUE;
	opts.keep_executions = false;
	r->text = xstrdup(text);
	*ok = !catch_die(decide_variant, &job) && !r->outcomes.limit;
	if (*ok)
		reachable = r->test->quantifier == Q_FORALL ? r->outcomes.negative > 0 :
			    r->outcomes.positive > 0;
	test_run_free(r);
	return reachable;
}

/* What the run writes besides standard output: graphs and the page. */
struct run_outputs {
	struct strbuf html;		/* the sections of --html's page */
	char *scratch_dir;		/* for graphs --html needs without --graph */
	bool told_no_dot;
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

/*
 * The test's graph: DIR/NAME.dot with --graph, DIR/NAME.svg with --svg
 * (or for --html, in a scratch directory); the SVG's text when rendered.
 */
static char *write_graph(struct test_run *r, const char *path, const struct check_options *opts,
			 struct run_outputs *outs)
{
	const char *dir = opts->graph_dir ? opts->graph_dir : outs->scratch_dir;
	char *dot = output_path(dir, path, "dot"), *svg = output_path(dir, path, "svg");
	char *text = NULL;

	write_file(dot, r->dot.buf);
	if ((opts->svg || opts->html_file) && render_svg(dot, svg)) {
		text = read_file(svg, NULL);
		if (!opts->svg || !opts->graph_dir)
			unlink(svg);
	} else if (opts->svg || opts->html_file) {
		if (!outs->told_no_dot)
			fprintf(stderr, "lkmm: Graphviz's dot is not installed (Debian: apt-get "
				"install graphviz); the graphs are the .dot files in %s: render "
				"one with dot -Tsvg FILE.dot -o FILE.svg\n",
				opts->graph_dir ? opts->graph_dir : "--graph DIR");
		outs->told_no_dot = true;
	}
	if (!opts->graph_dir)
		unlink(dot);
	free(dot);
	free(svg);
	return text;
}

/* The test's section of the --html page: verdict, explanation, suggestion, graph. */
static void html_section(struct test_run *r, const char *svg, struct run_outputs *outs)
{
	const char *start = svg ? strstr(svg, "<svg") : NULL;

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
	sb_addf(&outs->html, "<div class=\"graph\">%s</div>\n</section>\n",
		start ? start : "<p>(no graph: Graphviz's dot is not installed)</p>");
}

/*
 * An error in a test is caught here and the run goes on with the next:
 * the test's text, tree and runs are freed from r, and the search's limits
 * stop the search, which frees what it holds, rather than jump.
 */
static int run_one(const char *path, const struct checker *c, struct test_run **run)
{
	struct test_job job = { xcalloc(1, sizeof(**run)), path, c, 0 };
	int status = catch_die(run_test, &job);

	*run = job.run;
	return status ? status : job.status;
}

/* What a decided test leaves, in the order of the files given. */
static void finish_one(const char *path, struct test_run *r, int status,
		       const struct check_options *opts, struct run_outputs *outs)
{
	if (status == EXIT_LIMIT && r->outcomes.limit) {
		fflush(stdout);
		fprintf(stderr, "lkmm: %s\n", r->outcomes.limit);
	}
	if (!status && !opts->quiet) {
		fputs(r->out.buf, stdout);
		fputs("\n", stdout);
		fflush(stdout);
	}
	if (!status && opts->out_dir)
		write_out_file(opts->out_dir, path, r->out.buf);
	if (!status && r->dot.buf) {
		char *svg = write_graph(r, path, opts, outs);

		if (opts->html_file)
			html_section(r, svg, outs);
		free(svg);
	}
	test_run_free(r);
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
 * -j: worker threads take the files in turn, each with a model of its own
 * (evaluation writes into it); the main thread prints each test's output
 * as soon as it and all before it are done, so the output is -j 1's.
 */
struct slot {
	struct test_run *run;
	int status;
	bool done;
};

struct pool {
	char **files;
	int nfiles, next;
	const struct check_options *opts;
	const struct macro_table *macros;
	pthread_mutex_t lock;
	pthread_cond_t done;
	struct slot *slots;
};

static void *worker(void *arg)
{
	struct pool *pool = arg;
	struct cat_model *model = cat_load(pool->opts->model_dir, pool->opts->cfg_name);
	const struct checker c = { model, pool->macros, pool->opts };

	for (;;) {
		struct test_run *r;
		int i, status;

		pthread_mutex_lock(&pool->lock);
		i = pool->next++;
		pthread_mutex_unlock(&pool->lock);
		if (i >= pool->nfiles)
			break;
		status = run_one(pool->files[i], &c, &r);
		pthread_mutex_lock(&pool->lock);
		pool->slots[i] = (struct slot){ r, status, true };
		pthread_cond_broadcast(&pool->done);
		pthread_mutex_unlock(&pool->lock);
	}
	cat_free(model);
	return NULL;
}

static int check_in_parallel(char **files, int nfiles, const struct checker *c,
			     struct run_outputs *outs)
{
	int nthreads = c->opts->jobs < nfiles ? c->opts->jobs : nfiles, i, started, worst = 0;
	struct pool pool = { files, nfiles, 0, c->opts, c->macros,
			     PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			     xcalloc(nfiles, sizeof(*pool.slots)) };
	pthread_t *threads = xcalloc(nthreads, sizeof(*threads));

	for (started = 0; started < nthreads; started++)
		if (pthread_create(&threads[started], NULL, worker, &pool))
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
		finish_one(files[i], slot.run, slot.status, c->opts, outs);
		worst = slot.status > worst ? slot.status : worst;
	}
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	free(pool.slots);
	return worst;
}

/* Each file is reported on its own; the exit status is the worst seen. */
int check_files(char **files, int nfiles, const struct check_options *opts)
{
	struct cat_model *model = cat_load(opts->model_dir, opts->cfg_name);
	struct macro_table *macros = load_macros(cat_macros_file(model));
	const struct checker c = { model, macros, opts };
	struct run_outputs outs = { 0 };
	char scratch[] = "/tmp/lkmm-graphs-XXXXXX";
	int i, worst = 0;

	if (opts->html_file && !opts->graph_dir) {
		if (!mkdtemp(scratch))
			die(EXIT_INTERNAL, "cannot make a scratch directory: %s", strerror(errno));
		outs.scratch_dir = scratch;
	}
	if (opts->jobs > 1 && nfiles > 1) {
		worst = check_in_parallel(files, nfiles, &c, &outs);
	} else {
		for (i = 0; i < nfiles; i++) {
			struct test_run *r;
			int status = run_one(files[i], &c, &r);

			finish_one(files[i], r, status, opts, &outs);
			worst = status > worst ? status : worst;
		}
	}
	if (opts->html_file)
		write_html(opts->html_file, &outs.html);
	if (outs.scratch_dir)
		rmdir(outs.scratch_dir);
	sb_free(&outs.html);
	macros_free(macros);
	cat_free(model);
	return worst;
}
