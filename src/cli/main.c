/*
 * main.c - the lkmm command line.
 *
 *   lkmm check [options] FILE...   herd7's verdicts, in herd7's format
 *   lkmm parse [options] FILE      the events each process can generate
 *
 * Invoked as "herd7" (through a symlink), lkmm behaves as `lkmm check` and
 * takes herd7's option spelling, so the kernel's scripts can run it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "kernel-run/kernel-run.h"

#define LKMM_VERSION "0.1"

static const char usage[] =
	"usage: lkmm check [options] FILE|@LISTFILE|-...\n"
	"       lkmm parse [options] FILE\n"
	"       lkmm run [run options] FILE|@LISTFILE|-...\n"
	"       lkmm code [code options] FILE:FUNCTION[+FUNCTION...]...\n"
	"       lkmm --version | --help\n"
	"\n"
	"check   decides each litmus test against the Linux-kernel memory model\n"
	"        and prints herd7's output for it, line for line.  @LISTFILE\n"
	"        checks the tests listed in LISTFILE, one path a line (blank\n"
	"        lines and lines starting with # are skipped); - those listed\n"
	"        on standard input.\n"
	"parse   prints the events each process of a test can generate.\n"
	"code    reads kernel functions (each argument one task), writes them as\n"
	"        a litmus test, checks it and answers in the kernel's lines\n"
	"        (lkmm code --help lists its options).\n"
	"run     runs each test as a kernel module in a QEMU guest (the project's\n"
	"        patched 6.12 kernel, built if needed; one boot for all tests),\n"
	"        prints klitmus7's result block for it and holds each state the\n"
	"        kernel reached against the model: a state the model forbids is\n"
	"        a MODEL VIOLATION and exit status 5.  Never loads anything into\n"
	"        this machine's kernel.\n"
	"\n"
	"Options (herd7's spelling where herd7 has them):\n"
	"  -I DIR, --model DIR   the model directory (see below)\n"
	"  -conf FILE            the model's configuration (default linux-kernel.cfg)\n"
	"  -variant NAMES        set variants of the model beyond its cfg's, as\n"
	"                        herd7 does (lkmmv2: the 6.15 model's RMWs; a\n"
	"                        model's `if \"NAME\"` reads any name)\n"
	"  -o DIR                also write each test's output to DIR/NAME.out\n"
	"  -q                    print nothing on standard output\n"
	"  -j N                  check N tests at once, output in the order given\n"
	"                        (default: one per online CPU; as herd7, 1)\n"
	"  -speedcheck true|false|fast\n"
	"                        true, fast: stop at the first execution that\n"
	"                        settles the condition, and report only it\n"
	"  -timeout SECONDS      give up on a test after this long (default: none)\n"
	"  -max-executions N     give up after N candidate executions\n"
	"                        (default 10000000)\n"
	"  -max-traces N         give up when a process has more than N runs\n"
	"                        (default 100000)\n"
	"  -max-values N         give up when a location can hold more than N\n"
	"                        values (default 256)\n"
	"  --explain             say, after herd7's output, why the outcome is\n"
	"                        allowed or forbidden: every step of the cycle\n"
	"                        that forbids it, or how it happens\n"
	"  --glossary            --explain, with each word of the model it uses\n"
	"                        defined at its end\n"
	"  --suggest             for an outcome the model allows, the cheapest\n"
	"                        edits that forbid it, as diffs of the test (cost:\n"
	"                        acquire/release 1, smp_rmb()/smp_wmb() 2,\n"
	"                        smp_mb() 3); for one it forbids, which of the\n"
	"                        test's orderings are needed\n"
	"  --suggest-max N       try at most N variants of a test (default: as\n"
	"                        many as --suggest-timeout allows)\n"
	"  --suggest-timeout SECONDS\n"
	"                        search fixes for at most this long (default 5;\n"
	"                        0: no bound)\n"
	"  --suggest-edits N     edits in one fix at most (default: processes + 2)\n"
	"  --graph DIR           write DIR/NAME.dot: the execution explained, one\n"
	"                        column per process, the cycle in red\n"
	"  --svg                 also write DIR/NAME.svg, the graph drawn\n"
	"  --html FILE           one self-contained page for all the tests:\n"
	"                        verdict, explanation, suggestion, graph\n"
	"  --stats               after herd7's output, how much of the search\n"
	"                        ran: combinations of runs, executions judged,\n"
	"                        verdicts of the model\n"
	"  --no-model-cache      load the model from its files, and leave the\n"
	"                        model cache alone (see below)\n"
	"\n"
	"Run options (module parameters keep klitmus7's names):\n"
	"  --runs N              runs per test, threads started afresh (nruns, 10)\n"
	"  --size N              instances of the test per run (size, 1000)\n"
	"  --cpus N              the guest's vCPUs (default: this machine's\n"
	"                        CPUs, at least 2); a test needs one per process\n"
	"  --stride N            step through the instances, coprime to size (1)\n"
	"  --ninst N             groups of threads at once (1)\n"
	"  --affincr N           thread t on CPU t*N mod vCPUs; 0 unbound (1)\n"
	"  --boot-timeout SECS   give up on the guest after this long (1200)\n"
	"  --emit DIR            only write the modules' sources, a Kbuild file\n"
	"                        and run.sh to DIR, to build and run on a test\n"
	"                        machine of your own (make && ./run.sh > LOG)\n"
	"  --compare LOG         run nothing: hold the results in LOG (run.sh's\n"
	"                        output, a console log, or klitmus7's own log)\n"
	"                        against the model\n"
	"  --where               print where the kernel half (patches, QEMU\n"
	"                        harness) is taken from, and run nothing\n"
	"  -I DIR, -conf FILE, -variant NAMES, --no-model-cache\n"
	"                        the model, as for check\n"
	"\n"
	"Each test is checked on its own: bad input or a limit ends that test,\n"
	"and the others are still checked.  Exit status, the worst of all tests:\n"
	"0 when every test was decided, 2 on bad input (the message names the\n"
	"file, line and column), 3 when a limit was reached, 4 on an internal\n"
	"error of lkmm (please report it).\n"
	"\n"
	"The model cache: the first run on a model saves it, parsed and\n"
	"resolved, in $LKMM_CACHE_DIR, else $XDG_CACHE_HOME/lkmm, else\n"
	"$HOME/.cache/lkmm; later runs read it instead of parsing the model\n"
	"again, as long as the model's files (read and hashed on every run)\n"
	"and lkmm's binary are the ones it was saved from.  The directory can\n"
	"be deleted at any time; when it cannot be written, lkmm loads the\n"
	"model each time.\n"
	"\n";

static _Noreturn void bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "lkmm: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'lkmm --help'.\n");
	exit(EXIT_BAD_INPUT);
}

static long parse_number(const char *opt, const char *arg, long min)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || end == arg || n < min) {
		fprintf(stderr, "lkmm: %s takes a whole number of at least %ld, not '%s'\n",
			opt, min, arg);
		exit(EXIT_BAD_INPUT);
	}
	return n;
}

/* The option's argument, or a clear error when it is missing. */
static const char *option_arg(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		bad_usage("option %s needs an argument", argv[*i]);
	return argv[++*i];
}

