/*
 * bits.c - bit sets and bit matrices over the events of one execution.
 */
#include "bits.h"

#include <stdlib.h>

#include <string.h>

#include "util.h"

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

/* Words of a relation's matrix, as one flat array. */
static size_t rel_words(const struct rel *r)
{
	return (size_t)r->n * r->words;
}

void set_fill(struct set *dst)
{
	int words = words_for(dst->n);

	for (int i = 0; i < words; i++)
		dst->w[i] = ~UINT64_C(0);
	if (dst->n % 64)
		dst->w[words - 1] = (UINT64_C(1) << (dst->n % 64)) - 1;
}

void set_union(struct set *dst, const struct set *a, const struct set *b)
{
	for (int i = 0; i < words_for(a->n); i++)
		dst->w[i] = a->w[i] | b->w[i];
}

void set_inter(struct set *dst, const struct set *a, const struct set *b)
{
	for (int i = 0; i < words_for(a->n); i++)
		dst->w[i] = a->w[i] & b->w[i];
}

void set_diff(struct set *dst, const struct set *a, const struct set *b)
{
	for (int i = 0; i < words_for(a->n); i++)
		dst->w[i] = a->w[i] & ~b->w[i];
}

bool set_is_empty(const struct set *s)
{
	for (int i = 0; i < words_for(s->n); i++)
		if (s->w[i])
			return false;
	return true;
}

int set_count(const struct set *s)
{
	int n = 0;

	for (int i = 0; i < words_for(s->n); i++)
		n += __builtin_popcountll(s->w[i]);
	return n;
}

bool set_subset(const struct set *a, const struct set *b)
{
	for (int i = 0; i < words_for(a->n); i++)
		if (a->w[i] & ~b->w[i])
			return false;
	return true;
}

int set_cmp(const struct set *a, const struct set *b)
{
	return memcmp(a->w, b->w, words_for(a->n) * sizeof(uint64_t));
}

/* First set bit at index >= from in an array of words, or -1. */
static int words_next(const uint64_t *w, int words, int from)
{
	int i = from / 64;
	uint64_t word;

	if (i >= words)
		return -1;
	word = w[i] & (~UINT64_C(0) << (from % 64));
	for (;;) {
		if (word)
			return i * 64 + __builtin_ctzll(word);
		if (++i >= words)
			return -1;
		word = w[i];
	}
}

int set_next(const struct set *s, int from)
{
	return words_next(s->w, words_for(s->n), from);
}

/*
 * The whole-matrix operations go two words at a time, as one 16-byte
 * vector (GNU C's vector extension; SSE2 on x86-64): the compiler does
 * not vectorise these loops itself, as dst may be an operand, and they
 * run for most terms of every verdict.  Loads and stores go through
 * memcpy, the matrix being aligned on 8 bytes only.
 */
typedef uint64_t pair_of_words __attribute__((vector_size(16)));

static inline pair_of_words load_pair(const uint64_t *w)
{
	pair_of_words v;

	memcpy(&v, w, sizeof(v));
	return v;
}

static inline void store_pair(uint64_t *w, pair_of_words v)
{
	memcpy(w, &v, sizeof(v));
}

/*
 * dst = a op b, word by word; op one of |, &, & ~.  Four words an
 * iteration, then two: half the loop's own work on the 45 words of a
 * 45-event relation (C-ManfredSpraul-L1G2xchg: unions, intersections
 * and differences 8% of its instructions).
 */
#define WORDWISE(dst, a, b, op)							\
	do {									\
		size_t i_ = 0, n_ = rel_words(a);				\
										\
		for (; i_ + 4 <= n_; i_ += 4) {					\
			store_pair((dst)->w + i_, load_pair((a)->w + i_) op	\
				   load_pair((b)->w + i_));			\
			store_pair((dst)->w + i_ + 2, load_pair((a)->w + i_ + 2) op \
				   load_pair((b)->w + i_ + 2));			\
		}								\
		for (; i_ + 2 <= n_; i_ += 2)					\
			store_pair((dst)->w + i_, load_pair((a)->w + i_) op	\
				   load_pair((b)->w + i_));			\
		for (; i_ < n_; i_++)						\
			(dst)->w[i_] = (a)->w[i_] op (b)->w[i_];		\
	} while (0)

void rel_union(struct rel *dst, const struct rel *a, const struct rel *b)
{
	WORDWISE(dst, a, b, |);
}

