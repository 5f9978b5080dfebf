/*
 * exec.h - one candidate execution, as the enumerator hands it to the cat
 * model: the events of every process plus the relations herd7 predefines.
 *
 * Events are numbered 0..nevents-1.  Sets and relations over them are bit
 * sets and bit matrices (see bits.h), so that the model's algebra is a
 * handful of word operations per row.
 */
#ifndef LKMM_EXEC_H
#define LKMM_EXEC_H

#include <stdbool.h>

#include "base/base.h"

/*
 * A value: a plain integer or the address of a shared location.  The
 * address of no location (n = -1) stands for a value that herd7 leaves
 * symbolic: one that only a cycle of loads and stores carries, out of
 * thin air, which no store computes.
 */
struct value {
	bool is_addr;
	long long n;		/* the integer, or the location id */
};

static inline bool value_is_symbolic(struct value v)
{
	return v.is_addr && v.n < 0;
}

/* Inline: the search compares the values of reads and writes for every combination. */
static inline bool value_eq(struct value a, struct value b)
{
	return a.is_addr == b.is_addr && a.n == b.n;
}

/*
 * Event kinds, following herd7's C actions.  The names of the sets the
 * model sees are given beside each kind.
 */
enum event_kind {
	EV_READ,		/* R: memory load (also the R of an RMW) */
	EV_WRITE,		/* W: memory store (also the W of an RMW) */
	EV_FENCE,		/* F */
	EV_LOCK_READ,		/* LKR: read half of spin_lock() */
	EV_LOCK_WRITE,		/* LKW: write half of spin_lock() */
	EV_UNLOCK,		/* UL: spin_unlock() */
	EV_LOCK_FAIL,		/* LF: failed spin_trylock() */
	EV_READ_LOCKED,		/* RL: spin_is_locked() that returned true */
	EV_READ_UNLOCKED,	/* RU: spin_is_locked() that returned false */
	EV_SRCU,		/* an __srcu{...}() event, e.g. sync-srcu */
};

struct event {
	int proc;		/* process number, -1 for initial writes */
	int poi;		/* position in the process' program order */
	enum event_kind kind;
	bool atomic;		/* R* or W*: issued by an atomic RMW primitive */
	int ntags;
	const char **tags;	/* annotations, e.g. "once", "mb", "srcu-lock" */
	int loc;		/* location id; -1 for fences */
	struct value val;	/* value read or written, if any */
	bool has_val;
	int line;		/* the test's line that made it; 0 for initial writes */
};

struct execution {
	int nevents;
	struct event *events;
	int nlocs;
	const char **loc_names;	/* location id -> name */

	/* Predefined relations (herd7's names). */
	struct rel *po;		/* program order, within each process */
	struct rel *rmw;	/* R* -> W* of each successful atomic RMW */
	struct rel *addr;	/* read -> access whose address depends on it */
	struct rel *data;	/* read -> write whose value depends on it */
	struct rel *ctrl;	/* read -> events po-after a branch on it */
	struct rel *rf;		/* reads-from, for EV_READ events */

	/* Predefined sets. */
	struct set *iw;		/* IW: initial writes */
	struct set *fw;		/* FW: the write chosen as final per location */

	/*
	 * Executions with the same nonzero structure have the same events,
	 * tags and relations but rf (values may differ): the evaluator then
	 * keeps its static values without comparing.  Never reused in a process.
	 */
	unsigned long structure;
};

#endif
