/*
 * modelcache.h - the loaded model kept on disk between runs, so that a
 * run reads and checks the model's files but does not parse them.
 */
#ifndef LKMM_MODELCACHE_H
#define LKMM_MODELCACHE_H

#include <stdbool.h>

#include "lkmm.h"

/*
 * The cache's directory: $LKMM_CACHE_DIR, else $XDG_CACHE_HOME/lkmm,
 * else $HOME/.cache/lkmm (allocated); NULL when none of them is set.
 */
char *model_cache_dir(void);

/*
 * Fill ctx (zeroed) from the cache in cache_dir, if it holds the model
 * spec loads to now: written by this very binary, for this model
 * directory, cfg and variants, from files whose contents have not
 * changed since.  False, with ctx untouched, in every other case: a
 * missing, stale, truncated or foreign cache file is only a miss.
 */
bool model_cache_load(struct lkmm *ctx, const char *cache_dir, const struct model_spec *spec);

/*
 * Save ctx, just loaded from spec (macros_text being the macros file as
 * read), in cache_dir, created if need be.  Atomic: the
 * file is written aside, then renamed into place.  A directory that
 * cannot be made or written leaves the cache as it was, silently.
 */
void model_cache_store(const struct lkmm *ctx, const char *cache_dir,
		       const struct model_spec *spec, const char *macros_text);

#endif
