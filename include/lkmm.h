/*
 * lkmm.h - the Linux-kernel memory model checker as a library.
 *
 * Open a model once, check any number of litmus tests with it, read each
 * verdict and its texts, free.  herd7's verdict block, the explanation,
 * the suggestions and the graph are the ones `lkmm check` prints.
 *
 *	struct lkmm_model *m;
 *	struct lkmm_result *r;
 *	struct lkmm_error *err;
 *	struct lkmm_options opts;
 *
 *	lkmm_options_init(&opts);
 *	opts.explain = 1;
 *	if (lkmm_model_open(&m, "tools/memory-model", NULL, &err) ||
 *	    lkmm_check(m, "SB.litmus", text, strlen(text), &opts, &r, &err)) {
 *		fprintf(stderr, "%s:%d:%d: %s\n", err->file, err->line,
 *			err->column, err->message);
 *		lkmm_error_free(err);
 *	} else {
 *		fputs(lkmm_text(r, LKMM_HERD), stdout);
 *		lkmm_result_free(r);
 *	}
 *	lkmm_model_close(m);
 *
 * Nothing here exits or prints: an error is returned, with its place.
 * A model is read-only once open: any number of threads may check with
 * one model at once.  Every name this library exports starts with lkmm_.
 */
#ifndef LKMM_H
#define LKMM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Statuses: as `lkmm check` exits. */
enum lkmm_status {
	LKMM_OK = 0,
	LKMM_BAD_INPUT = 2,	/* a malformed test or model */
	LKMM_LIMIT = 3,		/* a resource limit: time, executions, memory */
	LKMM_INTERNAL = 4,	/* a bug of lkmm's: worth a report */
};

/* An error: what went wrong, and where (file NULL when nowhere in particular). */
struct lkmm_error {
	int status;		/* an enum lkmm_status */
	char *file;
	int line, column;
	char *message;		/* the message alone: "expression expected" */
	char *text;		/* every diagnostic, as lkmm prints them */
};

void lkmm_error_free(struct lkmm_error *err);

struct lkmm_model;
struct lkmm_result;

/*
 * Where `lkmm` looks for the model when no directory is given:
 * $LKMM_MODEL_DIR, the working directory when it holds the cfg, the
 * model unpacked beside the binary, then the one installed beside it.
 * The directory found (allocated), or NULL.
 */
char *lkmm_model_find(const char *cfg);

/* The model cache's directory from the environment (allocated), or NULL. */
char *lkmm_cache_dir(void);

/* How a model is opened; lkmm_model_open() takes NULL for all defaults. */
struct lkmm_model_options {
	const char *cfg;	/* the configuration file; NULL: linux-kernel.cfg */
	const char *variants;	/* herd7's -variant, comma-separated, or NULL */
	const char *cache_dir;	/* the model cache, or NULL for none */
};

/* Open the model in dir: its cfg, the files it names, its macros. */
int lkmm_model_open(struct lkmm_model **model, const char *dir,
		    const struct lkmm_model_options *opts, struct lkmm_error **err);

/* A model file given in memory: its name as the cfg or an include says it. */
struct lkmm_file {
	const char *name;
	const char *text;
};

/* Open a model whose files are given in memory (never cached). */
int lkmm_model_open_files(struct lkmm_model **model, const struct lkmm_file *files,
			  int nfiles, const struct lkmm_model_options *opts,
			  struct lkmm_error **err);

void lkmm_model_close(struct lkmm_model *model);

/* How the model's .def file defines a primitive such as READ_ONCE. */
enum lkmm_primitive {
	LKMM_UNDEFINED,		/* not at all: the model cannot read it */
	LKMM_STATEMENT,		/* with no value: WRITE_ONCE, smp_mb */
	LKMM_EXPRESSION,	/* with a value: READ_ONCE, xchg */
};

enum lkmm_primitive lkmm_model_primitive(const struct lkmm_model *model, const char *name);

