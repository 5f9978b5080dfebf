/*
 * bits.h - sets of events and relations over events, as bit sets and bit
 * matrices of a fixed size n (the number of events of one execution).
 */
#ifndef LKMM_BITS_H
#define LKMM_BITS_H

#include <stdbool.h>
#include <stdint.h>

struct set {
	int n;			/* universe size */
	uint64_t w[];		/* (n + 63) / 64 words */
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

#endif
