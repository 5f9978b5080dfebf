/*
 * main.c - `lkmm code`: the command line of src/code/ (bin/lkmm-code,
 * which `lkmm code` runs: libclang is linked here, never into lkmm).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "code.h"

static const char usage[] =
	"usage: lkmm code [options] FILE:FUNCTION[+FUNCTION...] FILE:FUNCTION...\n"
	"       (FILE:LINE names the function around that line)\n"
	"\n"
	"Reads the named kernel functions (each argument one task: the functions\n"
	"it calls, in order; the same argument twice, two tasks running it at\n"
	"once), writes them as a litmus test, checks it with the Linux-kernel\n"
	"memory model and answers in terms of the kernel's files and lines.\n"
	"\n"
	"  --tree DIR        the kernel source tree (default: the project's\n"
	"                    unpacked 6.12 tree, build/kernel/src); prepared\n"
	"                    once (make LLVM=1 CONFIG prepare) into the cache\n"
	"  --config CONFIG   the Kbuild config target the tree is read under\n"
	"                    (allyesconfig: every #ifdef'd part present;\n"
	"                    defconfig, allnoconfig ... as the code runs there)\n"
	"  --depth N         inline calls to functions of the file this deep (3)\n"
	"  --distinct TYPE   each task has its own struct TYPE (default: one\n"
	"                    object per structure type, shared)\n"
	"  --exists COND     the test's condition, instead of \"a task sees a\n"
	"                    published pointer but not what was written before\"\n"
	"  --emit FILE       also write the litmus test to FILE\n"
	"  --explain, --glossary, --suggest, --suggest-timeout S, --graph DIR,\n"
	"  --svg, --html FILE\n"
	"                    as for lkmm check, in the kernel's lines; a fix is\n"
	"                    a diff that patch -p1 applies in the tree\n"
	"  -max-traces N     give up when a task has more than N runs (100000)\n"
	"  -I DIR, -conf FILE  the model, as for lkmm check (default: the tree's\n"
	"                    own tools/memory-model, else as lkmm check finds it)\n"
	"\n"
	"Exit status: 0 when checked, 2 on bad input (unknown file or function,\n"
	"code that cannot be modelled, a file that does not compile: the message\n"
	"names FILE:LINE), 3 when a limit was reached.\n";

static _Noreturn void bad_usage(const char *msg, const char *arg)
{
	fprintf(stderr, "lkmm code: error: %s%s%s\n%s", msg, arg ? " " : "", arg ? arg : "", usage);
	exit(EXIT_BAD_INPUT);
}

static const char *next_arg(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		bad_usage("option needs an argument:", argv[*i]);
	return argv[++*i];
}

/* FILE:F1+F2: one task. */
static void parse_process(const char *arg, struct code_process *p)
{
	const char *colon = strrchr(arg, ':');
	char *funcs, *f, *save = NULL;

	if (!colon || colon == arg || !colon[1])
		bad_usage("a task is FILE:FUNCTION[+FUNCTION...], not", arg);
	p->file = xstrndup(arg, colon - arg);
	p->funcs = NULL;
	p->nfuncs = 0;
	funcs = xstrdup(colon + 1);
	for (f = strtok_r(funcs, "+", &save); f; f = strtok_r(NULL, "+", &save)) {
		p->funcs = xrealloc(p->funcs, (p->nfuncs + 1) * sizeof(*p->funcs));
		p->funcs[p->nfuncs++] = xstrdup(f);
	}
	free(funcs);
	if (!p->nfuncs)
		bad_usage("no function in", arg);
}

/* The project's tree beside the binary: bin/lkmm-code -> build/kernel/src. */
static char *default_tree(void)
{
	char *self = binary_dir(), *tree = NULL;
	struct strbuf path = { 0 };
	struct stat st;

	if (!self)
		return NULL;
	sb_addf(&path, "%s/../build/kernel/src", self);
	if (!stat(path.buf, &st) && S_ISDIR(st.st_mode))
		tree = realpath(path.buf, NULL);
	sb_free(&path);
	free(self);
	return tree;
}

