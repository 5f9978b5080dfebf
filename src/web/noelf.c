/*
 * noelf.c - what WebAssembly lacks of the C library the checker is built
 * against: emscripten's libc declares dl_iterate_phdr() but has none.
 * The model cache asks it for the program's build ID (modelcache.c);
 * with no program headers there is no build ID, and without one lkmm
 * uses no cache, which the playground never asks for anyway.
 */
#ifdef __EMSCRIPTEN__
#define _GNU_SOURCE
#include <link.h>

int dl_iterate_phdr(int (*callback)(struct dl_phdr_info *info, size_t size, void *arg), void *arg)
{
	(void)callback;
	(void)arg;
	return 0;
}
#else
typedef int noelf_unused;	/* an empty file is not ISO C */
#endif
