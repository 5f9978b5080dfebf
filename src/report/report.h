/*
 * report.h - the door to the report: the verdict of a test in herd7's
 * format, and klitmus7's for what a kernel run saw (report.c); the test
 * as a kernel module (module.c) and its run's log held against the model
 * (runlog.c).
 */
#ifndef LKMM_REPORT_H
#define LKMM_REPORT_H

#include <stdbool.h>

#include "search/search.h"

/* herd7's output for a test, Time line included. */
void report(const struct program *p, const struct outcomes *o, double seconds,
	    struct strbuf *out);
/* Sort o->states as herd7 prints them. */
void states_sort(const struct program *p, struct outcomes *o);
/* The variables of the final states, space-separated: "0:r0 [x]". */
void state_vars_print(const struct outcomes *o, struct strbuf *out);
/* One line on how much of the search ran, for --stats. */
void stats_print(const struct outcomes *o, struct strbuf *out);
/* herd7's word for how often the condition held: Never, Sometimes, Always. */
const char *observation(const struct outcomes *o);
/* One final state as herd7 prints it: "0:r0=1; [x]=2;". */
void state_print(const struct program *p, const struct outcomes *o, const struct value *vals,
		 struct strbuf *out);
/* klitmus7's block for the states a kernel run saw, satisfies[i] for each. */
void report_klitmus(const struct program *p, const struct outcomes *o,
		    const bool *satisfies, double seconds, struct strbuf *out);
/* A condition or filter as herd7 prints it: "1:r0=1 /\\ 1:r1=0". */
void prop_print(const struct prop *pr, struct strbuf *out);
/* Whether herd7 says "Ok": the test's condition, as it is quantified, holds. */
bool condition_ok(const struct litmus *t, const struct outcomes *o);

/* kernel/litmus/lkmm-runtime.h, built into the library (see Makefile). */
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

/* A kernel's log of test runs, read once (runlog.c). */
struct run_log;

/* The log's text; path names it in messages.  Lines it does not know are skipped. */
struct run_log *run_log_read(const char *path, const char *text);
void run_log_free(struct run_log *log);

/* What a kernel run of one test saw, held against the model. */
struct run_seen {
	struct outcomes seen;	/* the states reached, in herd7's order, and how often */
	bool *satisfies;	/* whether the condition holds in each */
	double seconds;
	long long filtered;	/* runs the test's filter rejected */
	int violations;		/* states reached that the model forbids */
	struct strbuf text;	/* klitmus7's block, then the model's word on each state */
	struct strbuf alarms;	/* a line for each violation */
};

/*
 * The first block of the log for test t (expanded, built as p, decided as
 * model) not taken yet, taken and held against the model into *out, for
 * run_seen_free() either way.  die() when the log has none or the run did
 * not finish; die_at() in the log where its lines are not the test's.
 */
void run_log_compare(struct run_log *log, const struct litmus *t, const struct program *p,
		     const struct outcomes *model, struct run_seen *out);
void run_seen_free(struct run_seen *s);

#endif