/* "defconfig", "allyesconfig", "x86_64_defconfig": a make target, never an option. */
static bool config_target(const char *name)
{
	size_t len = strlen(name), i;

	if (len <= strlen("config") || strcmp(name + len - strlen("config"), "config"))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_')
			return false;
	return true;
}

/* TREE/tools/memory-model when it holds the model, else NULL (a static buffer). */
static const char *tree_model(const char *tree, const char *cfg)
{
	static char dir[PATH_MAX];
	char path[PATH_MAX + 64];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/tools/memory-model", tree);
	if (snprintf(path, sizeof(path), "%s/%s", dir, cfg) >= (int)sizeof(path) || stat(path, &st))
		return NULL;
	return dir;
}

struct retelling {
	const struct code_test *test;
	const char *tree;
};

static void retell(void *arg, const char *text, struct strbuf *out)
{
	const struct retelling *r = arg;

	code_answer(r->test, r->tree, text, out);
}

/*
 * Check the test as `lkmm check` does a file, its outputs (--graph,
 * --html ...) included, with what follows herd7's block in the kernel's
 * terms.  The file is emit_file, else NAME.litmus in a scratch directory
 * (the graph's and the page's names come from it).
 */
static int check_test(const struct code_test *test, const char *tree, const char *emit_file,
		      struct files_options *opts)
{
	struct retelling how = { test, tree };
	char scratch[] = "/tmp/lkmm-code-XXXXXX", path[PATH_MAX];
	char *files[1];
	int status;

	if (emit_file) {
		snprintf(path, sizeof(path), "%s", emit_file);
	} else {
		if (!mkdtemp(scratch)) {
			fprintf(stderr, "lkmm code: error: cannot make a scratch directory: %s\n",
				strerror(errno));
			return EXIT_INTERNAL;
		}
		snprintf(path, sizeof(path), "%s/%s.litmus", scratch, test->name);
	}
	write_file(path, test->text.buf);
	if (opts->graph_dir && !make_dirs(opts->graph_dir, 0755)) {
		fprintf(stderr, "lkmm code: error: cannot make %s: %s\n", opts->graph_dir,
			strerror(errno));
		return EXIT_BAD_INPUT;
	}
	opts->retell = retell;
	opts->retell_arg = &how;
	files[0] = path;
	status = check_files(files, 1, opts);
	if (!emit_file) {
		unlink(path);
		rmdir(scratch);
	}
	return status;
}