void rel_inter(struct rel *dst, const struct rel *a, const struct rel *b)
{
	WORDWISE(dst, a, b, &);
}

void rel_diff(struct rel *dst, const struct rel *a, const struct rel *b)
{
	WORDWISE(dst, a, b, & ~);
}

/*
 * Row a of r, of `words` words: the row loops below pass their constant,
 * as the compiler cannot keep r->words in a register across their
 * stores, any of which might change it (T16: -5.9% instructions).
 */
static inline uint64_t *row(const struct rel *r, int a, int words)
{
	return (uint64_t *)r->w + (size_t)a * words;
}

/*
 * The loops over rows below are written once for any number of words a
 * row and inlined where that number is a constant: 1 word (up to 64
 * events) and 2 (up to 128, e.g. 19 processes of 4 events) are the
 * cases that matter, and the compiler unrolls the word loops there.
 */
#define ROWS_INLINE static inline __attribute__((always_inline))

/* fn(args..., words), with words a constant where it is 1 or 2. */
#define BY_WORDS(words, fn, ...)						\
	((words) == 1 ? fn(__VA_ARGS__, 1) :					\
	 (words) == 2 ? fn(__VA_ARGS__, 2) : fn(__VA_ARGS__, (words)))

/* Whether a row has a pair. */
ROWS_INLINE bool row_has_pair(const uint64_t *r, int words)
{
	uint64_t any = 0;

	for (int i = 0; i < words; i++)
		any |= r[i];
	return any != 0;
}

/*
 * Row x of dst = a ; b, into out: the union of the rows of b at a's row
 * x, that row not empty.  Its pairs ORed into *pairs_v, in the pairs the
 * loop uses (read as words, out leaves the registers), or into *pairs.
 */
ROWS_INLINE void seq_row(struct rel *dst, const struct rel *a, const struct rel *b, int x,
			 uint64_t *out, pair_of_words *pairs_v, uint64_t *pairs, int words)
{
	const uint64_t *in = row(a, x, words);

	for (int i = 0; i < words; i++)
		out[i] = 0;
	for (int i = 0; i < words; i++)
		for (uint64_t bits = in[i]; bits; bits &= bits - 1) {
			const uint64_t *by = row(b, i * 64 + __builtin_ctzll(bits), words);
			int j = 0;

			for (; j + 2 <= words; j += 2)
				store_pair(out + j, load_pair(out + j) | load_pair(by + j));
			for (; j < words; j++)
				out[j] |= by[j];
		}
	memcpy(row(dst, x, words), out, words * sizeof(*out));
	for (int j = 0; j + 2 <= words; j += 2)
		*pairs_v |= load_pair(out + j);
	for (int j = words & ~1; j < words; j++)
		*pairs |= out[j];
}

/*
 * Most rows of most relations are empty: those are cleared, not
 * composed (a store of their words, which costs less than clearing all
 * of dst first with a call).  out is declared out of the row loops: a
 * variable-length array in them saves and restores the stack pointer on
 * every row, empty or not, even where words is a constant (two-word
 * rows: 9 instructions an empty row, 8 so).
 */
ROWS_INLINE bool seq_rows(struct rel *dst, const struct rel *a, const struct rel *b, int words)
{
	uint64_t out[words], pairs = 0;
	pair_of_words pairs_v = { 0, 0 };

	for (int x = 0, n = a->n; x < n; x++) {	/* n read once: a store to dst may change a->n */
		if (row_has_pair(row(a, x, words), words))
			seq_row(dst, a, b, x, out, &pairs_v, &pairs, words);
		else
			memset(row(dst, x, words), 0, words * sizeof(uint64_t));
	}
	return (pairs | pairs_v[0] | pairs_v[1]) != 0;
}

/* The same, visiting only the rows in rows. */
ROWS_INLINE bool seq_listed_rows(struct rel *dst, const struct rel *a, const uint64_t *rows,
				 const struct rel *b, int words)
{
	uint64_t out[words], pairs = 0;
	pair_of_words pairs_v = { 0, 0 };

	memset(dst->w, 0, rel_words(dst) * sizeof(uint64_t));
	for (int i = 0; i < words; i++)
		for (uint64_t bits = rows[i]; bits; bits &= bits - 1) {
			int x = i * 64 + __builtin_ctzll(bits);

			if (row_has_pair(row(a, x, words), words))
				seq_row(dst, a, b, x, out, &pairs_v, &pairs, words);
		}
	return (pairs | pairs_v[0] | pairs_v[1]) != 0;
}