/* How a test is checked. */
struct lkmm_options {
	int speedcheck;		/* 0; 1: stop at the first execution that settles it */
	long timeout;		/* seconds, 0: none */
	long max_executions;	/* candidate executions at most */
	int max_traces;		/* runs of one process at most */
	int max_values;		/* values of one location at most */
	int explain;		/* LKMM_EXPLAIN: why the outcome is allowed or not */
	int glossary;		/* with explain: each model word it uses, defined */
	int suggest;		/* LKMM_SUGGEST: edits that change the verdict */
	double suggest_timeout;	/* seconds the search for fixes may take, 0: none */
	long suggest_max;	/* variants tried at most, 0: no bound */
	int suggest_edits;	/* edits in one fix at most, 0: processes + 2 */
	int graph;		/* LKMM_DOT and LKMM_SVG: the execution explained */
	int stats;		/* LKMM_STATS: how much of the search ran */
	int threads;		/* threads a heavy test's search may use (0, 1: one) */
	int events;		/* LKMM_EVENTS only: each process's runs, nothing searched */
	int module;		/* LKMM_MODULE: the test as a kernel module */
};

/* The defaults of `lkmm check`. */
void lkmm_options_init(struct lkmm_options *opts);

/*
 * Check the litmus test text (len bytes; name names it in messages and
 * the verdict).  0 and *result set, or the error's status and *err.  A
 * test that hits a limit returns LKMM_LIMIT.
 */
int lkmm_check(struct lkmm_model *model, const char *name, const char *text, size_t len,
	       const struct lkmm_options *opts, struct lkmm_result **result,
	       struct lkmm_error **err);

/* Executions where the test's condition holds, and where it does not. */
void lkmm_verdict(const struct lkmm_result *result, long *positive, long *negative);

/* The test's name, as its first line gives it. */
const char *lkmm_test_name(const struct lkmm_result *result);

/* herd7's word for the verdict: "Never", "Sometimes" or "Always". */
const char *lkmm_observation(const struct lkmm_result *result);

enum lkmm_text {
	LKMM_HERD,		/* herd7's block, line for line (its Time line included) */
	LKMM_EXPLAIN,		/* opts.explain */
	LKMM_SUGGEST,		/* opts.suggest */
	LKMM_DOT,		/* opts.graph: for Graphviz */
	LKMM_SVG,		/* opts.graph: laid out by lkmm */
	LKMM_STATS,		/* opts.stats */
	LKMM_EVENTS,		/* opts.events: what `lkmm parse` prints */
	LKMM_MODULE,		/* opts.module: a kernel module's C, as `lkmm run` builds */
};

/* One of the result's texts; "" when not asked for. */
const char *lkmm_text(const struct lkmm_result *result, enum lkmm_text which);

void lkmm_result_free(struct lkmm_result *result);

/*
 * Whether the test's module fits a machine of cpus CPUs that runs ninst
 * instances of the test at once, each process on a CPU of its own: 0, or
 * LKMM_BAD_INPUT and *err at the first process that does not fit.
 */
int lkmm_module_fits(const struct lkmm_result *result, long cpus, long ninst,
		     struct lkmm_error **err);

/* The header every LKMM_MODULE includes, to be written beside it as lkmm-runtime.h. */
const char *lkmm_module_runtime(void);

/*
 * A kernel's run of tests, as its console or klitmus7 printed it: the
 * "lkmm-run:" lines of LKMM_MODULE's modules, or klitmus7's own blocks.
 * Read once, name naming it in messages; one thread at a time compares
 * with it.
 */
struct lkmm_log;

int lkmm_log_read(struct lkmm_log **log, const char *name, const char *text, size_t len,
		  struct lkmm_error **err);
void lkmm_log_free(struct lkmm_log *log);

/* What one test's run saw, held against the model. */
struct lkmm_run {
	long positive, negative;	/* runs whose final state satisfies the condition, and not */
	long long filtered;		/* runs the test's filter rejected, in neither */
	double seconds;
	int states;			/* distinct final states reached */
	int violations;			/* of those, the states the model forbids */
	const char *text;		/* klitmus7's block, then the model's word on each state */
	const char *alarms;		/* a line for each violation; "" when none */
};

/*
 * Hold the log's first run of result's test not compared yet (a test run
 * twice has two) against result's verdict.  LKMM_BAD_INPUT when the log
 * has none, the run did not finish, or its lines are not the test's.
 */
int lkmm_log_compare(struct lkmm_log *log, const struct lkmm_result *result,
		     struct lkmm_run **run, struct lkmm_error **err);
void lkmm_run_free(struct lkmm_run *run);

#ifdef __cplusplus
}
#endif

#endif
