/*
 * digest.c - the test's Hash= line, as herdtools7 computes it.
 *
 * herdtools' log tools (mcompare7 and friends) identify a test by this
 * digest and refuse to compare logs whose digests differ, so ours must be
 * bit for bit theirs.  herd7 does not hash the file: it hashes four texts it
 * prints from the parsed test, and an MD5 of the four MD5s is the Hash:
 *
 *   init      the initial state, sorted (registers by process then name,
 *             then globals by name), "type loc=value" joined by "; ";
 *   code      each process as "P0(int* x, int* y) {\n<body>\n}\n", where the
 *             body is the raw text between the braces and each parameter's
 *             type loses one '*' then gets one back with no space before it;
 *             the processes are cells " <text> " joined by "|", then ";\n";
 *   observed  the locations of the "locations [...]" clause and of the
 *             final condition, sorted and unique as above, joined by "; ";
 *   info      the memory-type metadata keys, which a C test of the kernel's
 *             never has: an empty text that is not hashed at all.
 *
 * Values print as written ("0x10" stays so), an address as the name.
 * The MD5 is RFC 1321, here because the checker depends on libc alone.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "litmus.h"

struct md5 {
	uint32_t state[4];
	uint64_t length;		/* bytes hashed so far */
	unsigned char block[64];
};

