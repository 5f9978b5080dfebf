/*
 * api.h - the pipeline behind include/lkmm.h (lkmm.c), for lkmm.c and
 * for the tests and fuzz targets that reach below the public header.
 *
 * Nothing here exits.  An error in the model or in a test, or a limit,
 * returns its status (util.h: EXIT_BAD_INPUT, EXIT_LIMIT, EXIT_INTERNAL)
 * to the caller, as Lua's protected calls do; the message goes where
 * die_output says (standard error by default), and the context stays
 * usable for the next test.
 *
 * A context serves one thread at a time: deciding a test writes into
 * its evaluation of the model, never into the model, which is read-only
 * once loaded.  Threads that check tests at once share one model, each
 * with a context of its own: a copy whose eval is the thread's own
 * (cat_eval_new()), as lkmm.c gives each call.
 */
#ifndef LKMM_API_H
#define LKMM_API_H

#include "explain/explain.h"
#include "modeldir.h"

/* A loaded model and the macros of its .def file, and an evaluation of the model. */
struct lkmm {
	struct loaded_model loaded;
	struct cat_eval *eval;
	int threads;	/* a test's search may be split among; 0: one */
};

/*
 * Load the model of spec, the files it names and includes, and its
 * macros: from the model cache in cache_dir when it holds them, up to
 * date, else from the files, then saved there (modelcache.h); cache_dir
 * NULL for no cache.  0, or the error's status with ctx left empty.
 */
int lkmm_open(struct lkmm *ctx, const struct model_spec *spec, const char *cache_dir);
void lkmm_close(struct lkmm *ctx);


/* What deciding one test leaves. */
struct lkmm_result {
	char *path;			/* the name the test was checked under */
	char *text;			/* the file as read */
	struct litmus *test;		/* parsed and expanded */
	struct program *prog;
	struct outcomes outcomes;	/* outcomes.limit: why a limit ended it */
	struct strbuf out;		/* herd7's output, then --explain's and --suggest's */
	size_t herd_len;		/* herd7's output: the start of out */
	struct strbuf herd;		/* herd7's output alone */
	struct strbuf stats;		/* --stats */
	struct strbuf events;		/* lkmm parse: each process's events */
	struct strbuf explanation;	/* --explain or --html */
	struct strbuf suggestion;	/* --suggest */
	struct strbuf dot;		/* --graph: the graph, for Graphviz */
	struct strbuf svg;		/* --svg or --html: the graph as a picture */
	struct strbuf module;		/* lkmm run: the test as a kernel module */
	struct litmus *as_written;	/* what the module is made from: the test unexpanded */
	struct arena module_scratch;	/* what making it allocates */
};

/*
 * Decide the litmus test in the file at path under opts (its model is
 * not read: ctx has the model).  *result is set either
 * way, for lkmm_result_free().  0 when decided, else the status of the
 * error; when a limit ended the search, EXIT_LIMIT with the reason in
 * outcomes.limit, not printed (the caller reports it in its order).
 */
int lkmm_check_file(const struct lkmm *ctx, const char *path, const struct check_options *opts,
		    struct lkmm_result **result);
/* The same for a test given as text, path naming it in messages; NULL: read path. */
int lkmm_check_text(const struct lkmm *ctx, const char *path, const char *text,
		    const struct check_options *opts, struct lkmm_result **result);
void lkmm_result_free(struct lkmm_result *r);

/* The options of `lkmm check` given none: herd7's limits, --suggest's budget. */
void check_options_init(struct check_options *opts);

#endif
