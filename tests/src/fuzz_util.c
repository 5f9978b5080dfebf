/*
 * fuzz_util.c - the scratch directory, the model and the limits the fuzz
 * targets share (fuzz.h).
 */
#include "fuzz.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *scratch;

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_scratch(void)
{
	nftw(scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	free(scratch);
}

const char *fuzz_scratch(void)
{
	const char *tmp = getenv("TMPDIR");
	struct strbuf dir = { 0 };

	if (scratch)
		return scratch;
	sb_addf(&dir, "%s/lkmm-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir.buf)) {
		perror(dir.buf);
		abort();
	}
	scratch = dir.buf;
	atexit(remove_scratch);
	return scratch;
}

char *fuzz_path(const char *name)
{
	struct strbuf path = { 0 };

	sb_addf(&path, "%s/%s", fuzz_scratch(), name);
	return path.buf;
}

char *fuzz_write(const char *name, const void *data, size_t size)
{
	char *path = fuzz_path(name);
	FILE *f = fopen(path, "w");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
		perror(path);
		abort();
	}
	return path;
}

char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = xmalloc(size + 1);

	memcpy(text, data, size);
	text[size] = '\0';
	return text;
}

char *fuzz_read(const char *path, size_t *len)
{
	char *text = read_file(path, len);

	if (!text) {
		perror(path);
		abort();
	}
	return text;
}

void fuzz_open_model(struct lkmm *ctx, const char *cache_dir)
{
	const struct model_spec spec = { .dir = FUZZ_MODEL_DIR, .cfg_name = "linux-kernel.cfg" };

	if (lkmm_open(ctx, &spec, cache_dir)) {
		fprintf(stderr, "fuzz: cannot load the model in %s\n", FUZZ_MODEL_DIR);
		abort();
	}
}

struct check_options fuzz_options(void)
{
	struct check_options o = { .model = { .dir = FUZZ_MODEL_DIR, .cfg_name = "linux-kernel.cfg" } };

	o.timeout = 1;
	o.max_executions = 2000;
	o.limits.max_traces = 256;
	o.limits.max_values = 64;
	return o;
}
