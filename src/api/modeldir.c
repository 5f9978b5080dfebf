/*
 * modeldir.c - locate the kernel's memory model on disk.
 */
#include "modeldir.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

/* Relative to the directory of the binary (bin/): the setup step's tree. */
#define UNPACKED_MODEL "../build/kernel-model/tools/memory-model"

const char model_dir_help[] =
	"The model directory (holding linux-kernel.cfg, .def, .bell, .cat and\n"
	"lock.cat) is the first of:\n"
	"  1. -I DIR or --model DIR;\n"
	"  2. $LKMM_MODEL_DIR;\n"
	"  3. the current directory, if it holds linux-kernel.cfg (herd7's way\n"
	"     of running from a kernel tree's tools/memory-model);\n"
	"  4. build/kernel-model/tools/memory-model beside bin/, unpacked from\n"
	"     Debian's linux-source-6.12 by scripts/setup.sh.\n";

static bool has_file(const char *dir, const char *name)
{
	struct strbuf path = { 0 };
	bool found;

	sb_addf(&path, "%s/%s", dir, name);
	found = access(path.buf, R_OK) == 0;
	sb_free(&path);
	return found;
}

static char *unpacked_model_dir(void)
{
	char exe[PATH_MAX], *slash, *dir;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct strbuf path = { 0 };

	if (n < 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	sb_addf(&path, "%s/%s", exe, UNPACKED_MODEL);
	dir = realpath(path.buf, NULL);
	sb_free(&path);
	return dir;
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
	if (env && *env) {
		if (!has_file(env, cfg_name))
			die(EXIT_BAD_INPUT, "no %s in model directory %s (given by $LKMM_MODEL_DIR)",
			    cfg_name, env);
		return xstrdup(env);
	}
	if (has_file(".", cfg_name))
		return xstrdup(".");
	dir = unpacked_model_dir();
	if (dir && has_file(dir, cfg_name))
		return dir;
	free(dir);
	die(EXIT_BAD_INPUT,
	    "cannot find the memory model (%s).\n"
	    "Run scripts/setup.sh to unpack it from Debian's linux-source-6.12,\n"
	    "or point -I DIR, --model DIR or $LKMM_MODEL_DIR at a kernel tree's\n"
	    "tools/memory-model.", cfg_name);
}
