/*
 * runlog.c - what a kernel run of litmus tests printed, held against the
 * model: the "lkmm-run:" lines of module.c's modules, or klitmus7's own
 * blocks, from a console or a log the user brings.
 *
 * A log is read once for all its tests; each test then takes the first
 * block of its name not yet taken, so a test given twice takes two.  A
 * state the kernel reached and the model forbids is a violation: a bug
 * in the model, the compiler, the emulator or the hardware.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* One "lkmm-run:" block of the log: a module's begin .. end. */
struct log_block {
	char *name;
	int line;
	char *vars;
	struct vec states;		/* the "COUNT V..." texts */
	struct vec state_lines;		/* their line numbers, as (intptr_t) */
	char *error;
	bool ended, claimed;
	bool klitmus;			/* read from klitmus7's own block */
	long long ns;
	long long filtered;		/* instances the test's filter rejected */
};

struct run_log {
	char *path;
	int nblocks;
	struct log_block *blocks;
};

/* The length of the word at *s, moved past the blanks before it. */
static size_t word_length(const char **s)
{
	while (**s == ' ')
		(*s)++;
	return strcspn(*s, " ");
}

static char *word(const char **s)
{
	size_t n = word_length(s);
	char *w = xstrndup(*s, n);

	*s += n;
	return w;
}

static struct log_block *open_block(struct run_log *log, char *name, int line)
{
	struct log_block *b;

	log->blocks = xrealloc(log->blocks, (log->nblocks + 1) * sizeof(*log->blocks));
	b = &log->blocks[log->nblocks++];
	memset(b, 0, sizeof(*b));
	b->name = name;
	b->line = line;
	return b;
}

/* The number after " key=" in an end line. */
static long long field(const char *rest, const char *key)
{
	char pattern[16];
	const char *at;

	snprintf(pattern, sizeof(pattern), " %s=", key);
	at = strstr(rest, pattern);
	return at ? atoll(at + strlen(pattern)) : 0;
}

/* One "lkmm-run: WHAT ..." line; cur is the block it belongs to. */
static struct log_block *read_log_line(struct run_log *log, struct log_block *cur,
				       const char *rest, int line)
{
	char *what = word(&rest), *name;

	while (*rest == ' ')
		rest++;
	if (!strcmp(what, "begin")) {
		cur = open_block(log, word(&rest), line);
	} else if (!strcmp(what, "error")) {
		name = word(&rest);
		if (!cur || cur->ended || strcmp(cur->name, name))
			cur = open_block(log, xstrdup(name), line);
		free(name);
		free(cur->error);
		cur->error = xstrdup(rest);
	} else if (cur && !cur->ended && !strcmp(what, "vars")) {
		free(cur->vars);
		cur->vars = xstrdup(rest);
	} else if (cur && !cur->ended && !strcmp(what, "state")) {
		vec_push(&cur->states, xstrdup(rest));
		vec_push(&cur->state_lines, (void *)(intptr_t)line);
	} else if (cur && !cur->ended && !strcmp(what, "end")) {
		cur->ended = true;
		cur->ns = field(rest, "ns");
		cur->filtered = field(rest, "filtered");
	}
	free(what);
	return cur;
}

/*
 * One "COUNT *>0:r0=1; [x]=x;" line of a klitmus7 histogram as the state
 * line of ours, "COUNT 1 &x", its variables' names into *vars; false if
 * the line is not one.
 */
static bool klitmus_state(const char *line, char **vars, char **state)
{
	struct strbuf names = { 0 }, values = { 0 };
	char *end;
	long long count = strtoll(line, &end, 10);

	if (end == line || count < 0)
		return false;
	while (*end == ' ' || *end == '\t')
		end++;
	if ((*end != '*' && *end != ':') || end[1] != '>')
		return false;
	sb_addf(&values, "%lld", count);
	for (line = end + 2; *line; ) {
		size_t name_len = strcspn(line, "=;"), value_len;

		if (line[name_len] != '=')
			break;
		value_len = strcspn(line + name_len + 1, ";");
		sb_addf(&names, "%s%.*s", names.len ? " " : "", (int)name_len, line);
		/* A value that is a name is an address, which our lines write &name. */
		sb_addf(&values, " %s%.*s",
			isdigit((unsigned char)line[name_len + 1]) || line[name_len + 1] == '-' ? "" : "&",
			(int)value_len, line + name_len + 1);
		line += name_len + 1 + value_len;
		while (*line == ';' || *line == ' ')
			line++;
	}
	*vars = names.buf ? names.buf : xstrdup("");
	*state = values.buf;
	return true;
}

/*
 * klitmus7's own result block (its /proc/litmus, or a log of its run.sh
 * from a machine of the user's): "Test NAME KIND", "Histogram (N
 * states)", N state lines, ..., "Time NAME SECONDS".
 */