/*
 * dst = a ; b: the row of x is the union of the rows of b at a's row.
 * Whether dst has a pair, from the rows written: a sequence stops at an
 * empty step, and a pass to test it cost a tenth of the step (T16).
 */
bool rel_seq(struct rel *dst, const struct rel *a, const struct rel *b)
{
	return BY_WORDS(a->words, seq_rows, dst, a, b);
}

/*
 * The same, a's rows with a pair among rows (a bit an event): only those
 * are visited (T16's rcu-order fixpoint: 8 of 72).
 */
bool rel_seq_rows(struct rel *dst, const struct rel *a, const uint64_t *rows,
		  const struct rel *b)
{
	return BY_WORDS(a->words, seq_listed_rows, dst, a, rows, b);
}

ROWS_INLINE void inverse_rows(struct rel *dst, const struct rel *a, int words)
{
	rel_init(dst, a->n);
	for (int x = 0; x < a->n; x++) {
		const uint64_t *rx = row(a, x, words);
		uint64_t bit = UINT64_C(1) << (x % 64);

		for (int i = 0; i < words; i++)
			for (uint64_t bits = rx[i]; bits; bits &= bits - 1)
				row(dst, i * 64 + __builtin_ctzll(bits), words)[x / 64] |= bit;
	}
}

void rel_inverse(struct rel *dst, const struct rel *a)
{
	BY_WORDS(a->words, inverse_rows, dst, a);
}

/*
 * The events with an edge out (the rows not empty) into from[], and those
 * with an edge in (the union of the rows) into to[]: only events in both
 * can be inner steps of a path.
 */
ROWS_INLINE void edge_ends(const struct rel *r, uint64_t *from, uint64_t *to, int words)
{
	if (words == 1) {
		/*
		 * Event x is bit x: no division or shift by x % 64 for each
		 * row.  Two rows a step: the loop's own work was a third of a
		 * row's (C-ManfredSpraul-L1G2xchg: 4% of its instructions).
		 */
		uint64_t out = 0, in = 0;
		int x = 0;

		for (; x + 2 <= r->n; x += 2) {
			out |= (uint64_t)(r->w[x] != 0) << x | (uint64_t)(r->w[x + 1] != 0) << (x + 1);
			in |= r->w[x] | r->w[x + 1];
		}
		if (x < r->n) {
			out |= (uint64_t)(r->w[x] != 0) << x;
			in |= r->w[x];
		}
		*from = out;
		*to = in;
		return;
	}
	/*
	 * Else 64 rows at a time, the union in a local array: through from
	 * and to (the caller's, in memory) each row loaded and stored them
	 * again (T16: 20 instructions a row, 12 so).
	 */
	uint64_t in[words];

	for (int i = 0; i < words; i++)
		in[i] = 0;
	for (int block = 0; block < words; block++) {
		uint64_t out = 0;
		int rows = r->n - block * 64 < 64 ? r->n - block * 64 : 64;

		for (int k = 0; k < rows; k++) {
			const uint64_t *rx = row(r, block * 64 + k, words);
			uint64_t any = 0;

			for (int i = 0; i < words; i++) {
				in[i] |= rx[i];
				any |= rx[i];
			}
			out |= (uint64_t)(any != 0) << k;
		}
		from[block] = out;
	}
	memcpy(to, in, sizeof(in));
}

/* Warshall's algorithm, one row of words at a time. */
/*
 * Only events with edges both in and out can be steps of a path, and
 * only events with edges out gain any: sparse relations close fast.
 * Neither set grows meanwhile.
 */
ROWS_INLINE void close_rows(struct rel *dst, int words)
{
	uint64_t from[words], to[words];	/* rows not empty, their union */

	edge_ends(dst, from, to, words);
	for (int ki = 0; ki < words; ki++)
		for (uint64_t ks = from[ki] & to[ki]; ks; ks &= ks - 1) {
			int k = ki * 64 + __builtin_ctzll(ks);
			const uint64_t *rk = row(dst, k, words);

			for (int xi = 0; xi < words; xi++)
				for (uint64_t xs = from[xi]; xs; xs &= xs - 1) {
					uint64_t *rx = row(dst, xi * 64 + __builtin_ctzll(xs), words);

					if (rx[ki] >> (k % 64) & 1)
						for (int i = 0; i < words; i++)
							rx[i] |= rk[i];
				}
		}
}

