/*
 * fuzz_cache.c - libFuzzer target for the model cache's loader
 * (modelcache.c, modelimage.c): a damaged cache file must be a miss,
 * never a crash nor a model made of garbage.
 *
 * A cache file is only taken up by the binary that wrote it (its build
 * ID is in the key), so the file under test is this binary's own: the
 * kernel's model loaded, stored by model_cache_store() at start-up.  An
 * input is a list of edits of that file, so that mutations reach every
 * part of it, header, manifest, relocations and image, and small seeds
 * stand for whole files:
 *
 *	'w' OFFSET(4, little-endian) N(1) N bytes	overwrite at OFFSET mod length
 *	't' OFFSET(4)					truncate at OFFSET mod length
 *	'a' N(1) N bytes				append
 *
 * (any other byte ends the list).  Every byte of the file is under a
 * hash but the padding before the image, and the relocations are read
 * (and their hash checked) only when the image cannot be mapped where it
 * was made for; so the loader must refuse a file edited anywhere else,
 * and the model of a file it takes up must decide SB as the model loaded
 * from the files does.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "api/api.h"

static const struct model_spec spec = { .dir = FUZZ_MODEL_DIR, .cfg_name = "linux-kernel.cfg" };
static char *cache_dir, *cache_file;
static char *original;		/* the file as stored */
static size_t original_len;
static size_t loose_at, loose_end;	/* relocations and padding: see above */
static char *sb;		/* SB, as text */
static long sb_positive, sb_negative;	/* its verdict from the files */
static struct check_options opts;

/* The one file model_cache_store() wrote in the cache directory (allocated). */
static char *stored_file(void)
{
	DIR *d = opendir(cache_dir);
	struct dirent *e;
	char *path = NULL;

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "model-", 6)) {
			struct strbuf name = { 0 };

			sb_addf(&name, "%s/%s", cache_dir, e->d_name);
			path = name.buf;
		}
	if (d)
		closedir(d);
	if (!path)
		abort();
	return path;
}

/* SB's verdict by ctx's model, as (positive, negative). */
static void decide_sb(const struct lkmm *ctx, long *positive, long *negative)
{
	struct lkmm_result *r;

	if (lkmm_check_text(ctx, "SB.litmus", sb, &opts, &r))
		abort();
	*positive = r->outcomes.positive;
	*negative = r->outcomes.negative;
	lkmm_result_free(r);
}

/*
 * The relocations and padding: from the end of the manifest (the
 * header's fields say where) to the image, at a page boundary.  The header is read with
 * the same layout modelcache.c writes: its fields are at fixed offsets.
 */
static void find_loose_bytes(void)
{
	uint64_t manifest_len, image_at;
	uint32_t header_size;

	memcpy(&header_size, original + 12, 4);
	memcpy(&manifest_len, original + 48, 8);
	memcpy(&image_at, original + 64, 8);
	loose_at = header_size + manifest_len;
	loose_end = image_at;
	if (loose_at > loose_end || loose_end > original_len)
		abort();	/* the layout above is not modelcache.c's any more */
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct lkmm ctx;

	(void)argc;
	(void)argv;
	opts = fuzz_options();
	cache_dir = fuzz_path("cache");
	sb = fuzz_read(FUZZ_MODEL_DIR "/litmus-tests/SB+poonceonces.litmus", NULL);
	fuzz_open_model(&ctx, cache_dir);
	decide_sb(&ctx, &sb_positive, &sb_negative);
	lkmm_close(&ctx);
	cache_file = stored_file();
	original = fuzz_read(cache_file, &original_len);
	find_loose_bytes();
	if (!model_cache_load(&ctx.loaded, cache_dir, &spec))
		abort();	/* the file as stored must be taken up, or nothing is tested */
	lkmm_close(&ctx);
	return 0;
}

/* The file the edits in data make of the original; its length in *len. */
static char *apply_edits(const uint8_t *data, size_t size, size_t *len)
{
	char *file = xmalloc(original_len + 1);
	uint32_t at;

	memcpy(file, original, original_len);
	*len = original_len;
	while (size >= 2 && *len) {
		uint8_t op = data[0], n;

		if (op == 'a') {
			n = data[1] < size - 2 ? data[1] : size - 2;
			file = xrealloc(file, *len + n);
			memcpy(file + *len, data + 2, n);
			*len += n;
			data += 2 + n;
			size -= 2 + n;
			continue;
		}
		if ((op != 'w' && op != 't') || size < 5)
			break;
		memcpy(&at, data + 1, 4);
		at %= *len;
		if (op == 't') {
			*len = at;
			data += 5;
			size -= 5;
			continue;
		}
		if (size < 6)
			break;
		n = data[5] < size - 6 ? data[5] : size - 6;
		n = n < *len - at ? n : *len - at;
		memcpy(file + at, data + 6, n);
		data += 6 + n;
		size -= 6 + n;
	}
	return file;
}

/* Whether file differs from the original only in its relocations and padding. */
static bool may_load(const char *file, size_t len)
{
	return len == original_len && !memcmp(file, original, loose_at) &&
	       !memcmp(file + loose_end, original + loose_end, len - loose_end);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len;
	char *file = apply_edits(data, size, &len);
	struct lkmm ctx, zero;
	bool loaded;
	char *edited = fuzz_write("cache/edited", file, len);

	if (rename(edited, cache_file))	/* as model_cache_store() replaces it */
		abort();
	free(edited);
	memset(&ctx, 0, sizeof(ctx));
	memset(&zero, 0, sizeof(zero));
	loaded = model_cache_load(&ctx.loaded, cache_dir, &spec);
	if (loaded && !may_load(file, len))
		abort();
	if (loaded) {
		long positive, negative;

		ctx.eval = cat_eval_new(ctx.loaded.model);
		decide_sb(&ctx, &positive, &negative);
		if (positive != sb_positive || negative != sb_negative)
			abort();
		lkmm_close(&ctx);
	} else if (memcmp(&ctx, &zero, sizeof(ctx))) {
		abort();	/* a miss leaves the context as it was */
	}
	free(file);
	return 0;
}