static struct log_block *read_klitmus_line(struct run_log *log, struct log_block *cur,
					   const char *line, const char *prev, int n)
{
	char *vars, *state;

	if (!strncmp(line, "Histogram (", 11) && prev && !strncmp(prev, "Test ", 5)) {
		const char *rest = prev + 5;

		return open_block(log, word(&rest), n - 1);
	}
	if (!cur || cur->ended || !cur->klitmus)
		return cur;
	if (!strncmp(line, "Time ", 5)) {
		const char *rest = line + 5;
		char *name = word(&rest);

		if (!strcmp(name, cur->name)) {
			cur->ns = (long long)(atof(rest) * 1e9);
			cur->ended = true;
		}
		free(name);
	} else if (klitmus_state(line, &vars, &state)) {
		if (!cur->vars)
			cur->vars = vars;
		else
			free(vars);
		vec_push(&cur->states, state);
		vec_push(&cur->state_lines, (void *)(intptr_t)n);
	}
	return cur;
}

struct run_log *run_log_read(const char *path, const char *text)
{
	static const char mark[] = "lkmm-run: ";
	struct run_log *log = xcalloc(1, sizeof(*log));
	char *copy = xstrdup(text), *line, *next, *prev = NULL;
	struct log_block *cur = NULL;
	int n = 0;

	log->path = xstrdup(path);
	for (line = copy; *line; prev = line, line = next) {
		char *at, *end = strchr(line, '\n');
		int opened = log->nblocks;

		next = end ? end + 1 : line + strlen(line);
		if (end)
			*end = '\0';
		n++;
		if (end > line && end[-1] == '\r')
			end[-1] = '\0';
		at = strstr(line, mark);
		if (at) {
			cur = read_log_line(log, cur, at + strlen(mark), n);
			continue;
		}
		cur = read_klitmus_line(log, cur, line, prev, n);
		if (log->nblocks > opened)
			cur->klitmus = true;
	}
	free(copy);
	return log;
}

void run_log_free(struct run_log *log)
{
	int i, j;

	for (i = 0; i < log->nblocks; i++) {
		struct log_block *b = &log->blocks[i];

		for (j = 0; j < b->states.len; j++)
			free(b->states.items[j]);
		vec_free(&b->states);
		vec_free(&b->state_lines);
		free(b->name);
		free(b->vars);
		free(b->error);
	}
	free(log->blocks);
	free(log->path);
	free(log);
}

/* What a comparison works on: the test, the model's side, the block taken. */
struct comparison {
	const struct litmus *test;
	const struct program *prog;
	const struct outcomes *model;
	const struct log_block *b;
	const char *log;
	struct arena scratch;		/* what a die_at() on the way must not leak */
	struct run_seen *out;
};

/* A value of a state line: an integer or &location. */
static struct value parse_value(const struct comparison *c, const char *w, int line)
{
	struct value v = { false, 0 };
	char *end;

	if (w[0] == '&') {
		v.is_addr = true;
		v.n = program_loc(c->prog, w + 1);
		if (v.n < 0)
			die_at((struct srcpos){ c->log, line, 1 }, "test %s has no location %s",
			       c->test->name, w + 1);
		return v;
	}
	errno = 0;
	v.n = strtoll(w, &end, 10);
	if (errno || *end || end == w)
		die_at((struct srcpos){ c->log, line, 1 }, "'%s' is not a value", w);
	return v;
}

/* A log that lists one state twice (runs on a machine of one's own, merged) counts it once. */
static void merge_last_state(struct outcomes *o)
{
	struct state *last = &o->states[o->nstates - 1];
	int i;

	for (i = 0; i < o->nstates - 1; i++) {
		if (values_eq(o->states[i].vals, last->vals, o->nvars)) {
			o->states[i].count += last->count;
			free(last->vals);
			o->nstates--;
			return;
		}
	}
}

/*
 * Where each of the test's variables is in the log's lines (klitmus7 may
 * print them in another order); NULL when the log's are not the test's.
 */
static int *log_order(struct arena *a, const char *log_vars, const char *test_vars, int nvars)
{
	int *where = arena_alloc(a, (nvars + 1) * sizeof(*where)), n = 0, v;
	const char *at = log_vars;
	char *name;

	for (v = 0; v < nvars; v++)
		where[v] = -1;
	while (*(name = word(&at))) {
		const char *t = test_vars;

		for (v = 0; v < nvars; v++) {
			char *tname = word(&t);
			bool same = !strcmp(tname, name) && where[v] < 0;

			free(tname);
			if (same)
				break;
		}
		free(name);
		if (v == nvars)
			return NULL;
		where[v] = n++;
	}
	free(name);
	return n == nvars ? where : NULL;
}

