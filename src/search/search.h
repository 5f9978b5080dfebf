/*
 * search.h - the door to the search: the candidate executions of a test
 * (enumerate.c), each judged by the model, tallied into its outcomes.
 */
#ifndef LKMM_SEARCH_H
#define LKMM_SEARCH_H

#include <stdbool.h>

#include "exec/exec.h"
#include "model/model.h"

enum speedcheck { SPEEDCHECK_FALSE, SPEEDCHECK_TRUE, SPEEDCHECK_FAST };

/* --suggest's defaults: edits in one fix, seconds for the search. */
enum { SUGGEST_TIMEOUT = 5 };

struct check_options {
	struct model_spec model;	/* -I, -conf, -variant */
	const char *cache_dir;		/* the model cache's, NULL for none (--no-model-cache) */
	bool explain;			/* --explain */
	bool glossary;			/* --glossary: the words defined too */
	bool suggest;			/* --suggest */
	bool graph;			/* the graph's texts: --graph, --html, the library's */
	bool events_only;		/* lkmm parse: the events, nothing searched */
	bool module;			/* lkmm run: the test as a kernel module */
	long max_variants;		/* --suggest: tests tried at most, 0: no bound */
	double suggest_timeout;		/* --suggest: seconds the search of fixes may take, 0: no bound */
	int suggest_edits;		/* --suggest: edits in one fix at most, 0: processes + 2 */
	bool keep_executions;		/* a witness and counterexamples, for the above */
	bool stats;			/* --stats: how much of the search ran */
	enum speedcheck speedcheck;
	long timeout;			/* seconds, 0 for none */
	long max_executions;
	struct event_limits limits;
};

/* One variable of the printed final states: N:reg or a location. */
struct state_var {
	int proc;		/* -1 for a location */
	int index;		/* register or location id */
	const char *name;
};

struct state {
	struct value *vals;	/* one per state_var */
	long count;		/* executions ending in this state */
};

/*
 * One execution kept for --explain and --graph: its events and relations
 * (co as the model chose it, NULL if it has none) and, for a candidate
 * the model rejected, the check that failed and why: the steps around
 * its cycle (or from one event to the other of a pair, for a check that
 * a relation be empty), each derived from the model's definitions.
 */
struct snapshot {
	int nevents;
	struct event *events;
	struct rel *po, *rf, *co, *addr, *data, *ctrl, *rmw;
	char *check;
	bool pair;
	int nsteps;
	struct cat_step *steps;
};

void snapshot_free(struct snapshot *s);

/*
 * Distinct rejected candidates --explain tells of, at most, and how many
 * rejected candidates it derives the cycle of to find them.
 */
enum { MAX_COUNTEREXAMPLES = 4, MAX_COUNTEREXAMPLES_TRIED = 64 };

/* What enumerating a test's executions found. */
struct outcomes {
	int nvars;
	struct state_var *vars;
	int nstates;
	struct state *states;
	long positive, negative;	/* executions where the condition holds, not */
	int nflags;
	const char **flags;		/* flags raised by some execution */
	long candidates;		/* candidate executions tried */
	/* How much of the search ran, for --stats (see stats_print()). */
	long combinations;		/* combinations of runs given reads-from */
	long verdicts;			/* accept or reject calls of the model */
	int twins;			/* processes with a twin (enumerate.c) */
	/* Why candidates satisfying the condition were rejected, for --explain. */
	int nreasons;
	const char **reasons;
	long *reason_counts;
	struct snapshot *witness;	/* an execution that satisfies it */
	/*
	 * Candidates that would satisfy it but died, one for each distinct
	 * failed check and cycle (up to MAX_COUNTEREXAMPLES), with how many
	 * candidates died that way.
	 */
	int ncounterexamples;
	struct snapshot *counterexamples[MAX_COUNTEREXAMPLES];
	long counterexample_counts[MAX_COUNTEREXAMPLES];
	char *limit;		/* why the search gave up, if a limit ended it */
};

struct cat_model;

/*
 * The candidate executions of p, judged by the model with ev (the
 * caller's thread's evaluation of it), tallied into out.  Given
 * nthreads > 1, the search is split among as many threads, each with an
 * evaluation of the model of its own, when it is big enough and needs no
 * order (no -speedcheck, no --explain): the output is the same.
 */
void enumerate(const struct program *p, struct cat_eval *ev, int nthreads,
	       const struct check_options *opts, struct outcomes *out);
void outcomes_free(struct outcomes *o);
/* The variables of the final states herd7 prints, into o->vars. */
void outcomes_choose_vars(const struct program *p, struct outcomes *o);
/* A value of the final state named in the condition, not yet wrapped. */
typedef struct value (*cond_lookup)(const void *ctx, const struct cond_loc *l);
/* Whether pr holds of the final state lookup gives. */
bool prop_holds(const struct program *p, const struct prop *pr, cond_lookup lookup,
		const void *ctx);
/* Whether pr holds of a final state of o, vals one per o->vars. */
bool state_holds(const struct program *p, const struct prop *pr, const struct outcomes *o,
		 const struct value *vals);

#endif
