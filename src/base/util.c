/*
 * util.c - allocation, diagnostics and growable buffers.
 */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

_Thread_local jmp_buf *die_jump;

/*
 * A limit like any other: the library's caller gets EXIT_LIMIT back (no
 * message is formatted: that would allocate).
 */
static _Noreturn void out_of_memory(void)
{
	if (die_record && !die_record->status)
		die_record->status = EXIT_LIMIT;	/* message NULL: out of memory */
	if (!die_output)
		fputs("lkmm: out of memory\n", stderr);
	die_again(EXIT_LIMIT);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		out_of_memory();
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);

	if (!p)
		out_of_memory();
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		out_of_memory();
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

_Thread_local struct strbuf *die_output;

/* msg (freed) on standard error, or into die_output. */
static void put_message(struct strbuf *msg)
{
	if (die_output) {
		sb_addf(die_output, "%s", msg->buf ? msg->buf : "");
	} else {
		fflush(stdout);
		fputs(msg->buf ? msg->buf : "", stderr);
	}
	sb_free(msg);
}

/* The message, after "FILE:LINE:COL: what: " (pos given) or "lkmm: ". */
static void format_message(struct strbuf *msg, const struct srcpos *pos, const char *what,
			   const char *fmt, va_list ap)
{
	if (pos)
		sb_addf(msg, "%s:%d:%d: %s: ", pos->file, pos->line, pos->col, what);
	else
		sb_addf(msg, "lkmm: ");
	sb_vaddf(msg, fmt, ap);
	sb_addf(msg, "\n");
}

_Thread_local struct die_record *die_record;

/* The first error into die_record, when it is set. */
static void record(int status, const struct srcpos *pos, const char *fmt, va_list ap)
{
	struct strbuf msg = { 0 };

	if (!die_record || die_record->status)
		return;
	sb_vaddf(&msg, fmt, ap);
	die_record->status = status;
	die_record->message = msg.buf ? msg.buf : xstrdup("");
	if (pos && pos->file) {
		die_record->file = xstrdup(pos->file);
		die_record->line = pos->line;
		die_record->col = pos->col;
	}
}

/* The message where put_message() puts it; then exit (or jump, see die_jump). */
static _Noreturn void vdie(int status, const struct srcpos *pos, const char *what,
			   const char *fmt, va_list ap)
{
	struct strbuf msg = { 0 };
	va_list copy;

	va_copy(copy, ap);
	record(status, pos, fmt, copy);
	va_end(copy);
	format_message(&msg, pos, what, fmt, ap);
	die_with_message(status, &msg);
}

void warn_at(struct srcpos pos, const char *fmt, ...)
{
	struct strbuf msg = { 0 };
	va_list ap;

	va_start(ap, fmt);
	format_message(&msg, &pos, "warning", fmt, ap);
	va_end(ap);
	put_message(&msg);
}

void die_with_message(int status, struct strbuf *msg)
{
	put_message(msg);
	die_again(status);
}

void die_again(int status)
{
	if (die_jump)
		longjmp(*die_jump, status);
	exit(status);
}

int catch_die(void (*fn)(void *arg), void *arg)
{
	jmp_buf *outer = die_jump;
	jmp_buf here;
	volatile int status;

	die_jump = &here;
	status = setjmp(here);
	if (!status)
		fn(arg);
	die_jump = outer;
	return status;
}

void die_at(struct srcpos pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(EXIT_BAD_INPUT, &pos, "error", fmt, ap);
}

void die_internal_at(struct srcpos pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(EXIT_INTERNAL, &pos, "internal error", fmt, ap);
}

void die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(status, NULL, NULL, fmt, ap);
}

void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) == EOF || fclose(f))
		die(EXIT_BAD_INPUT, "cannot write %s: %s", path, strerror(errno));
}

bool make_dirs(const char *dir, mode_t mode)
{
	char *path = xstrdup(dir);
	bool made = true;

	/* Each directory above dir, at each slash but a leading one. */
	for (char *p = path + (*path == '/'); made && (p = strchr(p, '/')); p++) {
		*p = '\0';
		made = mkdir(path, mode) == 0 || errno == EEXIST;
		*p = '/';
	}
	if (made)
		made = mkdir(path, mode) == 0 || errno == EEXIST;
	free(path);
	return made;
}

char *binary_dir(void)
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash) {
		errno = ENOENT;
		return NULL;
	}
	return xstrndup(exe, slash - exe);
}

bool readable_in(const char *dir, const char *name)
{
	struct strbuf path = { 0 };
	bool found;

	sb_addf(&path, "%s/%s", dir, name);
	found = access(path.buf, R_OK) == 0;
	sb_free(&path);
	return found;
}

char *read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	size_t cap, got = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	/* The size, and a page to spare: one read fills it, the next finds the end. */
	cap = (fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 0) + 4096;
	buf = xmalloc(cap + 1);
	for (;;) {
		ssize_t n = read(fd, buf + got, cap - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;

			close(fd);
			free(buf);
			errno = saved;
			return NULL;
		}
		if (n == 0)
			break;
		got += n;
		if (got == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
	}
	close(fd);
	buf[got] = '\0';
	if (len)
		*len = got;
	return buf;
}

void *grow_array(void *items, int len, int *cap, size_t size)
{
	if (len < *cap)
		return items;
	*cap = *cap ? *cap * 2 : 8;
	return xrealloc(items, *cap * size);
}

void vec_push(struct vec *v, void *item)
{
	v->items = grow_array(v->items, v->len, &v->cap, sizeof(*v->items));
	v->items[v->len++] = item;
}

