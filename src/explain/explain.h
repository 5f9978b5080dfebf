/*
 * explain.h - the door to the explanations: plain words on a verdict and
 * its graph (explain.c), and fixes that change it (suggest.c).
 */
#ifndef LKMM_EXPLAIN_H
#define LKMM_EXPLAIN_H

#include <stdbool.h>

#include "report/report.h"

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
 * Whether a step of a rejected candidate's cycle is a link that
 * --suggest keeps as it is (explain.c): a lock handed from an unlock to
 * the lock that takes it ("lock"), a dependency ("addr", "data",
 * "ctrl"); NULL for any other step.  The explanation labels a lock's
 * hand-off unlock-lock (rf where no release leads to the unlock), and
 * addr, data, ctrl alike.
 */
const char *kept_link(const struct snapshot *s, const struct cat_step *st);
/*
 * Plain words on why the condition's outcome is allowed or forbidden
 * (explain.c); with_fixes: --suggest's fixes follow, so they need no
 * pointer; define_words: each model word used defined at the end, not
 * only where explanation.txt explains it; in_short, if not NULL:
 * suggest()'s one-line answer, told right after the verdict.
 */
void explain(const struct program *p, const struct outcomes *o, bool with_fixes,
	     bool define_words, const char *in_short, struct strbuf *out);

/*
 * The picture of the execution explain() tells of: the witness, or the
 * rejected candidate with the failed check's cycle in red.  Built once,
 * then written for Graphviz (graph_dot()) or laid out as SVG (graph_svg()).
 */
struct graph_node {
	int event;		/* its event: Graphviz's node eEVENT */
	int proc;		/* its process' column, -1 for an initial value */
	int po_prev;		/* the node before it in program order, or -1 */
	char *label;		/* lines separated by '\n' */
};

struct graph_edge {
	int from, to;		/* nodes */
	const char *colour;	/* a name both Graphviz and SVG know */
	bool marked;		/* the cycle or a pair nothing orders: the label in colour */
	bool dashed;		/* a pair nothing orders (otherwise marked is bold) */
	char *label;
};

struct graph {
	struct arena arena;	/* everything below */
	const char *name;	/* the test's */
	char *caption;		/* "NAME: an execution with the outcome" */
	bool drawn;		/* false: no execution to draw, the caption alone */
	int nprocs;		/* one column each, named P0, P1 ... */
	/* The initial values some edge touches, then P0's events in program order, P1's ... */
	int nnodes;
	struct graph_node *nodes;
	/* rf, co and fr, then the cycle's (or the unordered pairs); po is po_prev */
	int nedges;
	struct graph_edge *edges;
};

/* Build g (explain.c); graph_free() frees it. */
void explain_graph(const struct program *p, const struct outcomes *o, struct graph *g);
void graph_free(struct graph *g);
/* Graphviz's dot language, for dot -Tsvg and the like (explain.c). */
void graph_dot(const struct graph *g, struct strbuf *out);
/*
 * A self-contained SVG picture, laid out here: one column per process,
 * no program to run (svg.c).
 */
void graph_svg(const struct graph *g, struct strbuf *out);

/*
 * What deciding variants of a test needs besides the test: the model and
 * its macros, and the pipeline that decides them (the layer above gives
 * it: a test is parsed, expanded and searched there).
 */
struct checker {
	const struct cat_model *model;
	struct cat_eval *eval;		/* of the model: this thread's */
	const struct macro_table *macros;
	const struct check_options *opts;
	int threads;			/* to split a search among; 0: one */
	/*
	 * Decide a variant of a test, given as text (path names it in
	 * messages): whether its condition's outcome is reachable.  False
	 * with *ok false if it does not parse or a limit ends it.  With
	 * witness given, *witness is an execution that satisfies the
	 * condition (NULL if none), for the caller to free with
	 * snapshot_free().
	 */
	bool (*reachable)(const struct checker *c, const char *path, const char *text, bool *ok,
			  struct snapshot **witness);
	/* Whether some execution of a variant (as above) raises the model's flag. */
	bool (*raises_flag)(const struct checker *c, const char *path, const char *text,
			    const char *flag, bool *ok);
};

/* Whether processes a and b of t are the same code: parameters and body. */
bool same_code(const struct litmus *t, int a, int b);

/* The length of the register a line's code assigns, "r0 = ...", or 0. */
size_t assigned_register(const char *code);

/*
 * --suggest (suggest.c): for a test whose outcome the model allows, the
 * cheapest edits that forbid it, as unified diffs of text; for one it
 * forbids, which of its orderings are needed.  in_short, if not NULL,
 * gets the answer in one line for explain() to open with ("to forbid
 * it, ..."); else a forbidden outcome's answer ends with it.
 */
void suggest(const struct checker *c, const char *path, const char *text,
	     const struct outcomes *o, struct strbuf *in_short, struct strbuf *out);

#endif