/*
 * Whether a ; a is within a: then a is its own closure.  Relations
 * closed again are often so already (an order chosen by a with, closed
 * by a model that also adds edges to it in other tests), and a failing
 * row usually shows early, so the test costs little next to Warshall.
 */
ROWS_INLINE bool transitive_rows(const struct rel *a, int words)
{
	for (int x = 0; x < a->n; x++) {
		const uint64_t *rx = row(a, x, words);

		for (int i = 0; i < words; i++)
			for (uint64_t bits = rx[i]; bits; bits &= bits - 1) {
				const uint64_t *ry = row(a, i * 64 + __builtin_ctzll(bits), words);

				for (int j = 0; j < words; j++)
					if (ry[j] & ~rx[j])
						return false;
			}
	}
	return true;
}

void rel_closure(struct rel *dst, const struct rel *a)
{
	int words = a->words;

	if (dst != a)
		rel_copy(dst, a);
	if (BY_WORDS(words, transitive_rows, a))
		return;
	if (words == 1) {
		uint64_t *w = dst->w, out, in;

		edge_ends(dst, &out, &in, 1);
		for (uint64_t ks = out & in; ks; ks &= ks - 1) {
			int k = __builtin_ctzll(ks);

			for (uint64_t xs = out; xs; xs &= xs - 1) {
				int x = __builtin_ctzll(xs);

				w[x] |= w[k] & -(w[x] >> k & 1);
			}
		}
		return;
	}
	if (words == 2)
		close_rows(dst, 2);
	else
		close_rows(dst, words);
}

/*
 * [s] added to a relation of one-word rows with s at least a quarter of
 * its events (r? and r* add every event): two rows a step, each row x
 * gaining s's bit x, with no test or count per member.
 */
static void add_id_dense_word(struct rel *dst, uint64_t s)
{
	pair_of_words bits = { 1, 2 }, mask = { s, s };
	int x = 0;

	for (; x + 2 <= dst->n; x += 2) {
		store_pair(dst->w + x, load_pair(dst->w + x) | (mask & bits));
		bits <<= 2;
	}
	if (x < dst->n)
		dst->w[x] |= s & UINT64_C(1) << x;
}

/*
 * [s] added to rows of several words: where s holds a quarter of the
 * events or more, word i of rows 64 i on (their diagonal bits) each gain
 * s's bit with no test (T16's 72 events, every one added: 966
 * instructions a call by the members, 650 so).  Out of line, so that
 * the one-word path keeps its small frame.
 */
static __attribute__((noinline)) void add_id_rows(struct rel *dst, const struct set *s)
{
	int members = 0;

	for (int i = 0; i < dst->words; i++)
		members += word_count(s->w[i]);
	if (members * 4 < dst->n) {
		for (int i = 0; i < dst->words; i++)
			for (uint64_t xs = s->w[i]; xs; xs &= xs - 1)
				row(dst, i * 64 + __builtin_ctzll(xs), dst->words)[i] |= xs & -xs;
		return;
	}
	for (int i = 0, words = dst->words; i < words; i++) {
		uint64_t *w = row(dst, i * 64, words) + i, in = s->w[i], bit = 1;
		int rows = dst->n - i * 64 < 64 ? dst->n - i * 64 : 64;

		for (int k = 0; k < rows; k++, bit <<= 1, w += words)
			*w |= in & bit;
	}
}

void rel_add_id(struct rel *dst, const struct set *s)
{
	if (dst->words > 1) {
		add_id_rows(dst, s);
		return;
	}
	if (word_count(s->w[0]) * 4 >= dst->n) {
		add_id_dense_word(dst, s->w[0]);
		return;
	}
	for (uint64_t xs = s->w[0]; xs; xs &= xs - 1)
		dst->w[__builtin_ctzll(xs)] |= xs & -xs;
}

void rel_cartesian(struct rel *dst, const struct set *a, const struct set *b)
{
	rel_init(dst, a->n);
	if (dst->words == 1) {
		/* A row is a word: stored, not copied by a call for each. */
		for (uint64_t xs = a->w[0]; xs; xs &= xs - 1)
			dst->w[__builtin_ctzll(xs)] = b->w[0];
		return;
	}
	for (int i = 0; i < dst->words; i++)
		for (uint64_t xs = a->w[i]; xs; xs &= xs - 1)
			memcpy(row(dst, i * 64 + __builtin_ctzll(xs), dst->words), b->w,
			       dst->words * sizeof(uint64_t));
}