/* -speedcheck: whether to stop at the first execution that settles the condition. */
static int parse_speedcheck(const char *arg)
{
	if (!strcmp(arg, "false"))
		return 0;
	if (!strcmp(arg, "true") || !strcmp(arg, "fast"))
		return 1;
	bad_usage("-speedcheck takes true, false or fast, not '%s'", arg);
}

/*
 * What the options say about the model: where it is (-I, NULL for the
 * lookup of modeldir.c), its cfg (-conf), the variants set beyond the
 * cfg's (each -variant, joined by commas) and whether the cache may be
 * used.
 */
struct model_options {
	const char *dir;
	const char *cfg_name;
	struct strbuf variants;
	bool no_cache;
};

/* The model's options, true if a is one (taking its argument from argv). */
static bool model_option(int argc, char **argv, int *i, struct model_options *mo)
{
	const char *a = argv[*i];

	if (!strcmp(a, "-I") || !strcmp(a, "--model"))
		mo->dir = option_arg(argc, argv, i);
	else if (!strcmp(a, "-conf"))
		mo->cfg_name = option_arg(argc, argv, i);
	else if (!strcmp(a, "-variant"))
		sb_addf(&mo->variants, "%s%s", mo->variants.len ? "," : "",
			option_arg(argc, argv, i));
	else if (!strcmp(a, "--no-model-cache"))
		mo->no_cache = true;
	else
		return false;
	return true;
}

