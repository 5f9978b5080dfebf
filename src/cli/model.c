/*
 * model.c - which model the command line reads: -I/--model, else where
 * the library looks (lkmm_model_find()), and what to do when none is
 * there.
 */
#include <stdlib.h>

#include "cli.h"

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

char *model_dir_find(const char *explicit, const char *cfg_name)
{
	const char *env = getenv("LKMM_MODEL_DIR");
	char *dir;

	if (explicit) {
		if (!readable_in(explicit, cfg_name))
			die(EXIT_BAD_INPUT, "no %s in model directory %s (given by -I/--model)",
			    cfg_name, explicit);
		return xstrdup(explicit);
	}
	/* A wrong $LKMM_MODEL_DIR is named, rather than passed over. */
	if (env && *env && !readable_in(env, cfg_name))
		die(EXIT_BAD_INPUT, "no %s in model directory %s (given by $LKMM_MODEL_DIR)",
		    cfg_name, env);
	dir = lkmm_model_find(cfg_name);
	if (dir)
		return dir;
	die(EXIT_BAD_INPUT,
	    "cannot find the memory model (%s).\n"
	    "Run scripts/setup.sh to unpack it from Debian's linux-source-6.12,\n"
	    "or point -I DIR, --model DIR or $LKMM_MODEL_DIR at a kernel tree's\n"
	    "tools/memory-model.", cfg_name);
}