/* The block's states as outcomes of the test, in herd7's order. */
static void take_block(void *arg)
{
	struct comparison *c = arg;
	const struct log_block *b = c->b;
	struct outcomes *seen = &c->out->seen;
	struct strbuf want = { 0 };
	struct value *line_vals;
	int s, v, *where;

	state_vars_print(c->model, &want);
	where = log_order(&c->scratch, b->vars ? b->vars : "", want.buf ? want.buf : "",
			  c->model->nvars);
	if (!where) {
		const char *test_vars = arena_strndup(&c->scratch, want.buf ? want.buf : "", want.len);

		sb_free(&want);
		die_at((struct srcpos){ c->log, b->line, 1 },
		       "the run of %s recorded variables '%s', the test has '%s'; was the "
		       "log made from another version of the test?", b->name,
		       b->vars ? b->vars : "", test_vars);
	}
	sb_free(&want);
	seen->nvars = c->model->nvars;
	seen->vars = xmalloc((seen->nvars + 1) * sizeof(*seen->vars));
	memcpy(seen->vars, c->model->vars, seen->nvars * sizeof(*seen->vars));
	seen->states = xcalloc(b->states.len + 1, sizeof(*seen->states));
	/* In the scratch arena: a bad value in the log ends the test here. */
	line_vals = arena_alloc(&c->scratch, (seen->nvars + 1) * sizeof(*line_vals));
	for (s = 0; s < b->states.len; s++) {
		const char *text = b->states.items[s];
		int line = (int)(intptr_t)b->state_lines.items[s];
		struct state *st = &seen->states[seen->nstates++];
		char *w = word(&text);

		st->count = atol(w);
		free(w);
		st->vals = xcalloc(seen->nvars + 1, sizeof(*st->vals));
		for (v = 0; v < seen->nvars; v++) {
			size_t n = word_length(&text);

			line_vals[v] = parse_value(c, arena_strndup(&c->scratch, text, n), line);
			text += n;
		}
		for (v = 0; v < seen->nvars; v++)
			st->vals[v] = line_vals[where[v]];
		merge_last_state(seen);
	}
	states_sort(c->prog, seen);
	c->out->satisfies = xcalloc(seen->nstates + 1, sizeof(*c->out->satisfies));
	for (s = 0; s < seen->nstates; s++) {
		c->out->satisfies[s] = state_holds(c->prog, c->test->cond, seen,
						   seen->states[s].vals);
		if (c->out->satisfies[s])
			seen->positive += seen->states[s].count;
		else
			seen->negative += seen->states[s].count;
	}
	c->out->seconds = b->ns / 1e9;
	c->out->filtered = b->filtered;
}

/* Whether o has the final state vals: the model allows it, or the kernel saw it. */
static bool has_state(const struct outcomes *o, const struct value *vals)
{
	int i;

	for (i = 0; i < o->nstates; i++)
		if (values_eq(o->states[i].vals, vals, o->nvars))
			return true;
	return false;
}

/* klitmus7's block, then the model's side: its verdict, and each state seen or allowed. */
static void compare_states(struct comparison *c)
{
	const struct outcomes *m = c->model, *s = &c->out->seen;
	struct strbuf *out = &c->out->text;
	int i;

	report_klitmus(c->prog, s, c->out->satisfies, c->out->seconds, out);
	sb_addf(out, "Model %s %s %ld %ld (lkmm check: %d states allowed)\n",
		c->test->name, observation(m), m->positive, m->negative, m->nstates);
	if (c->out->filtered)
		sb_addf(out, "filter    %lld iterations rejected by the test's filter, not counted\n",
			c->out->filtered);
	for (i = 0; i < s->nstates; i++) {
		bool ok = has_state(m, s->states[i].vals);
		struct strbuf st = { 0 };

		state_print(c->prog, s, s->states[i].vals, &st);
		sb_addf(out, "%-10s%-8ld%c>%s\n", ok ? "allowed" : "FORBIDDEN", s->states[i].count,
			c->out->satisfies[i] ? '*' : ':', st.buf);
		if (!ok) {
			sb_addf(&c->out->alarms, "lkmm: MODEL VIOLATION: %s: the kernel reached %s %ld "
				"times, a state the model forbids (a bug in the model, the "
				"compiler, the emulator or the hardware: worth a report)\n",
				c->test->file, st.buf, s->states[i].count);
			c->out->violations++;
		}
		sb_free(&st);
	}
	for (i = 0; i < m->nstates; i++) {
		if (has_state(s, m->states[i].vals))
			continue;
		sb_addf(out, "%-10s%-8s  ", "not seen", "");
		state_print(c->prog, m, m->states[i].vals, out);
		sb_addf(out, "\n");
	}
	sb_addf(out, "\n");
}

static void compare(void *arg)
{
	take_block(arg);
	compare_states(arg);
}

void run_log_compare(struct run_log *log, const struct litmus *t, const struct program *p,
		     const struct outcomes *model, struct run_seen *out)
{
	struct comparison c = { t, p, model, NULL, log->path, { 0 }, out };
	struct log_block *b = NULL;
	int i, status;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < log->nblocks && !b; i++)
		if (!log->blocks[i].claimed && !strcmp(log->blocks[i].name, t->name))
			b = &log->blocks[i];
	if (b)
		b->claimed = true;
	if (!b || !b->ended)
		die(EXIT_BAD_INPUT, "%s: %s", t->file, b && b->error ? b->error :
		    b ? "the module's run did not finish (see the log)" :
		    "no result in the log (did its module build and load?)");
	c.b = b;
	status = catch_die(compare, &c);
	arena_free(&c.scratch);
	if (status)
		die_again(status);
}

void run_seen_free(struct run_seen *s)
{
	outcomes_free(&s->seen);
	free(s->satisfies);
	sb_free(&s->text);
	sb_free(&s->alarms);
}
