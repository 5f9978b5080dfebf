/*
 * lkmm.c - the public library (include/lkmm.h) over the pipeline of
 * check.c: its handles, its options, and errors returned rather than
 * printed.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "lkmm.h"

/*
 * The model is read-only once loaded, so threads share it; what a check
 * writes is an evaluation of it.  Each call takes an idle one (or makes
 * one) and gives it back: it keeps what it learned of the last test's
 * shape for the next, and there are never more than threads checking.
 */
struct lkmm_model {
	struct lkmm ctx;		/* the model and its macros; no evaluation of its own */
	pthread_mutex_t lock;
	struct cat_eval **idle;
	int nidle, cap;
};

static struct cat_eval *take_eval(struct lkmm_model *m)
{
	struct cat_eval *ev = NULL;

	pthread_mutex_lock(&m->lock);
	if (m->nidle)
		ev = m->idle[--m->nidle];
	pthread_mutex_unlock(&m->lock);
	return ev ? ev : cat_eval_new(m->ctx.loaded.model);
}

static void give_back_eval(struct lkmm_model *m, struct cat_eval *ev)
{
	pthread_mutex_lock(&m->lock);
	m->idle = grow_array(m->idle, m->nidle, &m->cap, sizeof(*m->idle));
	m->idle[m->nidle++] = ev;
	pthread_mutex_unlock(&m->lock);
}

/*
 * What a call of the library does under catch_die(): the messages go to
 * msgs and the first error's place to rec, not to standard error, for
 * the caller's struct lkmm_error.  Restored after, as a caller may have
 * set them (a -j worker of the command line).
 */
struct capture {
	struct die_record rec;
	struct strbuf msgs;
	struct die_record *saved_record;
	struct strbuf *saved_output;
};

static void capture_start(struct capture *c)
{
	memset(c, 0, sizeof(*c));
	c->saved_record = die_record;
	c->saved_output = die_output;
	die_record = &c->rec;
	die_output = &c->msgs;
}

/* The error caught, into *err (status the call's), or nothing when status is 0. */
static int capture_end(struct capture *c, int status, struct lkmm_error **err)
{
	struct lkmm_error *e;

	die_record = c->saved_record;
	die_output = c->saved_output;
	if (!status) {
		free(c->rec.file);
		free(c->rec.message);
		sb_free(&c->msgs);
		return 0;
	}
	e = xcalloc(1, sizeof(*e));
	e->status = status;
	e->file = c->rec.file;
	e->line = c->rec.line;
	e->column = c->rec.col;
	e->message = c->rec.message ? c->rec.message : xstrdup("out of memory");
	e->text = c->msgs.buf ? c->msgs.buf : xstrdup("");
	if (err)
		*err = e;
	else
		lkmm_error_free(e);
	return status;
}

void lkmm_error_free(struct lkmm_error *err)
{
	if (!err)
		return;
	free(err->file);
	free(err->message);
	free(err->text);
	free(err);
}

char *lkmm_model_find(const char *cfg)
{
	return model_dir_lookup(cfg ? cfg : "linux-kernel.cfg");
}

char *lkmm_cache_dir(void)
{
	return model_cache_dir();
}

/*
 * Open the model in dir, or in files (nfiles of them, NULL: dir's), as
 * opts say (NULL: the defaults); a model in memory is never cached.
 */
static int open_model(struct lkmm_model **model, const char *dir,
		      const struct model_file *files, int nfiles,
		      const struct lkmm_model_options *opts, struct lkmm_error **err)
{
	const struct lkmm_model_options defaults = { 0 };
	struct model_spec spec = { 0 };
	struct lkmm_model *m = xcalloc(1, sizeof(*m));
	struct capture c;
	int status;

	if (!opts)
		opts = &defaults;
	spec.dir = dir;
	spec.cfg_name = opts->cfg ? opts->cfg : "linux-kernel.cfg";
	spec.variants = opts->variants;
	spec.files = files;
	spec.nfiles = nfiles;
	capture_start(&c);
	status = lkmm_open(&m->ctx, &spec, files ? NULL : opts->cache_dir);
	if (capture_end(&c, status, err)) {
		free(m);
		m = NULL;
	} else {
		pthread_mutex_init(&m->lock, NULL);
		give_back_eval(m, m->ctx.eval);
		m->ctx.eval = NULL;
	}
	*model = m;
	return status;
}

