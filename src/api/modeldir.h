/*
 * modeldir.h - where the model files (linux-kernel.cfg and friends) are.
 */
#ifndef LKMM_MODELDIR_H
#define LKMM_MODELDIR_H

/*
 * The model directory, looked up in this order: `explicit` (-I/--model),
 * $LKMM_MODEL_DIR, the current directory when it holds `cfg_name`, the
 * tree unpacked by scripts/setup.sh beside the binary, then the model
 * installed beside it.  Dies with a message saying how to get a model
 * when none is found.
 */
char *model_dir_find(const char *explicit, const char *cfg_name);

/* The same without `explicit`, and NULL rather than an error. */
char *model_dir_lookup(const char *cfg_name);

/* The help text's description of that order. */
extern const char model_dir_help[];

#endif