/* The bits of word i that stand for events of a universe of n. */
static inline uint64_t valid_bits(int n, int i)
{
	int left = n - i * 64;

	return left >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << left) - 1;
}

/*
 * In two passes that do only what is needed: the rows outside dom are
 * cleared one by one (found by their bits, with no test per row), and
 * the columns outside ran are masked off by a pass over the words, two
 * at a time, only when ran misses an event.  A sequence's filter has
 * one side every event, the other side often half of them: the single
 * pass that masked every word of every row with both cost twice as
 * much (C-ManfredSpraul-L1G2xchg: 6% of its instructions).
 */
ROWS_INLINE void restrict_rows(struct rel *dst, const struct set *dom, const struct set *ran,
			       int words)
{
	uint64_t to[words], missing = 0;	/* a copy: the compiler cannot tell ran from dst */
	size_t n = rel_words(dst);

	for (int i = 0; i < words; i++) {
		to[i] = ran->w[i];
		missing |= ~to[i] & valid_bits(dst->n, i);
	}
	for (int i = 0; i < words; i++)
		for (uint64_t xs = ~dom->w[i] & valid_bits(dst->n, i); xs; xs &= xs - 1) {
			uint64_t *rx = row(dst, i * 64 + __builtin_ctzll(xs), words);

			for (int j = 0; j < words; j++)
				rx[j] = 0;
		}
	if (!missing)
		return;
	if (words <= 2) {
		pair_of_words mask = { to[0], to[0] };	/* one row of two words, or two of one */
		size_t i = 0;

		if (words == 2)
			mask[1] = to[1];

		for (; i + 2 <= n; i += 2)
			store_pair(dst->w + i, load_pair(dst->w + i) & mask);
		if (i < n)
			dst->w[i] &= to[0];
		return;
	}
	for (size_t i = 0; i < n; i += words)
		for (int j = 0; j < words; j++)
			dst->w[i + j] &= to[j];
}

/* Keep the pairs of dst whose source is in dom and target in ran. */
void rel_restrict(struct rel *dst, const struct set *dom, const struct set *ran)
{
	BY_WORDS(dst->words, restrict_rows, dst, dom, ran);
}

void rel_domain(struct set *dst, const struct rel *r)
{
	set_init(dst, r->n);
	for (int x = 0; x < r->n; x++)
		if (words_next(row(r, x, r->words), r->words, 0) >= 0)
			set_add(dst, x);
}

void rel_range(struct set *dst, const struct rel *r)
{
	set_init(dst, r->n);
	for (int x = 0; x < r->n; x++)
		for (int i = 0; i < r->words; i++)
			dst->w[i] |= row(r, x, r->words)[i];
}

bool rel_is_empty(const struct rel *r)
{
	size_t i = 0, n = rel_words(r);

	for (; i + 2 <= n; i += 2) {
		pair_of_words v = load_pair(r->w + i);

		if (v[0] | v[1])
			return false;
	}
	return i == n || !r->w[i];
}

/* Whether r is empty, its rows with a pair among rows (a bit an event). */
bool rel_rows_empty(const struct rel *r, const uint64_t *rows)
{
	/* Word by word, out at the first pair: row_has_pair() ORs them all (T16 +0.5M). */
	for (int i = 0; i < r->words; i++)
		for (uint64_t bits = rows[i]; bits; bits &= bits - 1) {
			const uint64_t *rx = row(r, i * 64 + __builtin_ctzll(bits), r->words);

			for (int j = 0; j < r->words; j++)
				if (rx[j])
					return false;
		}
	return true;
}

bool rel_is_irreflexive(const struct rel *r)
{
	for (int x = 0; x < r->n; x++)
		if (rel_has(r, x, x))
			return false;
	return true;
}

/*
 * Depth-first search with the states as bit masks: a successor still on
 * the stack closes a cycle.  Each event is pushed once and its row is
 * read again only when a child is done, so the cost is linear in the
 * events, not in the events times the length of the longest path.  An
 * event on a cycle has edges both in and out: the others count as done
 * from the start, never pushed.
 */