int main(int argc, char **argv)
{
	struct code_request req = { 0 };
	struct files_options opts = { .jobs = 1 };
	struct code_test test;
	struct strbuf err = { 0 };
	struct lkmm_model *model;
	struct lkmm_error *model_err;
	const char *model_dir = NULL, *cfg = "linux-kernel.cfg", *emit_file = NULL;
	const char *config = "allyesconfig";
	char *tree = NULL, *build_dir = NULL, *cache;
	const char **distinct = NULL;
	int i, status;

	lkmm_options_init(&opts.check);
	req.depth = 3;
	req.procs = xcalloc(argc, sizeof(*req.procs));
	distinct = xcalloc(argc, sizeof(*distinct));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "code") && i == 1)
			continue;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "--tree")) {
			tree = xstrdup(next_arg(argc, argv, &i));
		} else if (!strcmp(a, "--config")) {
			config = next_arg(argc, argv, &i);
			if (!config_target(config))
				bad_usage("--config takes a Kbuild config target (defconfig, "
					  "allyesconfig ...), not", config);
		} else if (!strcmp(a, "-max-traces") || !strcmp(a, "--max-traces")) {
			char *end;
			long n = strtol(next_arg(argc, argv, &i), &end, 10);

			if (*end || n < 1 || n > 100000000)
				bad_usage("-max-traces takes 1 to 100000000, not", argv[i]);
			opts.check.max_traces = (int)n;
		} else if (!strcmp(a, "--depth")) {
			char *end;
			long d = strtol(next_arg(argc, argv, &i), &end, 10);

			if (*end || d < 0 || d > 20)
				bad_usage("--depth takes 0 to 20, not", argv[i]);
			req.depth = (int)d;
		} else if (!strcmp(a, "--distinct")) {
			distinct[req.ndistinct++] = next_arg(argc, argv, &i);
		} else if (!strcmp(a, "--exists")) {
			req.exists = next_arg(argc, argv, &i);
		} else if (!strcmp(a, "--emit")) {
			emit_file = next_arg(argc, argv, &i);
		} else if (!strcmp(a, "--explain")) {
			opts.check.explain = true;
		} else if (!strcmp(a, "--glossary")) {
			opts.check.explain = opts.check.glossary = true;
		} else if (!strcmp(a, "--suggest")) {
			opts.check.suggest = true;
		} else if (!strcmp(a, "--suggest-timeout")) {
			char *end;

			opts.check.suggest_timeout = strtod(next_arg(argc, argv, &i), &end);
			if (*end || opts.check.suggest_timeout < 0)
				bad_usage("--suggest-timeout takes seconds, not", argv[i]);
		} else if (!strcmp(a, "--graph")) {
			opts.graph_dir = next_arg(argc, argv, &i);
		} else if (!strcmp(a, "--svg")) {
			opts.svg = true;
		} else if (!strcmp(a, "--html")) {
			opts.html_file = next_arg(argc, argv, &i);
		} else if (!strcmp(a, "-I") || !strcmp(a, "--model")) {
			model_dir = next_arg(argc, argv, &i);
		} else if (!strcmp(a, "-conf")) {
			cfg = next_arg(argc, argv, &i);
		} else if (a[0] == '-') {
			bad_usage("unknown option", a);
		} else {
			parse_process(a, &req.procs[req.nprocs++]);
		}
	}
	if (req.nprocs < 1)
		bad_usage("no task given", NULL);
	if (!tree && !(tree = default_tree())) {
		fprintf(stderr, "lkmm code: error: no kernel tree: give --tree DIR, or unpack the "
			"project's with kernel/scripts/prepare-tree.sh\n");
		return EXIT_BAD_INPUT;
	}
	if (opts.svg && !opts.graph_dir)
		bad_usage("--svg needs --graph DIR", NULL);
	if (!model_dir && !getenv("LKMM_MODEL_DIR"))
		model_dir = tree_model(tree, cfg);	/* the model of the kernel being read */
	opts.model_dir = model_dir_find(model_dir, cfg);
	opts.model.cfg = cfg;
	cache = lkmm_cache_dir();
	opts.model.cache_dir = cache;
	/* The translation asks the model which primitives it defines. */
	status = lkmm_model_open(&model, opts.model_dir, &opts.model, &model_err);
	if (status) {
		fputs(model_err->text, stderr);
		lkmm_error_free(model_err);
		return status;
	}
	status = code_prepare_tree(tree, config, cache ? cache : "/tmp/lkmm-cache", &build_dir, &err);
	if (!status) {
		char real[PATH_MAX];

		req.tree = realpath(tree, real) ? real : tree;
		req.build_dir = build_dir;
		req.model = model;
		req.distinct = distinct;
		status = code_translate(&req, &test, &err);
		if (!status) {
			fputs(test.text.buf, stdout);
			fputs("\n", stdout);
			fflush(stdout);
			status = check_test(&test, req.tree, emit_file, &opts);
			code_test_free(&test);
		}
	}
	if (err.buf)
		fputs(err.buf, stderr);
	sb_free(&err);
	lkmm_model_close(model);
	for (i = 0; i < req.nprocs; i++) {
		int j;

		for (j = 0; j < req.procs[i].nfuncs; j++)
			free(req.procs[i].funcs[j]);
		free(req.procs[i].funcs);
		free(req.procs[i].file);
	}
	free(req.procs);
	free(distinct);
	free(tree);
	free(build_dir);
	free(cache);
	free((char *)opts.model_dir);
	return status;
}
