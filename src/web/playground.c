/*
 * playground.c - the web playground's one door into the library: every
 * call the page makes into lkmm is here, and only the two functions of
 * the section "The library" below touch it, so that a change of the
 * library's entry changes them alone.
 *
 * Built with emscripten (the Makefile's `web` target), with the model's
 * files embedded under MODEL_DIR.  The page calls
 *
 *	lkmm_playground_open()		once, at start-up: loads the model
 *	lkmm_playground_check(name, text, flags)
 *					a test's verdict as a JSON object
 *
 * The JSON object (keys always present, a string empty when there is
 * nothing to say):
 *
 *	status		0 when decided, else the library's exit status
 *	name		the test's name as given
 *	herd		herd7's block, line for line
 *	observation	"Never", "Sometimes" or "Always" ("" if undecided)
 *	positive, negative	herd7's "Positive: N Negative: M"
 *	explanation	--explain's plain words
 *	suggestion	--suggest's text (with PLAYGROUND_SUGGEST)
 *	fixes		[{ "title": ..., "diff": ... }]: the suggestion's
 *			unified diffs, each with the line that names it
 *	dot		the graph, for Graphviz
 *	svg		the graph as SVG ("" until the library lays it out)
 *	error		null, or { "line", "col", "message" }: the first
 *			error in the test (line and col 0 when it has none)
 *	messages	everything the library said on standard error
 *	seconds		how long the check took
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lkmm.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#define PLAYGROUND_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define PLAYGROUND_EXPORT
#endif

/* Where the Makefile embeds the model's files. */
#ifndef MODEL_DIR
#define MODEL_DIR "/model"
#endif

enum {
	PLAYGROUND_SUGGEST = 1,		/* search fixes too (seconds, not milliseconds) */
};

/* Seconds a check may take before it is given up (the page's own limit). */
enum { PLAYGROUND_TIMEOUT = 60 };

/* A growing string of our own (the library's are its business). */
struct text {
	char *s;
	size_t len, cap;
};

static void text_add(struct text *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		t->s = realloc(t->s, t->cap);
		if (!t->s)
			abort();
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len] = '\0';
}

static void text_adds(struct text *t, const char *s)
{
	text_add(t, s, strlen(s));
}

static void text_addf(struct text *t, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(small)) {
		text_add(t, small, (size_t)n);
	} else if (n >= 0) {
		char *big = malloc((size_t)n + 1);

		if (!big)
			abort();
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		text_add(t, big, (size_t)n);
		free(big);
	}
}

/* What a check says, in plain strings (each NULL when it has nothing). */
struct verdict {
	int status;			/* 0, or the library's status */
	char *herd, *observation, *explanation, *suggestion, *dot, *svg;
	long positive, negative;
	char *messages;			/* what the library said of errors */
	char *error;			/* the first error's message alone... */
	int line, col;			/* ...and its place in the test (0 when none) */
};

static void verdict_free(struct verdict *v)
{
	free(v->herd);
	free(v->observation);
	free(v->explanation);
	free(v->suggestion);
	free(v->dot);
	free(v->svg);
	free(v->messages);
	free(v->error);
}

static char *copy(const char *s, size_t n)
{
	char *c = malloc(n + 1);

	if (!c)
		abort();
	memcpy(c, s, n);
	c[n] = '\0';
	return c;
}

static char *copy_string(const char *s)
{
	return s ? copy(s, strlen(s)) : NULL;
}

/* ---- The library: the only code here that calls lkmm ---- */

static struct lkmm_model *model;
static int open_status = -1;
static struct lkmm_error *open_error;

/* Load the model from MODEL_DIR, once: 0, or the library's status. */
static int library_open(void)
{
	if (open_status < 0)
		open_status = lkmm_model_open(&model, MODEL_DIR, NULL, &open_error);
	return open_status;
}

/* The error into v: its message and, when it is in the test, its place. */
static void take_error(struct verdict *v, const char *name, const struct lkmm_error *err)
{
	v->messages = copy_string(err->text);
	v->error = copy_string(err->message);
	if (err->file && !strcmp(err->file, name)) {
		v->line = err->line;
		v->col = err->column;
	}
}

/* Check text as `lkmm check --explain [--suggest] --graph` would, into v. */
static void library_check(const char *name, const char *text, bool with_suggestions,
			  struct verdict *v)
{
	struct lkmm_options opts;
	struct lkmm_result *r;
	struct lkmm_error *err;

