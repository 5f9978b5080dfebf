/*
 * files.c - `lkmm check FILE...`: each test through the library
 * (include/lkmm.h), its output in the order given (-j: tests at once),
 * and what goes beside it: -o's files, --graph's and --svg's, --html's
 * page.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* One test, checked: its result or its error. */
struct checked {
	struct lkmm_result *result;
	struct lkmm_error *error;
	int status;
};

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

/* The library's options for what opts prints and writes. */
static struct lkmm_options library_options(const struct files_options *opts)
{
	struct lkmm_options lib = opts->check;

	lib.explain = opts->check.explain || opts->html_file;
	/* A page has room for what each word means. */
	lib.glossary = opts->check.glossary || opts->html_file;
	lib.graph = opts->graph_dir || opts->html_file;
	return lib;
}

static void check_one(struct lkmm_model *model, const char *path, const struct lkmm_options *lib,
		      struct checked *out)
{
	size_t len;
	char *text = read_file(path, &len);

	memset(out, 0, sizeof(*out));
	if (!text) {
		const char *why = strerror(errno);
		struct strbuf msg = { 0 };

		sb_addf(&msg, "lkmm: cannot read %s: %s\n", path, why);
		out->error = xcalloc(1, sizeof(*out->error));
		out->error->status = out->status = LKMM_BAD_INPUT;
		out->error->message = xstrdup(why);
		out->error->text = msg.buf;
		return;
	}
	out->status = lkmm_check(model, path, text, len, lib, &out->result, &out->error);
	free(text);
}

/* text as opts->retell tells it (allocated), or a copy. */
static char *retold(const struct files_options *opts, const char *text)
{
	struct strbuf told = { 0 };

	if (!opts->retell || !*text)
		return xstrdup(text);
	opts->retell(opts->retell_arg, text, &told);
	return told.buf ? told.buf : xstrdup("");
}

static void html_escaped(const char *text, struct strbuf *out)
{
	for (; text && *text; text++) {
		switch (*text) {
		case '<':
			sb_adds(out, "&lt;");
			break;
		case '>':
			sb_adds(out, "&gt;");
			break;
		case '&':
			sb_adds(out, "&amp;");
			break;
		case '"':
			sb_adds(out, "&quot;");
			break;
		default:
			sb_add(out, text, 1);
		}
	}
}

/* The test's section of the --html page: verdict, explanation, suggestion, graph. */
static void html_section(const struct lkmm_result *r, const char *explanation,
			 const char *suggestion, struct strbuf *html)
{
	const char *svg = lkmm_text(r, LKMM_SVG);

	sb_adds(html, "<section id=\"");
	html_escaped(lkmm_test_name(r), html);
	sb_adds(html, "\">\n<h2>");
	html_escaped(lkmm_test_name(r), html);
	sb_addf(html, " <span class=\"verdict\">%s</span></h2>\n<pre class=\"herd\">",
		lkmm_observation(r));
	html_escaped(lkmm_text(r, LKMM_HERD), html);
	sb_adds(html, "</pre>\n<pre class=\"explanation\">");
	html_escaped(explanation, html);
	sb_adds(html, "</pre>\n");
	if (*suggestion) {
		sb_adds(html, "<pre class=\"suggestion\">");
		html_escaped(suggestion, html);
		sb_adds(html, "</pre>\n");
	}
	sb_addf(html, "<div class=\"graph\">%s</div>\n</section>\n", svg);
}

/* --graph DIR: DIR/NAME.dot, and DIR/NAME.svg with --svg. */
static void write_graph(const char *path, const struct lkmm_result *r,
			const struct files_options *opts)
{
	char *file = output_path(opts->graph_dir, path, "dot");

	write_file(file, lkmm_text(r, LKMM_DOT));
	free(file);
	if (opts->svg) {
		file = output_path(opts->graph_dir, path, "svg");
		write_file(file, lkmm_text(r, LKMM_SVG));
		free(file);
	}
}

/*
 * What a checked test leaves, in the order of the files given: its
 * errors, or its output (herd7's block, then what was asked), its files
 * and its --html section.
 */
static void finish_one(const char *path, struct checked *c, const struct files_options *opts,
		       struct strbuf *html)
{
	const struct lkmm_result *r = c->result;
	struct strbuf out = { 0 };
	char *explanation, *suggestion;

