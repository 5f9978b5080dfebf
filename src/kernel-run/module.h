/*
 * module.h - a litmus test as the source of a Linux kernel module, for
 * `lkmm run` (module.c), and the runtime every such module includes.
 */
#ifndef LKMM_MODULE_H
#define LKMM_MODULE_H

#include "report/report.h"

/* kernel/litmus/lkmm-runtime.h, built into the binary (see Makefile). */
extern const char lkmm_runtime_h[];

/*
 * The C source of a module that runs test t in kthreads and prints the
 * final states of the variables of o (the ones `lkmm check` prints) to
 * the kernel log.  t is the test as written, before litmus_expand():
 * the kernel's own READ_ONCE() and friends implement its macros.  p is
 * the same test, expanded and built, for its locations.  A construct no
 * module can express ends with die_at() at its position; what the
 * generator allocates lives in scratch, which the caller frees.
 */
void module_emit(const struct litmus *t, const struct program *p,
		 const struct outcomes *o, struct arena *scratch, struct strbuf *out);

#endif
