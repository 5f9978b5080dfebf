/*
 * cli.h - the command line's door: `lkmm check FILE...` over the library
 * (include/lkmm.h), for lkmm (main.c) and lkmm-code (src/code/).
 */
#ifndef LKMM_CLI_H
#define LKMM_CLI_H

#include <stdbool.h>

#include "base/base.h"
#include "lkmm.h"

struct files_options {
	struct lkmm_options check;	/* explain, suggest, stats, the limits */
	const char *model_dir;		/* the model, found by lkmm_model_find() or -I */
	struct lkmm_model_options model;
	const char *out_dir;		/* -o */
	bool quiet;			/* -q */
	const char *graph_dir;		/* --graph DIR */
	bool svg;			/* --svg */
	const char *html_file;		/* --html FILE */
	int jobs;			/* -j: tests checked at once, or one test's threads */
	/*
	 * When set, what a test prints after herd7's block (the explanation,
	 * the suggestions) passes through retell() first: `lkmm code` tells
	 * it in the kernel's files and lines.
	 */
	void (*retell)(void *arg, const char *text, struct strbuf *out);
	void *retell_arg;
};

/*
 * Check each file on its own, printing herd7's output for each in the
 * order given, with what opts asks beside it; the worst status of all.
 */
int check_files(char **files, int nfiles, const struct files_options *opts);

/*
 * The model directory: `explicit` (-I/--model) when given, else the first
 * that lkmm_model_find() finds (model_dir_help says where).  Dies with
 * what to do when none holds cfg_name.
 */
char *model_dir_find(const char *explicit, const char *cfg_name);
extern const char model_dir_help[];

#endif
