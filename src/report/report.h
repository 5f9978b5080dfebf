/*
 * report.h - the door to the report: the verdict of a test in herd7's
 * format, and klitmus7's for what a kernel run saw (report.c).
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

#endif
