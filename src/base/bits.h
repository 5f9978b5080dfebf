/*
 * bits.h - sets of events and relations over events, as bit sets and bit
 * matrices of a fixed size n (the number of events of one execution).
 */
#ifndef LKMM_BITS_H
#define LKMM_BITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct set {
	int n;			/* universe size */
	uint64_t w[];		/* words_for(n) words */
};

struct rel {
	int n;			/* universe size */
	int words;		/* words per row */
	uint64_t w[];		/* n rows of `words` words: row a holds {b | a->b} */
};

struct set *set_new(int n);
struct rel *rel_new(int n);
void set_add(struct set *s, int e);
bool set_has(const struct set *s, int e);
void rel_add(struct rel *r, int a, int b);
bool rel_has(const struct rel *r, int a, int b);

/*
 * In-place algebra for the cat interpreter.  Every operand has the same
 * universe size; `dst` may alias an operand unless said otherwise.  Sizes
 * in bytes let callers carve sets and relations out of their own arenas.
 */
static inline int words_for(int n)
{
	/* At least one: the row loops size arrays by it, and a test may have no event. */
	return n ? (n + 63) / 64 : 1;
}

/*
 * Inline: the interpreter sizes, clears or copies a relation for most
 * terms of every verdict, and a call cost as much as the work.
 */
static inline size_t set_bytes(int n)
{
	return sizeof(struct set) + words_for(n) * sizeof(uint64_t);
}

static inline size_t rel_bytes(int n)
{
	return sizeof(struct rel) + (size_t)n * words_for(n) * sizeof(uint64_t);
}

/*
 * The members of a word, without libgcc's __popcountdi2: the build
 * targets baseline x86-64, which has no popcnt instruction, so the
 * builtin was a call of some 20 instructions for every word (1.7% of
 * C-ManfredSpraul-L1G2xchg, counting the rf pairs of each partial
 * judgement).  Most words counted are 0: they return at once.
 */
static inline int word_count(uint64_t w)
{
	if (!w)
		return 0;
	w -= w >> 1 & UINT64_C(0x5555555555555555);
	w = (w & UINT64_C(0x3333333333333333)) + (w >> 2 & UINT64_C(0x3333333333333333));
	w = (w + (w >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (int)((w * UINT64_C(0x0101010101010101)) >> 56);
}

/* An empty set of universe n. */
static inline void set_init(struct set *s, int n)
{
	memset(s, 0, set_bytes(n));
	s->n = n;
}

/* An empty relation of universe n. */
static inline void rel_init(struct rel *r, int n)
{
	memset(r, 0, rel_bytes(n));
	r->n = n;
	r->words = words_for(n);
}

/* Of universe n, its pairs left as they are. */
static inline void rel_shape(struct rel *r, int n)
{
	r->n = n;
	r->words = words_for(n);
}

static inline void set_copy(struct set *dst, const struct set *a)
{
	memcpy(dst, a, set_bytes(a->n));
}

static inline void rel_copy(struct rel *dst, const struct rel *a)
{
	memcpy(dst, a, rel_bytes(a->n));
}

void set_fill(struct set *dst);		/* every event */
void set_union(struct set *dst, const struct set *a, const struct set *b);
void set_inter(struct set *dst, const struct set *a, const struct set *b);
void set_diff(struct set *dst, const struct set *a, const struct set *b);
bool set_is_empty(const struct set *s);
int set_count(const struct set *s);
bool set_subset(const struct set *a, const struct set *b);
int set_cmp(const struct set *a, const struct set *b);
int set_next(const struct set *s, int from);	/* first member >= from, or -1 */

void rel_union(struct rel *dst, const struct rel *a, const struct rel *b);
void rel_inter(struct rel *dst, const struct rel *a, const struct rel *b);
void rel_diff(struct rel *dst, const struct rel *a, const struct rel *b);
bool rel_seq(struct rel *dst, const struct rel *a, const struct rel *b); /* dst must not alias; false: empty */
/* The same, a's rows with a pair among rows, a bit an event. */
bool rel_seq_rows(struct rel *dst, const struct rel *a, const uint64_t *rows, const struct rel *b);
void rel_inverse(struct rel *dst, const struct rel *a);	/* dst must not alias */
void rel_closure(struct rel *dst, const struct rel *a);	/* transitive: a+ */
void rel_add_id(struct rel *dst, const struct set *s);	/* dst |= [s] */
void rel_cartesian(struct rel *dst, const struct set *a, const struct set *b);
void rel_restrict(struct rel *dst, const struct set *dom, const struct set *ran);
void rel_domain(struct set *dst, const struct rel *r);
void rel_range(struct set *dst, const struct rel *r);
bool rel_is_empty(const struct rel *r);
bool rel_rows_empty(const struct rel *r, const uint64_t *rows);	/* its rows with a pair among rows */
bool rel_is_irreflexive(const struct rel *r);
bool rel_is_acyclic(const struct rel *r);
/*
 * A cycle of r, as the events along it (at most max of them); its
 * length, or 0 when r is acyclic.  A self-loop is a cycle of one.
 */
int rel_find_cycle(const struct rel *r, int *cycle, int max);
bool rel_subset(const struct rel *a, const struct rel *b);
int rel_cmp(const struct rel *a, const struct rel *b);

#endif
