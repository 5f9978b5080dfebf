/*
 * modeldir.h - where the model files (linux-kernel.cfg and friends) are.
 */
#ifndef LKMM_MODELDIR_H
#define LKMM_MODELDIR_H

/*
 * The model directory: $LKMM_MODEL_DIR, the current directory when it
 * holds `cfg_name`, the tree unpacked by scripts/setup.sh beside the
 * binary, then the model installed beside it; NULL when none holds it.
 */
char *model_dir_lookup(const char *cfg_name);

#endif
