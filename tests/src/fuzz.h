/*
 * fuzz.h - what the libFuzzer targets (tests/src/fuzz_*.c) share: a
 * scratch directory for the files the checker reads, the kernel's model,
 * and limits that keep every input's search small.
 *
 * A target's input ends, at worst, in one of the checker's diagnostics
 * (die() jumps back to the catch_die() around it); a crash, a hang, a
 * leak or undefined behaviour is a bug.
 */
#ifndef LKMM_FUZZ_H
#define LKMM_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "api/api.h"

#ifndef FUZZ_MODEL_DIR
#error "build with -DFUZZ_MODEL_DIR=\"path/to/tools/memory-model\""
#endif

/* The target's scratch directory, made on first use and removed at exit. */
const char *fuzz_scratch(void);

/* The path of NAME in the scratch directory (allocated). */
char *fuzz_path(const char *name);

/* data as the file NAME of the scratch directory; its path (allocated). */
char *fuzz_write(const char *name, const void *data, size_t size);

/* data as a string (allocated): the checker's parsers read up to a NUL. */
char *fuzz_text(const uint8_t *data, size_t size);

/* A file the target cannot do without (allocated); aborts if it cannot be read. */
char *fuzz_read(const char *path, size_t *len);

/* The kernel's model and macros, from its files (cache_dir NULL) or through the cache. */
void fuzz_open_model(struct lkmm *ctx, const char *cache_dir);

/*
 * Options that bound one test's work to milliseconds: a few thousand
 * candidates, a few values and runs; the search stops at the first limit
 * (within_limits() in enumerate.c), which is an outcome like any other.
 */
struct check_options fuzz_options(void);

#endif
