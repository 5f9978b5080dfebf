/*
 * util.h - allocation, diagnostics and growable buffers shared by every
 * stage of the checker.
 */
#ifndef LKMM_UTIL_H
#define LKMM_UTIL_H

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>

/* Exit statuses, kept distinct so scripts can tell bad input from limits. */
enum {
	EXIT_BAD_INPUT = 2,	/* malformed test, model or command line */
	EXIT_LIMIT = 3,		/* a resource limit (time, executions) was hit */
};

/* Allocation that never returns NULL: running out of memory is fatal. */
void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/*
 * An arena: many small allocations freed together, for trees that share
 * subtrees (macro expansion reuses argument trees) and so have no single
 * owner per node.
 */
struct arena {
	struct arena_chunk *chunks;
};
void *arena_alloc(struct arena *a, size_t size);	/* zeroed */
void *arena_grow(struct arena *a, void *old, size_t old_size, size_t new_size);
char *arena_strndup(struct arena *a, const char *s, size_t n);
void arena_free(struct arena *a);
/* Append item to `array`, an arena-allocated array of `count` items. */
#define arena_push(a, array, count, item)					\
	((array) = arena_grow((a), (array), (count) * sizeof(*(array)),	\
			      ((count) + 1) * sizeof(*(array))),		\
	 (array)[(count)++] = (item))

/* A position in an input file, for FILE:LINE:COL diagnostics. */
struct srcpos {
	const char *file;
	int line;
	int col;
};

/*
 * Where die_at() and die() jump instead of exiting, when set: the fuzz
 * target (tests/src/fuzz_parse.c) goes on with the next input.
 */
extern jmp_buf *die_jump;

/* Print "FILE:LINE:COL: error: ..." and exit with EXIT_BAD_INPUT. */
_Noreturn void die_at(struct srcpos pos, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print "lkmm: ..." and exit with the given status. */
_Noreturn void die(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Read a whole file; NULL with errno set when it cannot be read. */
char *read_file(const char *path, size_t *len);

/* A growable array of pointer-sized things. */
struct vec {
	void **items;
	int len;
	int cap;
};
void vec_push(struct vec *v, void *item);
void vec_free(struct vec *v);

/* A growable string. */
struct strbuf {
	char *buf;
	size_t len;
	size_t cap;
};
void sb_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sb_free(struct strbuf *sb);

#endif
