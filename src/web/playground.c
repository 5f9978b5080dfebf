/*
 * playground.c - the web playground's one door into the library: every
 * call the page makes into lkmm is here, so that a change of the
 * library's entry changes this file only.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

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

static struct lkmm ctx;
static int open_status = -1;
static struct strbuf open_messages;
static char *last_json;

/* s as a JSON string, quotes included. */
static void json_string(struct strbuf *out, const char *s, size_t len)
{
	size_t i;

	sb_adds(out, "\"");
	for (i = 0; s && i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			sb_addf(out, "\\%c", c);
		else if (c == '\n')
			sb_adds(out, "\\n");
		else if (c == '\t')
			sb_adds(out, "\\t");
		else if (c < 0x20)
			sb_addf(out, "\\u%04x", c);
		else
			sb_addf(out, "%c", c);
	}
	sb_adds(out, "\"");
}

static void json_key(struct strbuf *out, const char *key, const char *s)
{
	sb_addf(out, ",\n\"%s\": ", key);
	json_string(out, s ? s : "", s ? strlen(s) : 0);
}

/*
 * The suggestion's unified diffs: each "--- " line indented by four
 * spaces, and the lines of its hunks after it, de-indented; its title
 * the last numbered line before it ("1. (cost 2) ...").
 */
static void json_fixes(struct strbuf *out, const char *text)
{
	const char *p = text, *title = NULL;
	size_t title_len = 0;
	bool first = true;

	sb_adds(out, ",\n\"fixes\": [");
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		const char *q = p;

		while (q < p + len && *q == ' ')
			q++;
		if (q > p && q < p + len && *q >= '0' && *q <= '9' && strstr(q, ". (cost ") &&
		    strstr(q, ". (cost ") < p + len) {
			title = q;
			title_len = (size_t)(p + len - q);
		}
		if (len > 8 && !strncmp(p, "    --- ", 8)) {
			struct strbuf diff = { 0 };

			/* The header, then every line indented by four spaces. */
			while (p && *p && !strncmp(p, "    ", 4)) {
				eol = strchr(p, '\n');
				len = eol ? (size_t)(eol - p) : strlen(p);
				if (!strncmp(p, "    ", 4) && len >= 5 &&
				    !strchr("-+ @\\", p[4]))
					break;
				sb_addf(&diff, "%.*s\n", (int)(len - 4), p + 4);
				p = eol ? eol + 1 : p + len;
			}
			sb_adds(out, first ? "\n{ \"title\": " : ",\n{ \"title\": ");
			json_string(out, title, title ? title_len : 0);
			sb_adds(out, ", \"diff\": ");
			json_string(out, diff.buf, diff.len);
			sb_adds(out, " }");
			sb_free(&diff);
			first = false;
			continue;
		}
		p = eol ? eol + 1 : p + len;
	}
	sb_adds(out, "]");
}

/*
 * The first "NAME:LINE:COL: error: MESSAGE" of messages, name being the
 * test's; else the first line as it is.
 */
static void json_error(struct strbuf *out, const char *name, const char *messages)
{
	size_t nlen = strlen(name);
	const char *p, *line = messages;
	int l = 0, c = 0;

	for (p = messages; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		int n = 0;

		if (!strncmp(p, name, nlen) && sscanf(p + nlen, ":%d:%d: error: %n", &l, &c, &n) == 2 &&
		    n > 0) {
			line = p + nlen + n;
			break;
		}
		l = c = 0;
	}
	if (!line || !*line)
		line = "the test could not be checked";
	p = strchr(line, '\n');
	sb_addf(out, ",\n\"error\": { \"line\": %d, \"col\": %d, \"message\": ", l, c);
	json_string(out, line, p ? (size_t)(p - line) : strlen(line));
	sb_adds(out, " }");
}

/* Load the model from MODEL_DIR: 0, or the library's status. */
PLAYGROUND_EXPORT int lkmm_playground_open(void)
{
	struct model_spec spec = { MODEL_DIR, "linux-kernel.cfg", NULL };

	if (open_status < 0) {
		die_output = &open_messages;
		open_status = lkmm_open(&ctx, &spec, NULL);
		die_output = NULL;
		if (open_status)
			fputs(open_messages.buf ? open_messages.buf : "", stderr);
	}
	return open_status;
}

/*
 * Check text, name naming it in messages and diffs: a JSON object (see
 * above), valid until the next call.
 */
PLAYGROUND_EXPORT const char *lkmm_playground_check(const char *name, const char *text, int flags)
{
	struct check_options opts = { 0 };
	struct lkmm_result *r = NULL;
	struct strbuf messages = { 0 }, out = { 0 };
	double start = monotonic_seconds();
	int status;

	opts.model = (struct model_spec){ MODEL_DIR, "linux-kernel.cfg", NULL };
	opts.quiet = true;
	opts.explain = true;
	opts.suggest = (flags & PLAYGROUND_SUGGEST) != 0;
	opts.graph_dir = "/tmp";	/* asks for the graph; nothing is written */
	opts.keep_executions = true;	/* a witness and counterexamples, for the above */
	opts.speedcheck = SPEEDCHECK_FALSE;
	opts.max_executions = 10000000;
	opts.limits.max_traces = 100000;
	opts.limits.max_values = 256;
	opts.suggest_timeout = SUGGEST_TIMEOUT;
	opts.timeout = PLAYGROUND_TIMEOUT;

	status = lkmm_playground_open();
	if (!status) {
		die_output = &messages;
		status = lkmm_check_text(&ctx, name, text, &opts, &r);
		die_output = NULL;
	} else {
		sb_adds(&messages, open_messages.buf ? open_messages.buf : "cannot load the model");
	}
	if (status == EXIT_LIMIT && r && r->outcomes.limit)
		sb_addf(&messages, "%s\n", r->outcomes.limit);

	sb_addf(&out, "{\"status\": %d", status);
	json_key(&out, "name", name);
	if (!status && r) {
		sb_adds(&out, ",\n\"herd\": ");
		json_string(&out, r->out.buf, r->herd_len);
		json_key(&out, "observation", observation(&r->outcomes));
		sb_addf(&out, ",\n\"positive\": %ld, \"negative\": %ld", r->outcomes.positive,
			r->outcomes.negative);
		json_key(&out, "explanation", r->explanation.buf);
		json_key(&out, "suggestion", r->suggestion.buf);
		json_fixes(&out, r->suggestion.buf);
		json_key(&out, "dot", r->dot.buf);
		json_key(&out, "svg", "");	/* the library's own SVG, when it has one */
		sb_adds(&out, ",\n\"error\": null");
	} else {
		json_key(&out, "herd", "");
		json_key(&out, "observation", "");
		sb_adds(&out, ",\n\"positive\": 0, \"negative\": 0");
		json_key(&out, "explanation", "");
		json_key(&out, "suggestion", "");
		sb_adds(&out, ",\n\"fixes\": []");
		json_key(&out, "dot", "");
		json_key(&out, "svg", "");
		json_error(&out, name, messages.buf);
	}
	json_key(&out, "messages", messages.buf);
	sb_addf(&out, ",\n\"seconds\": %.4f}\n", monotonic_seconds() - start);
	if (r)
		lkmm_result_free(r);
	sb_free(&messages);
	free(last_json);
	last_json = out.buf;
	return last_json;
}
