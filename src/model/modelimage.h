/*
 * modelimage.h - a loaded model and its macros as one relocatable block
 * of memory, the payload of the model cache (modelcache.c).
 */
#ifndef LKMM_MODELIMAGE_H
#define LKMM_MODELIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

struct model_image {
	char *bytes;		/* the objects, the root first */
	size_t len;
	uint32_t *relocs;	/* where the pointers are: offsets into bytes */
	size_t nrelocs;
};

/*
 * The image of lm's model and macros, as lkmm_open() loaded them (no
 * test decided yet).  False, with nothing to free, if the model does not
 * fit the image's format (more than 4 GiB, or predefined names not
 * first).
 */
bool image_write(const struct loaded_model *lm, struct model_image *out);
void image_free(struct model_image *im);

/*
 * Move the pointers of the image at bytes (len of them) from an image at
 * address `from` to one at address `to`: each of the nrelocs offsets
 * (read from relocs, which need no alignment) is where a pointer is.
 * From 0, the pointers are offsets, as image_write() leaves them.  False
 * if an offset or a pointer falls outside the image.
 */
bool image_rebase(char *bytes, size_t len, uintptr_t from, uintptr_t to, const void *relocs,
		  size_t nrelocs);

/*
 * Take up the model and macros of the image at bytes (len of them,
 * aligned for any object, its pointers right for where it is) into lm,
 * model_dir being where they were read from.  The objects stay in the
 * image, which must outlive the model: the caller hands it to
 * lm->image, for lkmm_close().  False, with nothing made, when the
 * image does not fit this binary's predefined names.
 */
bool image_read(char *bytes, size_t len, const char *model_dir, struct loaded_model *lm);

#endif