	memset(v, 0, sizeof(*v));
	v->status = library_open();
	if (v->status) {
		take_error(v, name, open_error);
		return;
	}
	lkmm_options_init(&opts);
	opts.explain = 1;
	opts.glossary = 1;	/* a page has room for what each word means */
	opts.suggest = with_suggestions;
	opts.graph = 1;
	opts.timeout = PLAYGROUND_TIMEOUT;
	v->status = lkmm_check(model, name, text, strlen(text), &opts, &r, &err);
	if (v->status) {
		take_error(v, name, err);
		lkmm_error_free(err);
		return;
	}
	v->herd = copy_string(lkmm_text(r, LKMM_HERD));
	v->observation = copy_string(lkmm_observation(r));
	lkmm_verdict(r, &v->positive, &v->negative);
	v->explanation = copy_string(lkmm_text(r, LKMM_EXPLAIN));
	v->suggestion = copy_string(lkmm_text(r, LKMM_SUGGEST));
	v->dot = copy_string(lkmm_text(r, LKMM_DOT));
	v->svg = copy_string(lkmm_text(r, LKMM_SVG));
	lkmm_result_free(r);
}

/* ---- The JSON answer ---- */

/* s as a JSON string, quotes included. */
static void json_string(struct text *out, const char *s, size_t len)
{
	size_t i;

	text_adds(out, "\"");
	for (i = 0; s && i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			text_addf(out, "\\%c", c);
		else if (c == '\n')
			text_adds(out, "\\n");
		else if (c == '\t')
			text_adds(out, "\\t");
		else if (c < 0x20)
			text_addf(out, "\\u%04x", c);
		else
			text_add(out, (const char *)&s[i], 1);
	}
	text_adds(out, "\"");
}

static void json_key(struct text *out, const char *key, const char *s)
{
	text_addf(out, ",\n\"%s\": ", key);
	json_string(out, s ? s : "", s ? strlen(s) : 0);
}

/*
 * The suggestion's unified diffs: each "--- " line indented by four
 * spaces, and the lines of its hunks after it, de-indented; its title
 * the last numbered line before it ("1. (cost 2) ..."), without which
 * a diff is not a fix.
 */
static void json_fixes(struct text *out, const char *suggestion)
{
	const char *p = suggestion, *title = NULL;
	size_t title_len = 0;
	bool first = true;

	text_adds(out, ",\n\"fixes\": [");
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		const char *q = p, *cost;

		while (q < p + len && *q == ' ')
			q++;
		cost = strstr(q, ". (cost ");
		if (q > p && q < p + len && *q >= '0' && *q <= '9' && cost && cost < p + len) {
			title = q;
			title_len = (size_t)(p + len - q);
		}
		/* Only a numbered fix's: a forbidden test's cheaper form is no fix. */
		if (len > 8 && !strncmp(p, "    --- ", 8) && title) {
			struct text diff = { 0 };

			/* The header, then every line of the hunks, four spaces in. */
			while (*p && !strncmp(p, "    ", 4)) {
				eol = strchr(p, '\n');
				len = eol ? (size_t)(eol - p) : strlen(p);
				if (len >= 5 && !strchr("-+ @\\", p[4]))
					break;
				text_add(&diff, p + 4, len - 4);
				text_adds(&diff, "\n");
				p = eol ? eol + 1 : p + len;
			}
			text_adds(out, first ? "\n{ \"title\": " : ",\n{ \"title\": ");
			json_string(out, title, title ? title_len : 0);
			text_adds(out, ", \"diff\": ");
			json_string(out, diff.s, diff.len);
			text_adds(out, " }");
			free(diff.s);
			first = false;
			continue;
		}
		p = eol ? eol + 1 : p + len;
	}
	text_adds(out, "]");
}

/* The error: its place in the test (0, 0 when it has none) and its message. */
static void json_error(struct text *out, const struct verdict *v)
{
	const char *message = v->error && *v->error ? v->error : "the test could not be checked";

	text_addf(out, ",\n\"error\": { \"line\": %d, \"col\": %d, \"message\": ", v->line,
		  v->col);
	json_string(out, message, strlen(message));
	text_adds(out, " }");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- What the page calls ---- */

/* Load the model: 0, or the library's status. */
PLAYGROUND_EXPORT int lkmm_playground_open(void)
{
	return library_open();
}

/*
 * Check text, name naming it in messages and diffs: a JSON object (see
 * above), valid until the next call.
 */
PLAYGROUND_EXPORT const char *lkmm_playground_check(const char *name, const char *text, int flags)
{
	static char *last;
	struct text out = { 0 };
	struct verdict v;
	double start = now();

	library_check(name, text, (flags & PLAYGROUND_SUGGEST) != 0, &v);
	text_addf(&out, "{\"status\": %d", v.status);
	json_key(&out, "name", name);
	json_key(&out, "herd", v.herd);
	json_key(&out, "observation", v.observation);
	text_addf(&out, ",\n\"positive\": %ld, \"negative\": %ld", v.positive, v.negative);
	json_key(&out, "explanation", v.explanation);
	json_key(&out, "suggestion", v.suggestion);
	json_fixes(&out, v.suggestion);
	json_key(&out, "dot", v.dot);
	json_key(&out, "svg", v.svg);
	if (v.status)
		json_error(&out, &v);
	else
		text_adds(&out, ",\n\"error\": null");
	json_key(&out, "messages", v.messages);
	text_addf(&out, ",\n\"seconds\": %.4f}\n", now() - start);
	verdict_free(&v);
	free(last);
	last = out.s;
	return last;
}