int lkmm_model_open(struct lkmm_model **model, const char *dir,
		    const struct lkmm_model_options *opts, struct lkmm_error **err)
{
	return open_model(model, dir, NULL, 0, opts, err);
}

int lkmm_model_open_files(struct lkmm_model **model, const struct lkmm_file *files,
			  int nfiles, const struct lkmm_model_options *opts,
			  struct lkmm_error **err)
{
	struct model_file *given = xcalloc(nfiles, sizeof(*given));
	int status;

	for (int i = 0; i < nfiles; i++)
		given[i] = (struct model_file){ files[i].name, files[i].text };
	/* A directory no file is read from: its name only places the files in messages. */
	status = open_model(model, "<memory>", given, nfiles, opts, err);
	free(given);
	return status;
}

void lkmm_model_close(struct lkmm_model *model)
{
	if (!model)
		return;
	while (model->nidle)
		cat_eval_free(model->idle[--model->nidle]);
	free(model->idle);
	pthread_mutex_destroy(&model->lock);
	lkmm_close(&model->ctx);
	free(model);
}

void lkmm_options_init(struct lkmm_options *opts)
{
	struct check_options defaults;

	check_options_init(&defaults);
	memset(opts, 0, sizeof(*opts));
	opts->max_executions = defaults.max_executions;
	opts->max_traces = defaults.limits.max_traces;
	opts->max_values = defaults.limits.max_values;
	opts->suggest_timeout = defaults.suggest_timeout;
}

/* The pipeline's options for the library's. */
static void check_options_from(const struct lkmm_options *o, struct check_options *co)
{
	check_options_init(co);
	co->speedcheck = o->speedcheck ? SPEEDCHECK_TRUE : SPEEDCHECK_FALSE;
	co->timeout = o->timeout;
	co->max_executions = o->max_executions;
	co->limits.max_traces = o->max_traces;
	co->limits.max_values = o->max_values;
	co->explain = o->explain;
	co->glossary = o->glossary;
	co->suggest = o->suggest;
	co->suggest_timeout = o->suggest_timeout;
	co->max_variants = o->suggest_max;
	co->suggest_edits = o->suggest_edits;
	co->graph = o->graph;
	co->stats = o->stats;
	co->events_only = o->events;
	co->module = o->module;
	co->keep_executions = o->explain || o->suggest || o->graph;
}

int lkmm_check(struct lkmm_model *model, const char *name, const char *text, size_t len,
	       const struct lkmm_options *opts, struct lkmm_result **result,
	       struct lkmm_error **err)
{
	struct check_options co;
	struct lkmm_result *r;
	struct capture c;
	struct lkmm ctx = model->ctx;
	char *copy = xstrndup(text, len);
	int status;

	check_options_from(opts, &co);
	ctx.eval = take_eval(model);
	ctx.threads = opts->threads > 1 ? opts->threads : 0;
	capture_start(&c);
	status = lkmm_check_text(&ctx, name, copy, &co, &r);
	give_back_eval(model, ctx.eval);
	free(copy);
	if (status == EXIT_LIMIT && r->outcomes.limit && !c.rec.status) {
		/* A limit stops the search rather than dying: its reason is the message. */
		c.rec.status = status;
		c.rec.message = xstrdup(r->outcomes.limit);
		sb_addf(&c.msgs, "lkmm: %s\n", r->outcomes.limit);
	}
	if (capture_end(&c, status, err)) {
		lkmm_result_free(r);
		r = NULL;
	}
	*result = r;
	return status;
}

void lkmm_verdict(const struct lkmm_result *result, long *positive, long *negative)
{
	*positive = result->outcomes.positive;
	*negative = result->outcomes.negative;
}

const char *lkmm_test_name(const struct lkmm_result *result)
{
	return result->test->name;
}

const char *lkmm_observation(const struct lkmm_result *result)
{
	return observation(&result->outcomes);
}

const char *lkmm_text(const struct lkmm_result *result, enum lkmm_text which)
{
	const struct strbuf *texts[] = {
		[LKMM_HERD] = &result->herd,
		[LKMM_EXPLAIN] = &result->explanation,
		[LKMM_SUGGEST] = &result->suggestion,
		[LKMM_DOT] = &result->dot,
		[LKMM_SVG] = &result->svg,
		[LKMM_STATS] = &result->stats,
		[LKMM_EVENTS] = &result->events,
		[LKMM_MODULE] = &result->module,
	};

	if ((unsigned int)which >= sizeof(texts) / sizeof(texts[0]) || !texts[which] ||
	    !texts[which]->buf)
		return "";
	return texts[which]->buf;
}

