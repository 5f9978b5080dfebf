/*
 * fuzz_module.c - libFuzzer target for the module generator (module.c,
 * `lkmm run --emit`): any input is a litmus test, decided under small
 * limits and written as a kernel module, as the pipeline does for each
 * test of `lkmm run`.
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

static struct lkmm ctx;
static struct check_options opts;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_open_model(&ctx, NULL);
	opts = fuzz_options();
	opts.module = true;
	return 0;
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
	struct lkmm_result *r;
	int status = lkmm_check_text(&ctx, "fuzz.litmus", text, &opts, &r);

	if (status == EXIT_INTERNAL || (!status && (!r->module.buf || !well_formed(r->module.buf))))
		abort();
	lkmm_result_free(r);
	free(text);
	return 0;
}