/* Which model, and the cache's directory unless --no-model-cache. */
static void find_model(const struct model_options *mo, struct files_options *opts)
{
	opts->model.cfg = mo->cfg_name ? mo->cfg_name : "linux-kernel.cfg";
	opts->model_dir = model_dir_find(mo->dir, opts->model.cfg);
	opts->model.variants = mo->variants.buf;
	opts->model.cache_dir = mo->no_cache ? NULL : lkmm_cache_dir();
}

static void forget_model(struct model_options *mo, struct files_options *opts)
{
	free((char *)opts->model_dir);
	free((char *)opts->model.cache_dir);
	sb_free(&mo->variants);
}

/* Parse options into opts; the remaining arguments are the files. */
static int parse_options(int argc, char **argv, int first, struct files_options *opts,
			 struct model_options *mo, char ***files)
{
	int i, nfiles = 0;

	*files = xcalloc(argc, sizeof(**files));
	for (i = first; i < argc; i++) {
		const char *a = argv[i];

		if (model_option(argc, argv, &i, mo))
			continue;
		if (!strcmp(a, "-o"))
			opts->out_dir = option_arg(argc, argv, &i);
		else if (!strcmp(a, "-q"))
			opts->quiet = true;
		else if (!strcmp(a, "-speedcheck"))
			opts->check.speedcheck = parse_speedcheck(option_arg(argc, argv, &i));
		else if (!strcmp(a, "-timeout"))
			opts->check.timeout = parse_number(a, option_arg(argc, argv, &i), 1);
		else if (!strcmp(a, "-max-executions"))
			opts->check.max_executions = parse_number(a, option_arg(argc, argv, &i), 1);
		else if (!strcmp(a, "-max-traces"))
			opts->check.max_traces = (int)parse_number(a, option_arg(argc, argv, &i), 1);
		else if (!strcmp(a, "-max-values"))
			opts->check.max_values = (int)parse_number(a, option_arg(argc, argv, &i), 1);
		else if (!strcmp(a, "--explain"))
			opts->check.explain = true;
		else if (!strcmp(a, "--glossary"))
			opts->check.explain = opts->check.glossary = true;
		else if (!strcmp(a, "--stats"))
			opts->check.stats = true;
		else if (!strcmp(a, "-j"))
			opts->jobs = (int)parse_number(a, option_arg(argc, argv, &i), 1);
		else if (!strcmp(a, "--suggest"))
			opts->check.suggest = true;
		else if (!strcmp(a, "--suggest-max"))
			opts->check.suggest_max = parse_number(a, option_arg(argc, argv, &i), 1);
		else if (!strcmp(a, "--suggest-timeout"))
			opts->check.suggest_timeout = parse_number(a, option_arg(argc, argv, &i), 0);
		else if (!strcmp(a, "--suggest-edits"))
			opts->check.suggest_edits = (int)parse_number(a, option_arg(argc, argv, &i), 1);
		else if (!strcmp(a, "--graph"))
			opts->graph_dir = option_arg(argc, argv, &i);
		else if (!strcmp(a, "--svg"))
			opts->svg = true;
		else if (!strcmp(a, "--html"))
			opts->html_file = option_arg(argc, argv, &i);
		else if (a[0] == '-' && a[1])
			bad_usage("unknown option '%s'", a);
		else
			(*files)[nfiles++] = argv[i];
	}
	return nfiles;
}

