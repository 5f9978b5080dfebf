/*
 * bits.c - bit sets and bit matrices over the events of one execution.
 */
#include "bits.h"

#include "util.h"

static int words_for(int n)
{
	return (n + 63) / 64;
}

struct set *set_new(int n)
{
	struct set *s = xcalloc(1, sizeof(*s) + words_for(n) * sizeof(uint64_t));

	s->n = n;
	return s;
}

struct rel *rel_new(int n)
{
	int words = words_for(n);
	struct rel *r = xcalloc(1, sizeof(*r) + (size_t)n * words * sizeof(uint64_t));

	r->n = n;
	r->words = words;
	return r;
}

void set_add(struct set *s, int e)
{
	s->w[e / 64] |= UINT64_C(1) << (e % 64);
}

bool set_has(const struct set *s, int e)
{
	return s->w[e / 64] >> (e % 64) & 1;
}

void rel_add(struct rel *r, int a, int b)
{
	r->w[(size_t)a * r->words + b / 64] |= UINT64_C(1) << (b % 64);
}

bool rel_has(const struct rel *r, int a, int b)
{
	return r->w[(size_t)a * r->words + b / 64] >> (b % 64) & 1;
}
