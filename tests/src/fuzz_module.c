/*
 * fuzz_module.c - libFuzzer target for the module generator (module.c,
 * `lkmm run --emit`): any input is a litmus test, read as written and
 * expanded, decided under small limits, then written as a kernel module,
 * as run.c does for each test.
 *
 * The generator may refuse a test (a diagnostic at its position); what
 * it accepts must be C that compiles.  Compiling it takes a kernel tree
 * and seconds (tests/src/module-compile.sh does, for the seeds); here,
 * cheaply, the source must hold together: brackets balanced outside
 * comments and literals, every literal closed on its line, no byte a
 * compiler would stop at, and the module's entry points there.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "kernel-run/module.h"

static struct lkmm ctx;
static struct check_options opts;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_open_model(&ctx, NULL);
	opts = fuzz_options();
	return 0;
}

/* One test's way to its module; everything hangs from here, for a die() on the way. */
struct module_job {
	const char *text;
	struct litmus *as_written, *expanded;
	struct program *prog;
	struct outcomes model;
	struct arena scratch;
	struct strbuf source;
};

static void make_module(void *arg)
{
	struct module_job *job = arg;

	job->as_written = xcalloc(1, sizeof(*job->as_written));
	litmus_read(job->as_written, "fuzz.litmus", job->text);
	job->expanded = xcalloc(1, sizeof(*job->expanded));
	litmus_read(job->expanded, "fuzz.litmus", job->text);
	litmus_expand(job->expanded, ctx.loaded.macros);
	job->prog = xcalloc(1, sizeof(*job->prog));
	program_build(job->prog, job->expanded, &opts.limits, model_rmw_style(ctx.loaded.model));
	enumerate(job->prog, ctx.eval, 1, &opts, &job->model);
	if (!job->model.limit)
		module_emit(job->as_written, job->prog, &job->model, &job->scratch, &job->source);
}

/* Where a C comment or literal that starts at s ends (past it); NULL if it does not. */
static const char *skip_lexeme(const char *s)
{
	if (s[0] == '/' && s[1] == '/')
		return s + strcspn(s, "\n");
	if (s[0] == '/' && s[1] == '*') {
		const char *end = strstr(s + 2, "*/");

		return end ? end + 2 : NULL;
	}
	if (*s == '"' || *s == '\'') {
		const char *p = s + 1;

		for (; *p && *p != *s && *p != '\n'; p++)
			if (*p == '\\' && p[1])
				p++;
		return *p == *s ? p + 1 : NULL;
	}
	return s + 1;
}

/* Whether the module's source holds together (see above). */
static bool well_formed(const char *c)
{
	char open[256];
	int depth = 0;

	if (!strstr(c, "module_init(lkmm_module_init);") || !strstr(c, "#include \"lkmm-runtime.h\""))
		return false;
	while (*c) {		/* strchr() would find the NUL: never reached here */
		const char *close = strchr(")]}", *c), *next = skip_lexeme(c);

		if (!next || ((unsigned char)*c < ' ' && *c != '\n' && *c != '\t'))
			return false;
		if (strchr("([{", *c)) {
			if (depth == (int)sizeof(open))
				return false;
			open[depth++] = *c;
		} else if (close) {
			if (!depth || open[--depth] != "([{"[close - ")]}"])
				return false;
		}
		c = next;
	}
	return depth == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct module_job job = { .text = text };
	int status = catch_die(make_module, &job);

	if (status == EXIT_INTERNAL || (!status && job.source.buf && !well_formed(job.source.buf)))
		abort();
	sb_free(&job.source);
	arena_free(&job.scratch);
	outcomes_free(&job.model);
	if (job.prog)
		program_free(job.prog);
	if (job.expanded)
		litmus_free(job.expanded);
	if (job.as_written)
		litmus_free(job.as_written);
	free(text);
	return 0;
}
