/*
 * catload.c - loading a model: its files parsed (catparse.c), its names
 * resolved and herd's primitives bound (catresolve.c).  On top of the
 * interpreter's other files, so that evaluation never reaches back to
 * loading.
 */
#include "catast.h"

/* What load_model() fills under catch_die(). */
struct load_job {
	struct cat_model *m;
	const struct model_spec *spec;
};

static void load_model(void *arg)
{
	struct load_job *job = arg;

	cat_parse_cfg(job->m, job->spec);
	cat_resolve(job->m);
}

/* An error in the model frees what was loaded of it, then goes on as die() would. */
struct cat_model *cat_load(const struct model_spec *spec)
{
	struct cat_model *m = xcalloc(1, sizeof(*m));
	struct load_job job = { m, spec };
	int status;

	m->dir = xstrdup(spec->dir);
	m->spec = spec;
	status = catch_die(load_model, &job);
	m->spec = NULL;
	if (status) {
		cat_free(m);
		die_again(status);
	}
	return m;
}
