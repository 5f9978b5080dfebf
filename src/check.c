/*
 * check.c - decide each test given on the command line: parse, expand,
 * generate events, enumerate executions through the model, report.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cat.h"
#include "check.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* -o DIR: DIR/NAME.out, NAME being the file's name without .litmus. */
static void write_out_file(const char *dir, const char *path, const char *text)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t len = strlen(base);
	struct strbuf name = { 0 };
	FILE *f;

	if (len > 7 && !strcmp(base + len - 7, ".litmus"))
		len -= 7;
	sb_addf(&name, "%s/%.*s.out", dir, (int)len, base);
	f = fopen(name.buf, "w");
	if (!f || fputs(text, f) == EOF || fclose(f))
		die(EXIT_BAD_INPUT, "cannot write %s: %s", name.buf, strerror(errno));
	sb_free(&name);
}

static void check_one(const char *path, struct cat_model *model,
		      const struct macro_table *macros, const struct check_options *opts)
{
	double start = now();
	struct litmus *t = load_test(path, macros);
	struct program *p = program_build(t, &opts->limits);
	struct outcomes o;
	struct strbuf out = { 0 };

	enumerate(p, model, opts, &o);
	report(p, &o, now() - start, &out);
	if (opts->explain)
		explain(p, &o, &out);
	if (!opts->quiet) {
		fputs(out.buf, stdout);
		fputs("\n", stdout);
		fflush(stdout);
	}
	if (opts->out_dir)
		write_out_file(opts->out_dir, path, out.buf);
	sb_free(&out);
	outcomes_free(&o);
	program_free(p);
	litmus_free(t);
}

int check_files(char **files, int nfiles, const struct check_options *opts)
{
	struct cat_model *model = cat_load(opts->model_dir, opts->cfg_name);
	struct macro_table *macros = load_macros(cat_macros_file(model));
	int i;

	for (i = 0; i < nfiles; i++)
		check_one(files[i], model, macros, opts);
	macros_free(macros);
	cat_free(model);
	return 0;
}
