/*
 * check.h - deciding litmus tests: enumerate.c runs the candidate
 * executions of a test through the model, report.c prints the verdict in
 * herd7's format, check.c drives both over the files given.
 */
#ifndef LKMM_CHECK_H
#define LKMM_CHECK_H

#include <stdbool.h>

#include "cat.h"
#include "events.h"

enum speedcheck { SPEEDCHECK_FALSE, SPEEDCHECK_TRUE, SPEEDCHECK_FAST };

/* --suggest's defaults: edits in one fix, seconds for the search. */
enum { SUGGEST_TIMEOUT = 5 };

struct check_options {
	struct model_spec model;	/* -I, -conf, -variant */
	const char *cache_dir;		/* the model cache's, NULL for none (--no-model-cache) */
	const char *out_dir;		/* -o */
	bool quiet;			/* -q */
	bool explain;			/* --explain */
	bool suggest;			/* --suggest */
	const char *graph_dir;		/* --graph DIR */
	bool svg;			/* --svg */
	const char *html_file;		/* --html FILE */
	long max_variants;		/* --suggest: tests tried at most, 0: no bound */
	double suggest_timeout;		/* --suggest: seconds the search of fixes may take, 0: no bound */
	int suggest_edits;		/* --suggest: edits in one fix at most, 0: processes + 2 */
	bool keep_executions;		/* a witness and counterexamples, for the above */
	bool stats;			/* --stats: how much of the search ran */
	int jobs;			/* -j: tests checked at once */
	enum speedcheck speedcheck;
	long timeout;			/* seconds, 0 for none */
	long max_executions;
	struct event_limits limits;
	/*
	 * When set, what the run prints or writes after herd7's block (the
	 * explanation, the suggestions) passes through retell() first:
	 * `lkmm code` tells it in the kernel's files and lines.
	 */
	void (*retell)(void *arg, const char *text, struct strbuf *out);
	void *retell_arg;
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
 * The candidate executions of p, judged by the model, tallied into out.
 * Given several models (copies of one; each thread writes into its own),
 * the search is split among as many threads when it is big enough and
 * needs no order (no -speedcheck, no --explain): the output is the same.
 */
void enumerate(const struct program *p, struct cat_model *const *models, int nmodels,
	       const struct check_options *opts, struct outcomes *out);
/* Whether enumerate() would split p's search under opts among nthreads. */
bool search_splits(const struct program *p, const struct check_options *opts, int nthreads);
void outcomes_free(struct outcomes *o);
/* The variables of the final states herd7 prints, into o->vars. */
void outcomes_choose_vars(const struct program *p, struct outcomes *o);
/* A value of the final state named in the condition, not yet wrapped. */
typedef struct value (*cond_lookup)(const void *ctx, const struct cond_loc *l);
/* Whether pr holds of the final state lookup gives. */
bool prop_holds(const struct program *p, const struct prop *pr, cond_lookup lookup,
		const void *ctx);
/* herd7's digest of the test, its Hash= line, in 32 hex digits (digest.c). */
void test_digest(const struct litmus *t, char hex[33]);
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
/*
 * Whether sequential consistency puts event a before b in s: program
 * order, reads-from, coherence or from-read (explain.c).
 */
bool sc_before(const struct snapshot *s, int a, int b);
/*
 * The pairs of the witness's cycle, in one CPU's program order, that
 * nothing in the test orders, into pairs (a, b, a, b ...): how many, or
 * -1 when no cycle needs them (an interleaving gives the outcome)
 * (explain.c).
 */
int unordered_pairs(const struct snapshot *s, int *pairs, int max);
/*
 * Plain words on why the condition's outcome is allowed or forbidden
 * (explain.c); with_fixes: --suggest's fixes follow, so they need no pointer.
 */
void explain(const struct program *p, const struct outcomes *o, bool with_fixes,
	     struct strbuf *out);
/*
 * A Graphviz graph of the execution explain() tells of: the witness, or
 * the rejected candidate with the failed check's cycle in red.
 */
void explain_graph(const struct program *p, const struct outcomes *o, struct strbuf *out);
/* How the model wants RMWs represented: its variant says (events.h). */
enum rmw_style model_rmw_style(const struct cat_model *m);
/* Check each file on its own; the worst exit status of all (util.h). */
int check_files(char **files, int nfiles, const struct check_options *opts);

/* What deciding a test needs besides the test: the model and its macros. */
struct checker {
	struct cat_model *model;
	const struct macro_table *macros;
	const struct check_options *opts;
	struct lkmm_threads *threads;	/* to split a search among, or NULL */
};

/*
 * Decide a variant of a test, given as text (path names it in messages):
 * whether its condition's outcome is reachable.  False with *ok false if
 * it does not parse or a limit ends it.  With witness given, *witness is
 * an execution that satisfies the condition (NULL if none), for the
 * caller to free with snapshot_free().
 */
bool outcome_reachable(const struct checker *c, const char *path, const char *text, bool *ok,
		       struct snapshot **witness);

/* Whether some execution of a variant (as above) raises the model's flag. */
bool flag_raised(const struct checker *c, const char *path, const char *text, const char *flag,
		 bool *ok);

/*
 * --suggest (suggest.c): for a test whose outcome the model allows, the
 * cheapest edits that forbid it, as unified diffs of text; for one it
 * forbids, which of its orderings are needed.
 */
void suggest(const struct checker *c, const char *path, const char *text,
	     const struct outcomes *o, struct strbuf *out);

#endif