void vec_free(struct vec *v)
{
	free(v->items);
	v->items = NULL;
	v->len = v->cap = 0;
}

/* Room for n more bytes and a NUL. */
/* Room for n more bytes and the '\0': twice what is needed, 256 bytes at least (a report's texts grow piece by piece). */
static void sb_grow(struct strbuf *sb, size_t n)
{
	if (sb->len + n + 1 > sb->cap) {
		sb->cap = (sb->len + n + 1) * 2;
		if (sb->cap < 256)
			sb->cap = 256;
		sb->buf = xrealloc(sb->buf, sb->cap);
	}
}

void sb_add(struct strbuf *sb, const void *data, size_t n)
{
	sb_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

/* Whether fmt's conversions are all %s, %d, %ld, %lld, %c or %%, with no flag, width or precision. */
static bool plain_format(const char *fmt)
{
	for (fmt = strchr(fmt, '%'); fmt; fmt = strchr(fmt + 1, '%')) {
		fmt++;
		if (fmt[0] == 'l')
			fmt += fmt[1] == 'l' ? 2 : 1;
		if (!*fmt || !strchr(fmt[-1] == 'l' ? "d" : "sdc%", *fmt))
			return false;
	}
	return true;
}

/* A plain format's text, without vsnprintf() (about a thousand instructions a call). */
static void add_plain(struct strbuf *sb, const char *fmt, va_list ap)
{
	while (*fmt) {
		size_t n = strcspn(fmt, "%");
		const char *str;
		char c;

		sb_add(sb, fmt, n);
		fmt += n;
		if (!*fmt)
			break;
		switch (fmt[1]) {
		case 's': str = va_arg(ap, const char *); sb_adds(sb, str ? str : "(null)"); break;
		case 'd': sb_add_int(sb, va_arg(ap, int)); break;
		case 'c': c = (char)va_arg(ap, int); sb_add(sb, &c, 1); break;
		case '%': sb_add(sb, "%", 1); break;
		default:	/* l or ll */
			if (fmt[2] == 'l') {
				sb_add_int(sb, va_arg(ap, long long));
				fmt++;
			} else {
				sb_add_int(sb, va_arg(ap, long));
			}
			fmt++;
		}
		fmt += 2;
	}
}

/*
 * Formatted straight into the room left, and again only when it did not
 * fit: an empty buffer gets room first, as most of what is formatted fits.
 */
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	size_t room;
	va_list again;
	int n;

	if (plain_format(fmt)) {
		add_plain(sb, fmt, ap);
		return;
	}

	if (sb->cap - sb->len < 64)
		sb_grow(sb, 64);
	room = sb->cap - sb->len;
	va_copy(again, ap);
	n = vsnprintf(sb->buf + sb->len, room, fmt, ap);
	if ((size_t)n >= room) {
		sb_grow(sb, n);
		vsnprintf(sb->buf + sb->len, n + 1, fmt, again);
	}
	va_end(again);
	sb->len += n;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_add_int(struct strbuf *sb, long long n)
{
	char digits[24], *p = digits + sizeof(digits);
	unsigned long long u = n < 0 ? -(unsigned long long)n : (unsigned long long)n;

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (n < 0)
		*--p = '-';
	sb_add(sb, p, (size_t)(digits + sizeof(digits) - p));
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	max_align_t data[];
};

void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_chunk *c = a->chunks;
	size_t align = sizeof(max_align_t);
	void *p;

	size = (size + align - 1) / align * align;
	if (!c || c->used + size > c->size) {
		size_t chunk_size = size > 65536 ? size : 65536;

		c = xmalloc(sizeof(*c) + chunk_size);
		c->next = a->chunks;
		c->used = 0;
		c->size = chunk_size;
		a->chunks = c;
	}
	p = (char *)c->data + c->used;
	c->used += size;
	memset(p, 0, size);
	return p;
}

void *arena_extend(struct arena *a, void *array, size_t count, size_t item_size)
{
	void *p;

	if (count & (count - 1))
		return array;	/* not a power of two: there is room */
	p = arena_alloc(a, (count ? 2 * count : 1) * item_size);
	if (count)
		memcpy(p, array, count * item_size);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	return p;
}

void arena_free(struct arena *a)
{
	while (a->chunks) {
		struct arena_chunk *next = a->chunks->next;

		free(a->chunks);
		a->chunks = next;
	}
}

/* Merge sort of runs [lo, mid) and [mid, hi) of base through tmp. */
static void merge_runs(char *base, char *tmp, size_t lo, size_t mid, size_t hi, size_t size,
		       int (*cmp)(const void *, const void *, void *), void *ctx)
{
	size_t i = lo, j = mid, k = lo;

	while (i < mid || j < hi) {
		if (j >= hi || (i < mid && cmp(base + i * size, base + j * size, ctx) <= 0))
			memcpy(tmp + k++ * size, base + i++ * size, size);
		else
			memcpy(tmp + k++ * size, base + j++ * size, size);
	}
	memcpy(base + lo * size, tmp + lo * size, (hi - lo) * size);
}

void sort_with(void *base, size_t n, size_t size,
	       int (*cmp)(const void *, const void *, void *), void *ctx)
{
	char *tmp;
	size_t width, lo;

	if (n < 2)
		return;
	tmp = xmalloc(n * size);
	for (width = 1; width < n; width *= 2) {
		for (lo = 0; lo + width < n; lo += 2 * width) {
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;

			merge_runs(base, tmp, lo, lo + width, hi, size, cmp, ctx);
		}
	}
	free(tmp);
}

double monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