static const uint32_t md5_sine[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a,
	0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
	0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
	0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
	0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
	0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
	0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
	0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
	0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

static const unsigned char md5_shift[4][4] = {
	{ 7, 12, 17, 22 }, { 5, 9, 14, 20 }, { 4, 11, 16, 23 }, { 6, 10, 15, 21 },
};

static void md5_init(struct md5 *m)
{
	m->state[0] = 0x67452301;
	m->state[1] = 0xefcdab89;
	m->state[2] = 0x98badcfe;
	m->state[3] = 0x10325476;
	m->length = 0;
}

/* One step: a takes the round's function f of b, c, d, the word x and the sine t. */
static inline uint32_t md5_step(uint32_t a, uint32_t b, uint32_t f, uint32_t x, uint32_t t, int s)
{
	a += f + x + t;
	return b + (a << s | a >> (32 - s));
}

/*
 * The four rounds of 16 steps, each its own loop, unrolled: the words
 * (word[(k0 + dk * i) % 16]), sines and shifts are constants in each step.
 */
#define MD5_ROUND(r, f, k0, dk)								\
	_Pragma("GCC unroll 16")							\
	for (i = 0; i < 16; i++) {							\
		uint32_t next = md5_step(a, b, (f), word[((k0) + (dk) * i) % 16],	\
					 md5_sine[16 * (r) + i], md5_shift[r][i % 4]);	\
		a = d;									\
		d = c;									\
		c = b;									\
		b = next;								\
	}

static void md5_block(struct md5 *m, const unsigned char *block)
{
	uint32_t word[16], a = m->state[0], b = m->state[1], c = m->state[2], d = m->state[3];
	int i;

	for (i = 0; i < 16; i++)
		word[i] = (uint32_t)block[4 * i] | (uint32_t)block[4 * i + 1] << 8 |
			  (uint32_t)block[4 * i + 2] << 16 | (uint32_t)block[4 * i + 3] << 24;
	MD5_ROUND(0, d ^ (b & (c ^ d)), 0, 1)
	MD5_ROUND(1, c ^ (d & (b ^ c)), 1, 5)
	MD5_ROUND(2, b ^ c ^ d, 5, 3)
	MD5_ROUND(3, c ^ (b | ~d), 0, 7)
	m->state[0] += a;
	m->state[1] += b;
	m->state[2] += c;
	m->state[3] += d;
}

/* Whole blocks straight from the data; a partial one gathered in m->block. */
static void md5_update(struct md5 *m, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t used = m->length % 64;

	m->length += len;
	if (used) {
		size_t n = len < 64 - used ? len : 64 - used;

		memcpy(m->block + used, p, n);
		p += n;
		len -= n;
		if (used + n < 64)
			return;
		md5_block(m, m->block);
	}
	for (; len >= 64; p += 64, len -= 64)
		md5_block(m, p);
	memcpy(m->block, p, len);
}

static void md5_final(struct md5 *m, unsigned char digest[16])
{
	static const unsigned char pad[64] = { 0x80 };
	uint64_t bits = m->length * 8;
	unsigned char length[8];
	int i;

	md5_update(m, pad, (119 - m->length % 64) % 64 + 1);	/* to 56 bytes past a block */
	for (i = 0; i < 8; i++)
		length[i] = (unsigned char)(bits >> (8 * i));
	md5_update(m, length, 8);
	for (i = 0; i < 16; i++)
		digest[i] = (unsigned char)(m->state[i / 4] >> (8 * (i % 4)));
}

/* Feeds the MD5 of TEXT into the outer digest, as herd7 concatenates them. */
static void add_part_digest(struct md5 *outer, const struct strbuf *text)
{
	unsigned char digest[16];
	struct md5 m;

	md5_init(&m);
	md5_update(&m, text->buf ? text->buf : "", text->len);
	md5_final(&m, digest);
	md5_update(outer, digest, sizeof(digest));
}

/* herd7's location order: registers (by process, then name) before globals. */
static int location_order(int proc_a, const char *name_a, int proc_b, const char *name_b)
{
	if ((proc_a < 0) != (proc_b < 0))
		return proc_a < 0 ? 1 : -1;
	if (proc_a != proc_b)
		return proc_a < proc_b ? -1 : 1;
	return strcmp(name_a, name_b);
}

static void add_location(struct strbuf *sb, int proc, const char *name)
{
	if (proc >= 0) {
		sb_add_int(sb, proc);
		sb_adds(sb, ":");
	}
	sb_adds(sb, name);
}

static int init_order(const void *a, const void *b)
{
	const struct init_item *x = *(struct init_item *const *)a;
	const struct init_item *y = *(struct init_item *const *)b;

	return location_order(x->proc, x->name, y->proc, y->name);
}

static void print_init(const struct litmus *t, struct strbuf *sb)
{
	const struct init_item **items = xcalloc((size_t)t->ninit + 1, sizeof(*items));
	int i, n = 0;

	for (i = 0; i < t->ninit; i++)
		items[i] = &t->init[i];
	qsort(items, (size_t)t->ninit, sizeof(*items), init_order);
	for (i = 0; i < t->ninit; i++) {
		const struct init_item *it = items[i];
		const char *value = it->has_value ? it->value.spelling : "0";
		size_t typelen = it->type ? strlen(it->type) : 0;

		if (i > 0 && !init_order(&items[i - 1], &items[i]))
			continue;	/* herd7 keeps the first of duplicates */
		if (n++)
			sb_adds(sb, "; ");
		if (it->untyped_pointer) {
			sb_adds(sb, "*");
		} else if (typelen && it->type[typelen - 1] == '*') {
			sb_add(sb, it->type, strcspn(it->type, " *"));
			sb_adds(sb, " *");
		} else if (it->type) {
			sb_adds(sb, it->type);
			sb_adds(sb, " ");
		}
		add_location(sb, it->proc, it->name);
		sb_adds(sb, "=");
		sb_adds(sb, value);
	}
	free(items);
}

/* "int *" prints "int*", "int **" prints "int**": the words, then the stars. */
static void print_param_type(const char *type, struct strbuf *sb)
{
	size_t words = strcspn(type, "*");

	while (words > 0 && type[words - 1] == ' ')
		words--;
	sb_add(sb, type, words);
	sb_adds(sb, type + strcspn(type, "*"));
}

/*
 * herd7 takes a body as the raw characters between its braces, counting
 * nested braces with no regard to comments or strings; so do we.
 */
static void print_body(const char *open_brace, struct strbuf *sb)
{
	const char *p = open_brace + 1;
	int depth = 0;

	for (; *p && (*p != '}' || depth > 0); p++) {
		if (*p == '{')
			depth++;
		else if (*p == '}')
			depth--;
	}
	sb_add(sb, open_brace + 1, (size_t)(p - open_brace - 1));
}

static void print_code(const struct litmus *t, struct strbuf *sb)
{
	int i, j;

	for (i = 0; i < t->nprocs; i++) {
		const struct process *pr = &t->procs[i];

		sb_adds(sb, i ? "| P" : " P");
		sb_add_int(sb, pr->id);
		sb_adds(sb, "(");
		for (j = 0; j < pr->nparams; j++) {
			sb_adds(sb, j ? ", " : "");
			print_param_type(pr->params[j].type, sb);
			sb_adds(sb, " ");
			sb_adds(sb, pr->params[j].name);
		}
		sb_adds(sb, ") {\n");
		print_body(pr->body_text, sb);
		sb_adds(sb, "\n}\n ");
	}
	sb_adds(sb, ";\n");
}

struct observed {
	int n;
	const struct cond_loc **locs;
};

static void observe(struct observed *o, const struct cond_loc *loc)
{
	o->locs = xrealloc(o->locs, (size_t)(o->n + 1) * sizeof(*o->locs));
	o->locs[o->n++] = loc;
}

static void observe_loc(const struct cond_loc *loc, void *o)
{
	observe(o, loc);
}

static int observed_order(const void *a, const void *b)
{
	const struct cond_loc *x = *(struct cond_loc *const *)a;
	const struct cond_loc *y = *(struct cond_loc *const *)b;

	return location_order(x->proc, x->name, y->proc, y->name);
}

static void print_observed(const struct litmus *t, struct strbuf *sb)
{
	struct observed o = { 0 };
	int i, n = 0;

	for (i = 0; i < t->nlocations; i++)
		observe(&o, &t->locations[i]);
	prop_each_loc(t->cond, observe_loc, &o);
	if (o.n)
		qsort(o.locs, (size_t)o.n, sizeof(*o.locs), observed_order);
	for (i = 0; i < o.n; i++) {
		if (i > 0 && !observed_order(&o.locs[i - 1], &o.locs[i]))
			continue;
		if (n++)
			sb_adds(sb, "; ");
		add_location(sb, o.locs[i]->proc, o.locs[i]->name);
	}
	free(o.locs);
}

void test_digest(const struct litmus *t, char hex[33])
{
	void (*const parts[])(const struct litmus *, struct strbuf *) = {
		print_init, print_code, print_observed,
	};
	unsigned char digest[16];
	struct md5 outer;
	size_t i;

	md5_init(&outer);
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		struct strbuf text = { 0 };

		parts[i](t, &text);
		add_part_digest(&outer, &text);
		sb_free(&text);
	}
	md5_final(&outer, digest);
	for (i = 0; i < 16; i++) {
		hex[2 * i] = "0123456789abcdef"[digest[i] >> 4];
		hex[2 * i + 1] = "0123456789abcdef"[digest[i] & 15];
	}
	hex[32] = '\0';
}