ROWS_INLINE bool acyclic_rows(const struct rel *r, int words)
{
	uint64_t done[words], on_stack[words], from[words], to[words];
	int stack[r->n + 1], depth = 0;

	for (int i = 0; i < words; i++)
		on_stack[i] = 0;
	edge_ends(r, from, to, words);
	for (int i = 0; i < words; i++)
		done[i] = ~(from[i] & to[i]);
	for (int ri = 0; ri < words; ri++)
		for (uint64_t roots = ~done[ri]; roots; roots &= roots - 1) {
			int root = ri * 64 + __builtin_ctzll(roots);

			if (done[ri] >> (root % 64) & 1)
				continue;
			stack[depth++] = root;
			on_stack[ri] |= UINT64_C(1) << (root % 64);
			while (depth) {
				int x = stack[depth - 1], next = -1;
				const uint64_t *rx = row(r, x, words);

				for (int i = 0; i < words; i++) {
					uint64_t succ = rx[i] & ~done[i];

					if (succ & on_stack[i])
						return false;
					if (succ && next < 0)
						next = i * 64 + __builtin_ctzll(succ);
				}
				if (next >= 0) {
					stack[depth++] = next;
					on_stack[next / 64] |= UINT64_C(1) << (next % 64);
				} else {
					depth--;
					on_stack[x / 64] &= ~(UINT64_C(1) << (x % 64));
					done[x / 64] |= UINT64_C(1) << (x % 64);
				}
			}
		}
	return true;
}

/*
 * Up to 64 events, by peeling: an event with no successor left, or no
 * predecessor left, is on no cycle and goes; when none goes, each event
 * left has a successor left, so they hold a cycle.  Visited from the
 * last, a chain of program order (events are numbered along it) goes in
 * one pass, where the search above pushes and pops each of its events:
 * at the leaves of a search nearly every check holds, its relation
 * acyclic and made mostly of such chains.
 */
static bool acyclic_word(const struct rel *r)
{
	uint64_t alive, left;

	edge_ends(r, &alive, &left, 1);
	alive &= left;
	do {
		uint64_t to = 0;	/* the successors of the events kept */

		left = alive;
		for (uint64_t xs = alive; xs;) {
			int x = 63 - __builtin_clzll(xs);
			uint64_t bit = UINT64_C(1) << x, succ = r->w[x] & alive;

			xs ^= bit;
			if (succ)
				to |= succ;
			else
				alive ^= bit;
		}
		alive &= to;
	} while (alive != left);
	return !alive;
}

bool rel_is_acyclic(const struct rel *r)
{
	if (r->words == 1)
		return acyclic_word(r);
	return BY_WORDS(r->words, acyclic_rows, r);
}

bool rel_subset(const struct rel *a, const struct rel *b)
{
	size_t i = 0, n = rel_words(a);

	for (; i + 2 <= n; i += 2) {
		pair_of_words v = load_pair(a->w + i) & ~load_pair(b->w + i);

		if (v[0] | v[1])
			return false;
	}
	return i == n || !(a->w[i] & ~b->w[i]);
}

int rel_cmp(const struct rel *a, const struct rel *b)
{
	return memcmp(a->w, b->w, rel_words(a) * sizeof(uint64_t));
}

/* Depth-first search; state: 0 new, 1 on the stack, 2 done. */
static int cycle_from(const struct rel *r, int x, char *state, int *stack, int depth,
		      int *cycle, int max)
{
	state[x] = 1;
	stack[depth] = x;
	for (int y = 0; y < r->n; y++) {
		if (!rel_has(r, x, y))
			continue;
		if (state[y] == 1) {
			int start = depth, n = 0;

			while (stack[start] != y)
				start--;
			for (int i = start; i <= depth && n < max; i++)
				cycle[n++] = stack[i];
			return n;
		}
		if (state[y] == 0) {
			int n = cycle_from(r, y, state, stack, depth + 1, cycle, max);

			if (n)
				return n;
		}
	}
	state[x] = 2;
	return 0;
}

int rel_find_cycle(const struct rel *r, int *cycle, int max)
{
	char *state = xcalloc(r->n ? r->n : 1, 1);
	int *stack = xcalloc(r->n ? r->n : 1, sizeof(*stack));
	int n = 0;

	for (int x = 0; x < r->n && !n; x++)
		if (state[x] == 0)
			n = cycle_from(r, x, state, stack, 0, cycle, max);
	free(state);
	free(stack);
	return n;
}
