/*
 * fuzz_parse.c - libFuzzer target for the front end: any input is parsed
 * as a litmus test and expanded with the kernel's linux-kernel.def.  Bad
 * input must end in a diagnostic, never a crash, a hang or a leak.
 *
 * Diagnostics longjmp back here (die_jump) instead of exiting; the test
 * being built stays reachable from `current`, and is freed afterwards.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "litmus.h"
#include "util.h"

#ifndef FUZZ_MACROS
#error "build with -DFUZZ_MACROS=\"path/to/linux-kernel.def\""
#endif

static struct litmus *current;
static struct macro_table *macros;	/* parsed once, kept for every input */

static void load_macros(void)
{
	char *text = read_file(FUZZ_MACROS, NULL);

	if (!text) {
		perror(FUZZ_MACROS);
		abort();
	}
	macros = xcalloc(1, sizeof(*macros));
	macros_read(macros, FUZZ_MACROS, text);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	jmp_buf jump;
	char *text = xmalloc(size + 1);

	if (!macros)
		load_macros();
	memcpy(text, data, size);
	text[size] = '\0';
	current = xcalloc(1, sizeof(*current));
	die_jump = &jump;
	if (!setjmp(jump)) {
		litmus_read(current, "fuzz.litmus", text);
		litmus_expand(current, macros);
	}
	die_jump = NULL;
	litmus_free(current);
	current = NULL;
	free(text);
	return 0;
}
