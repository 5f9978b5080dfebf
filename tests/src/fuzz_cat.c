/*
 * fuzz_cat.c - libFuzzer target for the cat language: any input is a
 * model file, read (catparse.c), resolved (catresolve.c), then run on
 * two small tests (cateval.c, catprim.c, catmono.c, catlevel.c).
 *
 * An input that declares instructions is a bell, read before the
 * kernel's linux-kernel.cat; any other is a cat, read after the kernel's
 * linux-kernel.bell: either way a model of the kernel's shape, so that
 * the checks of a mutated linux-kernel.cat still meet its tags.  The
 * kernel's other files (lock.cat) are beside it for `include`, and
 * stdlib.cat is ours.
 *
 * A bad model must end in a diagnostic; an internal error (EXIT_INTERNAL)
 * is a bug of ours, as a crash is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "model/model.h"

static struct lkmm kernel;	/* for the macros */
static struct check_options opts;
static char *tests[2];		/* SB and MP, as text */

static const char *const kernel_files[] = {
	"linux-kernel.bell", "linux-kernel.cat", "linux-kernel.def", "lock.cat",
};

/* cfg NAME naming the bell and cat files given. */
static void write_cfg(const char *name, const char *bell, const char *cat)
{
	struct strbuf text = { 0 };

	sb_addf(&text, "macros linux-kernel.def\nbell %s\nmodel %s\n", bell, cat);
	free(fuzz_write(name, text.buf, text.len));
	sb_free(&text);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	for (size_t i = 0; i < sizeof(kernel_files) / sizeof(kernel_files[0]); i++) {
		char *to = fuzz_path(kernel_files[i]);
		struct strbuf from = { 0 };

		sb_addf(&from, "%s/%s", FUZZ_MODEL_DIR, kernel_files[i]);
		if (symlink(from.buf, to)) {
			perror(to);
			abort();
		}
		free(to);
		sb_free(&from);
	}
	write_cfg("bell.cfg", "fuzz.cat", "linux-kernel.cat");
	write_cfg("cat.cfg", "linux-kernel.bell", "fuzz.cat");
	tests[0] = fuzz_read(FUZZ_MODEL_DIR "/litmus-tests/SB+poonceonces.litmus", NULL);
	tests[1] = fuzz_read(FUZZ_MODEL_DIR "/litmus-tests/MP+pooncerelease+poacquireonce.litmus",
			     NULL);
	fuzz_open_model(&kernel, NULL);
	opts = fuzz_options();
	return 0;
}

/* What load() fills under catch_die(). */
struct load_job {
	struct model_spec spec;
	struct cat_model *model;
};

static void load(void *arg)
{
	struct load_job *job = arg;

	job->model = cat_load(&job->spec);
}

/* Each test through the model: a verdict, a diagnostic or a limit, never our own error. */
static void run_tests(struct cat_model *model)
{
	struct lkmm ctx = { .loaded = { .model = model, .macros = kernel.loaded.macros },
			    .eval = cat_eval_new(model) };

	for (int i = 0; i < 2; i++) {
		struct lkmm_result *r;

		if (lkmm_check_text(&ctx, "fuzz.litmus", tests[i], &opts, &r) == EXIT_INTERNAL)
			abort();
		lkmm_result_free(r);
	}
	cat_eval_free(ctx.eval);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct load_job job = { { .dir = fuzz_scratch(),
				  .cfg_name = strstr(text, "instructions") ? "bell.cfg" : "cat.cfg" },
				NULL };
	int status;

	free(fuzz_write("fuzz.cat", data, size));
	status = catch_die(load, &job);
	if (status == EXIT_INTERNAL)
		abort();
	if (!status) {
		run_tests(job.model);
		cat_free(job.model);
	}
	free(text);
	return 0;
}
