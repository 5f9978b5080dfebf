/*
 * modeldir.c - locate the kernel's memory model on disk.
 */
#include "modeldir.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"

/*
 * Relative to the directory of the binary: the setup step's tree (for
 * bin/lkmm), and the model `make install` copies (for PREFIX/bin/lkmm).
 */
#define UNPACKED_MODEL "../build/kernel-model/tools/memory-model"
#define INSTALLED_MODEL "../share/lkmm/model"

/* The directory at `relative` to the binary's own, if there is one. */
static char *beside_binary(const char *relative)
{
	char *self = binary_dir(), *dir;
	struct strbuf path = { 0 };

	if (!self)
		return NULL;
	sb_addf(&path, "%s/%s", self, relative);
	dir = realpath(path.buf, NULL);
	sb_free(&path);
	free(self);
	return dir;
}

char *model_dir_lookup(const char *cfg_name)
{
	const char *env = getenv("LKMM_MODEL_DIR");
	const char *beside[] = { UNPACKED_MODEL, INSTALLED_MODEL };

	if (env && *env)
		return readable_in(env, cfg_name) ? xstrdup(env) : NULL;
	if (readable_in(".", cfg_name))
		return xstrdup(".");
	for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
		char *dir = beside_binary(beside[i]);

		if (dir && readable_in(dir, cfg_name))
			return dir;
		free(dir);
	}
	return NULL;
}