	if (c->status) {
		fflush(stdout);
		fputs(c->error->text, stderr);
		lkmm_error_free(c->error);
		return;
	}
	explanation = retold(opts, lkmm_text(r, LKMM_EXPLAIN));
	suggestion = retold(opts, lkmm_text(r, LKMM_SUGGEST));
	sb_adds(&out, lkmm_text(r, LKMM_HERD));
	sb_adds(&out, lkmm_text(r, LKMM_STATS));
	if (opts->check.explain)
		sb_adds(&out, explanation);
	sb_adds(&out, suggestion);
	if (!opts->quiet) {
		fputs(out.buf, stdout);
		fputs("\n", stdout);
		fflush(stdout);
	}
	if (opts->out_dir) {
		char *file = output_path(opts->out_dir, path, "out");

		write_file(file, out.buf);
		free(file);
	}
	if (opts->graph_dir)
		write_graph(path, r, opts);
	if (opts->html_file)
		html_section(r, explanation, suggestion, html);
	free(explanation);
	free(suggestion);
	sb_free(&out);
	lkmm_result_free(c->result);
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
 * -j: worker threads take the files in turn; the main thread prints each
 * test's output as soon as it and all before it are done, so the output
 * is -j 1's.
 */
struct pool {
	char **files;
	int nfiles, next;
	struct lkmm_model *model;
	struct lkmm_options lib;
	pthread_mutex_t lock;
	pthread_cond_t done;
	struct checked *slots;
	bool *ready;
};

static void *worker(void *arg)
{
	struct pool *pool = arg;

	for (;;) {
		struct checked c;
		int i;

		pthread_mutex_lock(&pool->lock);
		i = pool->next++;
		pthread_mutex_unlock(&pool->lock);
		if (i >= pool->nfiles)
			break;
		check_one(pool->model, pool->files[i], &pool->lib, &c);
		pthread_mutex_lock(&pool->lock);
		pool->slots[i] = c;
		pool->ready[i] = true;
		pthread_cond_broadcast(&pool->done);
		pthread_mutex_unlock(&pool->lock);
	}
	return NULL;
}

static int check_in_parallel(char **files, int nfiles, struct lkmm_model *model,
			     const struct files_options *opts, struct strbuf *html)
{
	int nthreads = opts->jobs < nfiles ? opts->jobs : nfiles, i, started, worst = 0;
	struct pool pool = { files, nfiles, 0, model, library_options(opts),
			     PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			     xcalloc(nfiles, sizeof(struct checked)), xcalloc(nfiles, sizeof(bool)) };
	pthread_t *threads = xcalloc(nthreads, sizeof(*threads));

	for (started = 0; started < nthreads; started++)
		if (pthread_create(&threads[started], NULL, worker, &pool))
			break;
	if (!started)
		die(EXIT_INTERNAL, "cannot start a thread for -j");
	for (i = 0; i < nfiles; i++) {
		struct checked c;

		pthread_mutex_lock(&pool.lock);
		while (!pool.ready[i])
			pthread_cond_wait(&pool.done, &pool.lock);
		c = pool.slots[i];
		pthread_mutex_unlock(&pool.lock);
		worst = c.status > worst ? c.status : worst;
		finish_one(files[i], &c, opts, html);
	}
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	free(pool.slots);
	free(pool.ready);
	return worst;
}

int check_files(char **files, int nfiles, const struct files_options *opts)
{
	struct strbuf html = { 0 };
	struct lkmm_model *model;
	struct lkmm_error *err;
	int worst = lkmm_model_open(&model, opts->model_dir, &opts->model, &err);

	if (worst) {
		fputs(err->text, stderr);
		lkmm_error_free(err);
		return worst;
	}
	if (opts->jobs > 1 && nfiles > 1) {
		worst = check_in_parallel(files, nfiles, model, opts, &html);
	} else {
		struct lkmm_options lib = library_options(opts);

		/* One test: its search gets the threads. */
		lib.threads = opts->jobs;
		for (int i = 0; i < nfiles; i++) {
			struct checked c;

			check_one(model, files[i], &lib, &c);
			worst = c.status > worst ? c.status : worst;
			finish_one(files[i], &c, opts, &html);
		}
	}
	if (opts->html_file)
		write_html(opts->html_file, &html);
	sb_free(&html);
	lkmm_model_close(model);
	return worst;
}