/* The events each process of one test can generate. */
static int cmd_parse(int argc, char **argv)
{
	struct files_options opts = { 0 };
	struct model_options mo = { 0 };
	struct lkmm_model *model;
	struct lkmm_result *result;
	struct lkmm_error *err;
	size_t len;
	char **files, *text;
	int status;

	lkmm_options_init(&opts.check);
	if (parse_options(argc, argv, 2, &opts, &mo, &files) != 1)
		bad_usage("%s", "parse takes exactly one litmus file");
	opts.check.events = 1;
	find_model(&mo, &opts);
	text = read_file(files[0], &len);
	if (!text)
		die(EXIT_BAD_INPUT, "cannot read %s: %s", files[0], strerror(errno));
	status = lkmm_model_open(&model, opts.model_dir, &opts.model, &err);
	if (!status) {
		status = lkmm_check(model, files[0], text, len, &opts.check, &result, &err);
		if (!status) {
			fputs(lkmm_text(result, LKMM_EVENTS), stdout);
			lkmm_result_free(result);
		}
		lkmm_model_close(model);
	}
	if (status) {
		fputs(err->text, stderr);
		lkmm_error_free(err);
	}
	free(text);
	free(files);
	forget_model(&mo, &opts);
	return status;
}

/* Each non-blank line of a list that does not start with '#' is a path. */
static void add_listed_paths(struct vec *paths, const char *list, const char *text)
{
	const char *line = text;

	while (*line) {
		size_t len = strcspn(line, "\n");
		size_t end = len;

		while (end && (line[end - 1] == ' ' || line[end - 1] == '\t' ||
			       line[end - 1] == '\r'))
			end--;
		if (end && line[0] != '#')
			vec_push(paths, xstrndup(line, end));
		line += len + (line[len] == '\n');
	}
	if (!paths->len)
		fprintf(stderr, "lkmm: warning: %s lists no litmus test\n", list);
}

/*
 * The tests to check: FILE as is, @LISTFILE for the paths listed in
 * LISTFILE, and - for the paths listed on standard input, so that xargs
 * or GNU parallel can hand out a corpus.
 */
static void collect_paths(char **args, int nargs, struct vec *paths)
{
	int i;

	for (i = 0; i < nargs; i++) {
		const char *list = NULL, *name = args[i];
		char *text;

		if (!strcmp(args[i], "-")) {
			list = "/dev/stdin";
			name = "standard input";
		} else if (args[i][0] == '@') {
			list = args[i] + 1;
		}
		if (!list) {
			vec_push(paths, xstrdup(args[i]));
			continue;
		}
		text = read_file(list, NULL);
		if (!text)
			die(EXIT_BAD_INPUT, "cannot read the list of tests %s: %s", name,
			    strerror(errno));
		add_listed_paths(paths, name, text);
		free(text);
	}
}

static int cmd_check(int argc, char **argv, int first)
{
	struct files_options opts = { 0 };
	struct model_options mo = { 0 };
	struct vec paths = { 0 };
	char **args;
	int nargs, status, i;

	lkmm_options_init(&opts.check);
	/*
	 * Every CPU by default; as herd7, one, since the kernel's scripts run
	 * several herd7 processes at once (LKMM_JOBS).
	 */
	opts.jobs = first == 1 ? 1 : (int)sysconf(_SC_NPROCESSORS_ONLN);
	nargs = parse_options(argc, argv, first, &opts, &mo, &args);
	if (!nargs)
		bad_usage("%s", "no litmus test given");
	collect_paths(args, nargs, &paths);
	free(args);
	if (!paths.len)
		bad_usage("%s", "no litmus test given");
	if (opts.svg && !opts.graph_dir)
		bad_usage("%s", "--svg renders the graphs of --graph DIR; give --graph DIR too");
	find_model(&mo, &opts);
	status = check_files((char **)paths.items, paths.len, &opts);
	for (i = 0; i < paths.len; i++)
		free(paths.items[i]);
	vec_free(&paths);
	forget_model(&mo, &opts);
	return status;
}

