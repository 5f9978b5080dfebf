/*
 * modeldir.c - locate the kernel's memory model on disk.
 */
#include "modeldir.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

/*
 * Relative to the directory of the binary: the setup step's tree (for
 * bin/lkmm), and the model `make install` copies (for PREFIX/bin/lkmm).
 */
#define UNPACKED_MODEL "../build/kernel-model/tools/memory-model"
#define INSTALLED_MODEL "../share/lkmm/model"

const char model_dir_help[] =
	"The model directory (holding linux-kernel.cfg, .def, .bell, .cat and\n"
	"lock.cat) is the first of:\n"
	"  1. -I DIR or --model DIR;\n"
	"  2. $LKMM_MODEL_DIR;\n"
	"  3. the current directory, if it holds linux-kernel.cfg (herd7's way\n"
	"     of running from a kernel tree's tools/memory-model);\n"
	"  4. build/kernel-model/tools/memory-model beside bin/, unpacked from\n"
	"     Debian's linux-source-6.12 by scripts/setup.sh;\n"
	"  5. share/lkmm/model beside the installed bin/ (make install).\n";

static bool has_file(const char *dir, const char *name)
{
	struct strbuf path = { 0 };
	bool found;

	sb_addf(&path, "%s/%s", dir, name);
	found = access(path.buf, R_OK) == 0;
	sb_free(&path);
	return found;
}

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
		return has_file(env, cfg_name) ? xstrdup(env) : NULL;
	if (has_file(".", cfg_name))
		return xstrdup(".");
	for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
		char *dir = beside_binary(beside[i]);

		if (dir && has_file(dir, cfg_name))
			return dir;
		free(dir);
	}
	return NULL;
}

char *model_dir_find(const char *explicit, const char *cfg_name)
{
	const char *env = getenv("LKMM_MODEL_DIR");
	char *dir;

	if (explicit) {
		if (!has_file(explicit, cfg_name))
			die(EXIT_BAD_INPUT, "no %s in model directory %s (given by -I/--model)",
			    cfg_name, explicit);
		return xstrdup(explicit);
	}
	if (env && *env && !has_file(env, cfg_name))
		die(EXIT_BAD_INPUT, "no %s in model directory %s (given by $LKMM_MODEL_DIR)",
		    cfg_name, env);
	dir = model_dir_lookup(cfg_name);
	if (dir)
		return dir;
	die(EXIT_BAD_INPUT,
	    "cannot find the memory model (%s).\n"
	    "Run scripts/setup.sh to unpack it from Debian's linux-source-6.12,\n"
	    "or point -I DIR, --model DIR or $LKMM_MODEL_DIR at a kernel tree's\n"
	    "tools/memory-model.", cfg_name);
}
