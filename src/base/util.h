/*
 * util.h - allocation, diagnostics and growable buffers shared by every
 * stage of the checker.
 */
#ifndef LKMM_UTIL_H
#define LKMM_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Exit statuses, kept distinct so scripts can tell bad input from limits. */
enum {
	EXIT_BAD_INPUT = 2,	/* malformed test, model or command line */
	EXIT_LIMIT = 3,		/* a resource limit (time, executions) was hit */
	EXIT_INTERNAL = 4,	/* a bug of lkmm's: worth a report */
	EXIT_VIOLATION = 5,	/* lkmm run: a kernel reached a state the model forbids */
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
/*
 * Room for item `count` of an arena array built only by this function
 * (its capacity is then `count` rounded up to a power of two): the array,
 * moved to twice its size when full, so n pushes copy O(n) bytes in all.
 * The new slot is zeroed.
 */
void *arena_extend(struct arena *a, void *array, size_t count, size_t item_size);
char *arena_strndup(struct arena *a, const char *s, size_t n);
void arena_free(struct arena *a);
/* Append item to `array`, an arena-allocated array of `count` items. */
#define arena_push(a, array, count, item)				\
	((array) = arena_extend((a), (array), (count), sizeof(*(array))),	\
	 (array)[(count)++] = (item))

/* A position in an input file, for FILE:LINE:COL diagnostics. */
struct srcpos {
	const char *file;
	int line;
	int col;
};

/*
 * Where die_at() and die() jump instead of exiting, when set, with the
 * exit status as setjmp's value: check.c goes on with the next test, the
 * fuzz targets (tests/src/fuzz_*.c) with the next input.  One per
 * thread, so that threads checking different tests do not share it.
 */
extern _Thread_local jmp_buf *die_jump;

/*
 * Call fn(arg); 0 when it returns, or the status of a die_at() or die()
 * inside it, which then returns here.  What fn allocated must be
 * reachable from arg, for the caller to free either way.
 */
int catch_die(void (*fn)(void *arg), void *arg);

/*
 * Pass on a status catch_die() caught, its message already printed: to
 * the catch_die() around that one, or exit with it.
 */
_Noreturn void die_again(int status);

struct strbuf;

/* Die with msg (freed), a whole message another thread's die() made. */
_Noreturn void die_with_message(int status, struct strbuf *msg);

/*
 * Where die_at() and die() write their message instead of standard error,
 * when set: a -j worker keeps each test's messages with its result, for
 * them to come out in the order the tests were given.  One per thread.
 */
extern _Thread_local struct strbuf *die_output;

/*
 * Where die_at() and die() also keep the first error while it is set:
 * its place and message apart, for the library's callers (include/lkmm.h).
 * One per thread.
 */
struct die_record {
	int status;
	char *file;		/* NULL when the error has no place */
	int line, col;
	char *message;		/* without the place: "expression expected"; NULL: out of memory */
};
extern _Thread_local struct die_record *die_record;

/* Print "FILE:LINE:COL: error: ..." and exit with EXIT_BAD_INPUT. */
_Noreturn void die_at(struct srcpos pos, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "FILE:LINE:COL: internal error: ...", exit EXIT_INTERNAL: a bug of ours. */
_Noreturn void die_internal_at(struct srcpos pos, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "FILE:LINE:COL: warning: ...", where die_at() would write, and go on. */
void warn_at(struct srcpos pos, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print "lkmm: ..." and exit with the given status. */
_Noreturn void die(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Seconds on a clock that only goes forward, for durations. */
double monotonic_seconds(void);

/*
 * The directory of the running binary (allocated): what lkmm finds
 * beside itself (the model, lkmm-code, the kernel half).  NULL with errno
 * set when it cannot be known.
 */
char *binary_dir(void);

/* Whether the file dir/name can be read. */
bool readable_in(const char *dir, const char *name);

/* Read a whole file; NULL with errno set when it cannot be read. */
char *read_file(const char *path, size_t *len);
/* Write text to path, replacing it; a failure ends the test (die()) naming the file. */
void write_file(const char *path, const char *text);
/* dir and the directories above it, as mkdir -p; false with errno set if one cannot be made. */
bool make_dirs(const char *dir, mode_t mode);

/*
 * Room for one more item in an array of len items of size bytes that has
 * room for *cap: the array, moved if it had to grow (to twice its room).
 */
void *grow_array(void *items, int len, int *cap, size_t size);

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
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* n bytes of data, which may hold NULs. */
void sb_add(struct strbuf *sb, const void *data, size_t n);
/*
 * A string, a number in decimal: without printf's parsing, for what is
 * printed once per final state (a test may have 2^18).
 */
void sb_adds(struct strbuf *sb, const char *s);
void sb_add_int(struct strbuf *sb, long long n);
void sb_free(struct strbuf *sb);

/*
 * A stable sort whose comparison gets ctx, as qsort() cannot pass one
 * without state shared between threads.
 */
void sort_with(void *base, size_t n, size_t size,
	       int (*cmp)(const void *, const void *, void *), void *ctx);

#endif
