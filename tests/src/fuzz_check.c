/*
 * fuzz_check.c - libFuzzer target for a whole check: any input is a
 * litmus test, parsed, expanded, turned into events, its executions
 * enumerated and judged by the kernel's model, reported in herd7's
 * format and explained, as `lkmm check --explain` would.  The model is
 * loaded once; fuzz_options() bounds each input's search.
 *
 * What a check may end in: a verdict in herd7's format, a diagnostic
 * (EXIT_BAD_INPUT) or a limit (EXIT_LIMIT).  An internal error
 * (EXIT_INTERNAL) is a bug of ours, as a crash is.
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
	opts.explain = true;
	/* The graph's texts, dot and SVG, made in memory. */
	opts.graph = true;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct lkmm_result *r;
	int status = lkmm_check_text(&ctx, "fuzz.litmus", text, &opts, &r);

	if (status == EXIT_INTERNAL ||
	    (!status && (!r->out.buf || strncmp(r->out.buf, "Test ", 5))))
		abort();
	lkmm_result_free(r);
	free(text);
	return 0;
}
