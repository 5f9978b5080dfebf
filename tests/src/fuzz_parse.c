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

#include "fuzz.h"
#include "litmus/litmus.h"

#define FUZZ_MACROS FUZZ_MODEL_DIR "/linux-kernel.def"

static struct litmus *current;
static struct macro_table *macros;	/* parsed once, kept for every input */

static void load_macros(void)
{
	char *text = fuzz_read(FUZZ_MACROS, NULL);

	macros = xcalloc(1, sizeof(*macros));
	macros_read(macros, FUZZ_MACROS, text);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	jmp_buf jump;
	char *text = fuzz_text(data, size);

	if (!macros)
		load_macros();
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