static long online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 2 ? 2 : n;
}

static int cmd_run(int argc, char **argv)
{
	struct run_options opts = { .runs = 10, .size = 1000, .stride = 1, .ninst = 1,
				    .affincr = 1, .cpus = online_cpus() };
	struct model_options mo = { 0 };
	struct files_options where = { 0 };
	struct vec paths = { 0 };
	char **args = xcalloc(argc, sizeof(*args));
	int nargs = 0, status, i;

	lkmm_options_init(&opts.check);
	for (i = 2; i < argc; i++) {
		const char *a = argv[i];

		if (model_option(argc, argv, &i, &mo))
			continue;
		if (!strcmp(a, "--runs"))
			opts.runs = parse_number(a, option_arg(argc, argv, &i), 1);
		else if (!strcmp(a, "--size"))
			opts.size = parse_number(a, option_arg(argc, argv, &i), 1);
		else if (!strcmp(a, "--cpus"))
			opts.cpus = parse_number(a, option_arg(argc, argv, &i), 1);
		else if (!strcmp(a, "--stride"))
			opts.stride = parse_number(a, option_arg(argc, argv, &i), 1);
		else if (!strcmp(a, "--ninst"))
			opts.ninst = parse_number(a, option_arg(argc, argv, &i), 1);
		else if (!strcmp(a, "--affincr"))
			opts.affincr = parse_number(a, option_arg(argc, argv, &i), 0);
		else if (!strcmp(a, "--boot-timeout"))
			opts.boot_timeout = parse_number(a, option_arg(argc, argv, &i), 1);
		else if (!strcmp(a, "--emit"))
			opts.emit_dir = option_arg(argc, argv, &i);
		else if (!strcmp(a, "--compare"))
			opts.compare_log = option_arg(argc, argv, &i);
		else if (!strcmp(a, "--where"))
			opts.where = true;
		else if (a[0] == '-' && a[1])
			bad_usage("unknown run option '%s'", a);
		else
			args[nargs++] = argv[i];
	}
	if (opts.emit_dir && opts.compare_log)
		bad_usage("%s", "--emit and --compare each do half of a run; give one");
	collect_paths(args, nargs, &paths);
	free(args);
	if (!paths.len && !opts.where)
		bad_usage("%s", "no litmus test given");
	find_model(&mo, &where);
	opts.model_dir = where.model_dir;
	opts.model = where.model;
	status = run_files((char **)paths.items, paths.len, &opts);
	for (i = 0; i < paths.len; i++)
		free(paths.items[i]);
	vec_free(&paths);
	forget_model(&mo, &where);
	return status;
}

/*
 * `lkmm code` is bin/lkmm-code, beside this binary: it links libclang,
 * which lkmm itself (static, libc only) does not.
 */
static int cmd_code(char **argv)
{
	char *self = binary_dir();
	struct strbuf path = { 0 };

	if (!self)
		die(EXIT_INTERNAL, "cannot find lkmm's own path");
	sb_addf(&path, "%s/lkmm-code", self);
	execv(path.buf, argv);
	die(EXIT_BAD_INPUT, "lkmm code needs %s (make bin/lkmm-code; it needs libclang-dev): %s",
	    path.buf, strerror(errno));
}

int main(int argc, char **argv)
{
	const char *self = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	if (!strcmp(self, "herd7")) {
		if (argc == 2 && !strcmp(argv[1], "-version")) {
			printf("%s, lkmm %s standing in for herd7\n", LKMM_VERSION, LKMM_VERSION);
			return 0;
		}
		return cmd_check(argc, argv, 1);
	}
	if (argc < 2)
		bad_usage("%s", "no command given");
	if (!strcmp(argv[1], "--version")) {
		printf("lkmm %s\n", LKMM_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, stdout);
		fputs(model_dir_help, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "parse"))
		return cmd_parse(argc, argv);
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc, argv, 2);
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	if (!strcmp(argv[1], "code"))
		return cmd_code(argv);
	bad_usage("unknown command '%s'", argv[1]);
}
