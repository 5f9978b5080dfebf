/*
 * model.h - the cat model interpreter: loads a herd-style model (cfg, bell
 * and cat files, plus our own rewrite of herd's library) and judges the
 * candidate executions the enumerator hands it.
 *
 * A loaded model is read-only: it is judged with through an evaluation
 * (struct cat_eval), which holds all that judging writes.  One thread
 * uses an evaluation at a time; any number of evaluations, in as many
 * threads, share one model.
 *
 * Model errors are reported as "FILE:LINE:COL: error: ..." and exit with
 * EXIT_BAD_INPUT: at load time for syntax, scoping and constructs we do
 * not support, and for type errors when the faulty expression is first
 * evaluated (values are computed only when needed).
 */
#ifndef LKMM_CAT_H
#define LKMM_CAT_H

#include "exec/exec.h"

struct cat_model;
struct cat_eval;

/*
 * Which model: its directory, the cfg file there, and the variants set
 * beyond those of the cfg's `variant` lines (herd7's -variant: names
 * separated by commas, NULL for none).
 */
struct model_spec {
	const char *dir;
	const char *cfg_name;
	const char *variants;
	/*
	 * The model's files given in memory (a browser has no file system),
	 * looked up by their names in dir; NULL: read them from dir.
	 */
	const struct model_file *files;
	int nfiles;
};

struct model_file {
	const char *name;	/* as the cfg or an include names it */
	const char *text;
};

/* The model file at path (dir/NAME) as spec gives it, allocated; NULL with errno set if none. */
char *model_file_read(const struct model_spec *spec, const char *path);

/*
 * Read the cfg and the bell and cat files it names.  Includes are looked
 * up in the model's directory, then in the library built into the binary.
 */
struct cat_model *cat_load(const struct model_spec *spec);

/*
 * Whether the model was loaded under variant `name` (any case): the
 * model's `if "NAME"` reads it, and so does event generation for the
 * variants herd7 defines for C (lkmmv2: annotations as the macros say).
 */
bool cat_variant(const struct cat_model *m, const char *name);

/* How the model wants RMWs represented: its variant says (exec.h). */
static inline enum rmw_style model_rmw_style(const struct cat_model *m)
{
	return cat_variant(m, "lkmmv2") ? RMW_LKMMV2 : RMW_LKMMV1;
}

/* The cfg's "macros" file as a path (NULL if none), for the front end. */
const char *cat_macros_file(const struct cat_model *m);

/* The flags raised by one accepted execution, e.g. "data-race". */
struct cat_outcome {
	const char **flags;
	int nflags;
};

/*
 * A candidate execution may stand for several: each `with x from S` of
 * the model tries every member of S (e.g. every coherence order).  Every
 * such choice ends in exactly one call: accept() when all checks hold,
 * reject() with the name of a failed check (NULL if it has none).  Checks
 * run as soon as what they read is known, so a check that does not
 * depend on a `with` rejects all its choices in one call, and the one
 * named is not always the first failing one in the source.  The
 * pointers passed are valid during the call only.
 */
struct cat_visitor {
	void (*accept)(void *arg, const struct cat_outcome *out);
	void (*reject)(void *arg, const char *check_name);
	void *arg;
	/*
	 * If given, a flag is only evaluated (and passed to accept) when
	 * wants_flag says so: one raised already need not be again.
	 */
	bool (*wants_flag)(void *arg, const char *flag);
	/*
	 * Whether choices the model rejects may be skipped without a call
	 * to reject(), and the choices come in any order: then a with's
	 * choice built part by part (cross) is judged as it grows, as
	 * cat_partial_fails() judges an execution.
	 */
	bool skip_rejected;
};

/* An evaluation of m, which must outlive it; what it evaluates. */
struct cat_eval *cat_eval_new(const struct cat_model *m);
void cat_eval_free(struct cat_eval *ev);
const struct cat_model *cat_eval_model(const struct cat_eval *ev);

void cat_run(struct cat_eval *ev, const struct execution *x, const struct cat_visitor *v);

/*
 * Whether x, an execution whose rf is only part of what it will be, is
 * already rejected by a check that no more rf edges (nor any choice of
 * the model's withs) could satisfy: then so is every execution that
 * completes it.  Calls no visitor.
 */
bool cat_partial_fails(struct cat_eval *ev, const struct execution *x);

/*
 * For explanations, during a reject() call: a cycle of the relation whose
 * acyclic or irreflexive check failed, as event ids (at most max); its
 * length, 0 for other checks.
 */
int cat_failed_cycle(struct cat_eval *ev, int *cycle, int max);

/*
 * During an accept() or reject() call: the model's relation `name` (its
 * last binding), if the model has computed it for this execution.
 */
const struct rel *cat_relation(struct cat_eval *ev, const char *name);

/* One base step of a derivation (cat_derive_failed). */
struct cat_step {
	int from, to;
	const char *base;	/* "po", "rf", "fr" ...; for a filter, the set */
	const char *context;	/* the innermost relation of the model it is in */
	bool filter;		/* [base] on event from (== to) */
	bool inverse;		/* base relates to -> from */
};

/*
 * During a reject() call: why the failed check's relation relates a to b,
 * as a path of base steps from a to b, each with the relation of the
 * model it comes from.  Returns how many (up to max written), or -1 when
 * more than max.
 */
int cat_derive_failed(struct cat_eval *ev, int a, int b, struct cat_step *steps, int max);

/* During a reject() call for an `empty` check: one pair of its relation. */
int cat_failed_pair(struct cat_eval *ev, int *a, int *b);

void cat_free(struct cat_model *m);

/*
 * A model with the macros of its .def file, as loaded: parsed from the
 * files, or mapped from the model cache (image: the mapping, else NULL).
 */
struct loaded_model {
	struct cat_model *model;
	struct macro_table *macros;
	void *image;
	size_t image_size;
};

/* ---- The model cache (modelcache.c) ----
 * The loaded model kept on disk between runs, so that a run reads and
 * checks the model's files but does not parse them.
 */

/*
 * The cache's directory: $LKMM_CACHE_DIR, else $XDG_CACHE_HOME/lkmm,
 * else $HOME/.cache/lkmm (allocated); NULL when none of them is set.
 */
char *model_cache_dir(void);

/*
 * Fill lm (zeroed) from the cache in cache_dir, if it holds the model
 * spec loads to now: written by this very binary, for this model
 * directory, cfg and variants, from files whose contents have not
 * changed since.  False, with lm untouched, in every other case: a
 * missing, stale, truncated or foreign cache file is only a miss.
 */
bool model_cache_load(struct loaded_model *lm, const char *cache_dir, const struct model_spec *spec);

/*
 * Save lm, just loaded from spec (macros_text being the macros file as
 * read), in cache_dir, created if need be.  Atomic: the
 * file is written aside, then renamed into place.  A directory that
 * cannot be made or written leaves the cache as it was, silently.
 */
void model_cache_store(const struct loaded_model *lm, const char *cache_dir,
		       const struct model_spec *spec, const char *macros_text);

#endif