/* What module_fits() weighs under catch_die(). */
struct fit_job {
	const struct litmus *test;
	long cpus, ninst;
};

static void module_fits(void *arg)
{
	const struct fit_job *job = arg;
	const struct litmus *t = job->test;
	long threads = t->nprocs * job->ninst;

	if (threads > job->cpus)
		die_at(t->procs[job->cpus / job->ninst].pos,
		       "test %s has %d processes, %ld thread%s with --ninst %ld, but the guest has "
		       "%ld vCPUs (raise --cpus)", t->name, t->nprocs, threads,
		       threads == 1 ? "" : "s", job->ninst, job->cpus);
}

int lkmm_module_fits(const struct lkmm_result *result, long cpus, long ninst,
		     struct lkmm_error **err)
{
	struct fit_job job = { result->test, cpus, ninst > 0 ? ninst : 1 };
	struct capture c;

	capture_start(&c);
	return capture_end(&c, catch_die(module_fits, &job), err);
}

const char *lkmm_module_runtime(void)
{
	return lkmm_runtime_h;
}

enum lkmm_primitive lkmm_model_primitive(const struct lkmm_model *model, const char *name)
{
	const struct macro *m = macro_find(model->ctx.loaded.macros, name);

	return !m ? LKMM_UNDEFINED : m->expr ? LKMM_EXPRESSION : LKMM_STATEMENT;
}

struct lkmm_log {
	struct run_log *log;
};

/* What read_log() reads under catch_die(). */
struct log_job {
	struct lkmm_log *log;
	const char *name, *text;
};

static void read_log(void *arg)
{
	struct log_job *job = arg;

	job->log->log = run_log_read(job->name, job->text);
}

int lkmm_log_read(struct lkmm_log **log, const char *name, const char *text, size_t len,
		  struct lkmm_error **err)
{
	char *copy = xstrndup(text, len);
	struct log_job job = { xcalloc(1, sizeof(**log)), name, copy };
	struct capture c;
	int status;

	capture_start(&c);
	status = capture_end(&c, catch_die(read_log, &job), err);
	free(copy);
	if (status) {
		lkmm_log_free(job.log);
		job.log = NULL;
	}
	*log = job.log;
	return status;
}

void lkmm_log_free(struct lkmm_log *log)
{
	if (!log)
		return;
	if (log->log)
		run_log_free(log->log);
	free(log);
}

/* A run handed out, and what its texts live in. */
struct run_result {
	struct lkmm_run run;
	struct run_seen seen;
};

/* What compare_run() compares under catch_die(). */
struct compare_job {
	struct lkmm_log *log;
	const struct lkmm_result *result;
	struct run_seen *seen;
};

static void compare_run(void *arg)
{
	struct compare_job *job = arg;

	run_log_compare(job->log->log, job->result->test, job->result->prog,
			&job->result->outcomes, job->seen);
}

int lkmm_log_compare(struct lkmm_log *log, const struct lkmm_result *result,
		     struct lkmm_run **run, struct lkmm_error **err)
{
	struct run_result *r = xcalloc(1, sizeof(*r));
	struct compare_job job = { log, result, &r->seen };
	struct capture c;
	int status;

	capture_start(&c);
	status = capture_end(&c, catch_die(compare_run, &job), err);
	if (status) {
		run_seen_free(&r->seen);
		free(r);
		*run = NULL;
		return status;
	}
	r->run = (struct lkmm_run){
		.positive = r->seen.seen.positive,
		.negative = r->seen.seen.negative,
		.filtered = r->seen.filtered,
		.seconds = r->seen.seconds,
		.states = r->seen.seen.nstates,
		.violations = r->seen.violations,
		.text = r->seen.text.buf ? r->seen.text.buf : "",
		.alarms = r->seen.alarms.buf ? r->seen.alarms.buf : "",
	};
	*run = &r->run;
	return 0;
}

void lkmm_run_free(struct lkmm_run *run)
{
	struct run_result *r = (struct run_result *)run;

	if (!r)
		return;
	run_seen_free(&r->seen);
	free(r);
}
