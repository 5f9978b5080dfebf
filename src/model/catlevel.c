/*
 * catlevel.c - the level of each value, for one event structure.
 *
 * catresolve.c gives every statement the level of the last `with` its
 * text reads.  For a given event structure many terms are empty
 * whatever the choices: a sequence or an intersection with an operand
 * about locks, in a test that takes none.  Such a term reads nothing, so
 * a value whose only path to a `with` goes through it does not change
 * with that with's choice here.  In the LKMM, lock.cat's last `rf` adds
 * to rf a term through co that is empty without locks; read by the
 * text, it would make everything built on rf (the fences, ppo,
 * cumul-fence...) be computed again for every coherence order.
 *
 * So each time the event structure changes, the terms empty for it are
 * marked (`empty_here`: evaluation returns {} without looking inside, an
 * empty event set where the term is a set, for ~ to complement),
 * and every slot and statement that is not a `with` gets the highest
 * level of the terms it still reads.  A level can only go down from the
 * text's, so the steps keep their order.  The marks and levels are the
 * evaluation's (struct cat_eval), by the numbers of the terms, slots and
 * statements: the model stays as loaded.
 *
 * The analysis is a function of the static values it reads (is this
 * one empty?), in the order it reads them.  Structures in turn mostly
 * answer alike (a test's runs differ in a branch, not in the kinds of
 * access they make), so the answers are kept: when every one is the
 * same again, the marks and levels already in place are the ones the
 * analysis would make, and it is not run.  Each value read again is one
 * the analysis would have read in that state, so nothing is evaluated
 * at a level it would not have.  The last few analyses are kept with
 * their answers too (tests in one process share a few kinds of
 * structure): where this structure answers one of them alike, its marks
 * and levels are put back instead.
 *
 * A term that varies less than the term it is part of is kept apart
 * (`kept`), computed once per generation of its own level: in the LKMM
 * without locks, prop is computed for every coherence order, but its
 * cumul-fence* only for every reads-from.  Not inside a function or a
 * let, whose local names the levels do not follow, nor in a let rec,
 * whose names change from one round of its fixpoint to the next.
 */
#include <stdlib.h>
#include <string.h>

#include "catast.h"

/* A slot's state in an analysis; FIXED: a with's, whose level no analysis sets. */
enum { UNSEEN, BUSY, DONE, FIXED };

/* What a static value read said, per slot. */
enum { UNREAD, NOT_EMPTY, EMPTY };

struct levels {
	struct cat_eval *ev;
	cat_slot_reader slot_value;
	unsigned char *state;	/* per slot */
	unsigned char *answer;	/* per slot */
	bool *assumed_empty;	/* a let rec's names, on the first round */
	int local;		/* > 0 where terms may read local names */
};

static int expr_level(struct levels *a, const struct cat_expr *e);
static int slot_level(struct levels *a, int slot);

/* Whether a slot's level holds as it is: set already, or one no analysis sets. */
static inline bool level_set(const struct levels *a, int slot)
{
	return a->state[slot] != UNSEEN;
}

/* Whether a static value read for the first time in the analysis is empty, kept among the answers. */
static __attribute__((noinline)) bool first_read(struct levels *a, int slot)
{
	struct cat_eval *ev = a->ev;
	bool empty = cat_is_empty(a->slot_value(ev, slot));

	a->answer[slot] = empty ? EMPTY : NOT_EMPTY;
	ev->level_reads = grow_array(ev->level_reads, ev->nlevel_reads, &ev->level_reads_cap,
				     sizeof(*ev->level_reads));
	ev->level_reads[ev->nlevel_reads++] = (struct level_read){ slot, empty };
	return empty;
}

/*
 * Whether a static value is empty: a value read again answers from its
 * first read, without a call (a full analysis reads 311 values, 111 of
 * them distinct, in the generated tests).
 */
static inline bool read_empty(struct levels *a, int slot)
{
	if (a->answer[slot] != UNREAD)
		return a->answer[slot] == EMPTY;
	return first_read(a, slot);
}

/* How many of an analysis's reads, in turn, answer as then (n: its marks and levels hold). */
static int answers_agreed(struct cat_eval *ev, const struct level_read *reads, int n,
			  cat_slot_reader slot_value)
{
	int i;

	for (i = 0; i < n; i++)
		if (cat_is_empty(slot_value(ev, reads[i].slot)) != reads[i].empty)
			break;
	return i;
}

static int nstmts(const struct cat_model *m)
{
	return m->stmts.len + m->invariants.len;
}

/* realloc() for an array of n items of size bytes, n maybe 0. */
static void *resize(void *items, int n, size_t size)
{
	return xrealloc(items, (n + 1) * size);
}

/*
 * The oldest of the last LEVEL_MEMOS analyses is replaced by the one about
 * to be made: its marks are written in place (no read of it matches
 * until the analysis is whole and kept).
 */
static void replace_analysis(struct cat_eval *ev)
{
	struct level_memo *k = &ev->level_memos[ev->next_level_memo];

	k->nreads = 0;
	k->has_prunes = false;
	k->name = 0;
	ev->marks = k->marks;
}

/* The analysis just made, kept in the place replace_analysis() gave it. */
static void keep_analysis(struct cat_eval *ev)
{
	const struct cat_model *m = ev->m;
	struct level_memo *k = &ev->level_memos[ev->next_level_memo];

	ev->level_memo_in_place = ev->next_level_memo;
	ev->next_level_memo = (ev->next_level_memo + 1) % LEVEL_MEMOS;
	k->name = ++ev->last_analysis;
	k->nreads = ev->nlevel_reads;
	k->reads = resize(k->reads, k->nreads, sizeof(*k->reads));
	memcpy(k->reads, ev->level_reads, k->nreads * sizeof(*k->reads));
	k->slot_levels = resize(k->slot_levels, m->nslots, sizeof(*k->slot_levels));
	for (int i = 0; i < m->nslots; i++)
		k->slot_levels[i] = ev->slots[i].level;
	k->stmt_levels = resize(k->stmt_levels, nstmts(m), sizeof(*k->stmt_levels));
	for (int i = 0; i < nstmts(m); i++)
		k->stmt_levels[i] = ev->stmts[i].level;
	k->nkept = ev->nkept;
	k->kept_levels = resize(k->kept_levels, k->nkept, sizeof(*k->kept_levels));
	for (int i = 0; i < k->nkept; i++)
		k->kept_levels[i] = ev->kept[i].level;
}

/* A kept analysis's marks, levels and kept terms (not yet computed) put in place. */
static void install(struct cat_eval *ev, const struct level_memo *k)
{
	const struct cat_model *m = ev->m;
	int i;

	ev->marks = k->marks;
	for (i = 0; i < m->nslots; i++)
		ev->slots[i].level = k->slot_levels[i];
	for (i = 0; i < nstmts(m); i++)
		ev->stmts[i].level = k->stmt_levels[i];
	ev->kept = resize(ev->kept, k->nkept, sizeof(*ev->kept));
	ev->kept_cap = k->nkept + 1;
	for (i = 0; i < k->nkept; i++)
		ev->kept[i] = (struct cat_kept){ k->kept_levels[i], 0, NULL };
	ev->nkept = k->nkept;
}

/* The reads of a kept analysis made the analysis's in place. */
static void take_reads(struct cat_eval *ev, const struct level_memo *k)
{
	ev->level_reads = resize(ev->level_reads, k->nreads, sizeof(*ev->level_reads));
	ev->level_reads_cap = k->nreads + 1;
	memcpy(ev->level_reads, k->reads, k->nreads * sizeof(*k->reads));
	ev->nlevel_reads = k->nreads;
	ev->levels_known = true;
	ev->level_memo_in_place = k - ev->level_memos;
}

/* Whether two analyses read alike, and got the same answers, for their first n reads. */
static bool same_reads(const struct level_read *a, const struct level_read *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i].slot != b[i].slot || a[i].empty != b[i].empty)
			return false;
	return true;
}

/*
 * A kept analysis that this structure answers alike, put in place.  The
 * analysis in place (last, its reads) was answered alike up to its read
 * `agreed`: the analyses read the same slots in the same order while
 * their answers agree, so only one that took the other answer there can
 * hold, and its later reads are answered under its own marks, as the
 * analysis would have made them by then.  Whether there was one.
 */
static bool restore_analysis(struct cat_eval *ev, const struct level_read *last, int nlast,
			     int agreed, cat_slot_reader slot_value)
{
	int i = 0, rest;

	ev->level_memo_in_place = -1;	/* until one is put back whole */
	while (i < LEVEL_MEMOS) {
		const struct level_memo *k = &ev->level_memos[i++];

		if (k->nreads <= agreed || agreed >= nlast ||
		    !same_reads(k->reads, last, agreed) || k->reads[agreed].slot != last[agreed].slot ||
		    k->reads[agreed].empty == last[agreed].empty)
			continue;
		install(ev, k);
		rest = answers_agreed(ev, k->reads + agreed + 1, k->nreads - agreed - 1, slot_value);
		if (agreed + 1 + rest == k->nreads) {
			take_reads(ev, k);
			return true;
		}
		/* Now k is in place, answered alike further: look again from there. */
		last = k->reads;
		nlast = k->nreads;
		agreed += 1 + rest;
		i = 0;
	}
	return false;
}

unsigned long cat_level_in_place(const struct cat_eval *ev)
{
	if (!ev->levels_known || ev->level_memo_in_place < 0)
		return 0;
	return ev->level_memos[ev->level_memo_in_place].name;
}

/* The kept analysis of that name, or NULL. */
static const struct level_memo *named(const struct cat_eval *ev, unsigned long analysis)
{
	for (int i = 0; i < LEVEL_MEMOS && analysis; i++)
		if (ev->level_memos[i].name == analysis)
			return &ev->level_memos[i];
	return NULL;
}

bool cat_level_still_kept(const struct cat_eval *ev, unsigned long analysis)
{
	return named(ev, analysis) != NULL;
}

void cat_level_put_back(struct cat_eval *ev, unsigned long analysis)
{
	const struct level_memo *k = named(ev, analysis);

	ev->marks = k->marks;
	take_reads(ev, k);
}

bool cat_level_prunes_restore(struct cat_eval *ev)
{
	const struct level_memo *k;

	if (ev->level_memo_in_place < 0)
		return false;
	k = &ev->level_memos[ev->level_memo_in_place];
	if (!k->has_prunes)
		return false;
	for (int i = 0; i < nstmts(ev->m); i++)
		ev->stmts[i].prunes = k->prunes[i];
	return true;
}

void cat_level_prunes_keep(struct cat_eval *ev)
{
	struct level_memo *k;

	if (ev->level_memo_in_place < 0)
		return;
	k = &ev->level_memos[ev->level_memo_in_place];
	k->prunes = resize(k->prunes, nstmts(ev->m), sizeof(*k->prunes));
	for (int i = 0; i < nstmts(ev->m); i++)
		k->prunes[i] = ev->stmts[i].prunes;
	k->has_prunes = true;
}

/*
 * The slots' states before an analysis, worked out once: a predefined
 * value is known (DONE), a with's level is its own (FIXED).
 */
static unsigned char *first_states(const struct cat_model *m)
{
	unsigned char *state = xcalloc(m->nslots + 1, 1);

	for (int i = 0; i < m->nslots; i++)
		if (m->slots[i].predef)
			state[i] = DONE;
		else if (m->slots[i].definer->kind == S_WITH)
			state[i] = FIXED;
	return state;
}

void cat_level_memos_new(struct cat_eval *ev)
{
	ev->level_states = first_states(ev->m);
	for (int i = 0; i < LEVEL_MEMOS; i++)
		ev->level_memos[i].marks = xcalloc(ev->m->nexprs + 1, sizeof(*ev->marks));
	ev->marks = ev->level_memos[0].marks;
}

void cat_level_memos_free(struct cat_eval *ev)
{
	free(ev->level_states);
	for (int i = 0; i < LEVEL_MEMOS; i++) {
		struct level_memo *k = &ev->level_memos[i];

		free(k->prunes);
		free(k->reads);
		free(k->marks);
		free(k->slot_levels);
		free(k->stmt_levels);
		free(k->kept_levels);
	}
}

/* Whether the slot is of the static level and its value may be read now. */
static bool static_value_known(struct levels *a, int slot)
{
	return a->ev->slots[slot].level == LEVEL_STATIC && a->state[slot] == DONE;
}

/* Whether e's value is {}, an empty set or an empty relation here (a name is never marked). */
static inline bool empty_operand(struct levels *a, const struct cat_expr *e)
{
	if (e->kind != X_VAR)
		return expr_marks(a->ev, e)->empty_here || e->kind == X_ZERO || e->kind == X_EMPTY;
	if (e->slot < 0)
		return false;
	if (a->assumed_empty[e->slot])
		return true;
	if (!static_value_known(a, e->slot))
		return false;
	return read_empty(a, e->slot);
}

/* Whether e's value is of its operands' kind: a set when they are sets. */
static bool is_set_operation(const struct cat_expr *e)
{
	return e->kind == X_DIFF || e->kind == X_INTER || e->kind == X_UNION;
}

/* Whether e is an event set, as far as the marks and static values say. */
static bool is_event_set(struct levels *a, const struct cat_expr *e)
{
	const struct expr_marks *marks;

	switch (e->kind) {
	case X_VAR:
		if (e->slot < 0 || a->assumed_empty[e->slot] || !static_value_known(a, e->slot))
			return false;
		return a->slot_value(a->ev, e->slot)->kind == V_SET;
	case X_UNIV:
		return true;
	default:
		if (!is_set_operation(e))
			return false;
		marks = expr_marks(a->ev, e);
		return marks->empty_here ? marks->empty_set : is_event_set(a, e->args[0]);
	}
}

/*
 * Whether an operation whose operands' levels are known is empty here:
 * as in evaluation, a sequence, an intersection or a product stops at
 * any empty operand, a difference at an empty left one.
 */
static bool empty_term(struct levels *a, const struct cat_expr *e)
{
	int i;

	switch (e->kind) {
	case X_SEQ:
	case X_INTER:
	case X_CART:
		for (i = 0; i < e->n; i++)
			if (empty_operand(a, e->args[i]))
				return true;
		return false;
	case X_DIFF:
	case X_TOID:
	case X_PLUS:
	case X_INV:
		return empty_operand(a, e->args[0]);
	case X_UNION:
		for (i = 0; i < e->n; i++)
			if (!empty_operand(a, e->args[i]))
				return false;
		return true;
	default:
		return false;
	}
}

/* e, of `level`, is kept apart from a term of a higher one. */
static void keep(struct levels *a, const struct cat_expr *e, int level)
{
	struct cat_eval *ev = a->ev;

	ev->kept = grow_array(ev->kept, ev->nkept, &ev->kept_cap, sizeof(*ev->kept));
	ev->kept[ev->nkept] = (struct cat_kept){ level, 0, NULL };
	expr_marks(ev, e)->kept = ++ev->nkept;
}

/*
 * The level of an operand: most are names of slots whose level is set
 * (a full analysis meets some 1,200 terms), found without a call.
 */
static inline int operand_level(struct levels *a, const struct cat_expr *e)
{
	if (e->kind != X_VAR)
		return expr_level(a, e);
	*expr_marks(a->ev, e) = (struct expr_marks){ false, false, 0 };
	if (e->slot < 0)
		return LEVEL_STATIC;
	if (level_set(a, e->slot))
		return a->ev->slots[e->slot].level;
	return slot_level(a, e->slot);
}

/*
 * An operand marked empty reads nothing: its level is LEVEL_STATIC.  The
 * operands of a lower level than the highest are kept apart.  Their
 * levels go in `levels`, room for n; inlined in the walk, whose every
 * term comes here.
 */
static inline __attribute__((always_inline))
int levels_of(struct levels *a, struct cat_expr *const *args, int n, int *levels)
{
	int level = LEVEL_STATIC;

	for (int i = 0; i < n; i++) {
		levels[i] = operand_level(a, args[i]);
		if (levels[i] > level)
			level = levels[i];
	}
	for (int i = 0; i < n && !a->local; i++)
		if (levels[i] < level && !expr_marks(a->ev, args[i])->empty_here &&
		    cat_worth_keeping(args[i]))
			keep(a, args[i], levels[i]);
	return level;
}

/* A term of many operands (a long union), apart: its array is not in every term's frame. */
static __attribute__((noinline)) int many_operands_level(struct levels *a,
							 struct cat_expr *const *args, int n)
{
	int levels[n];

	return levels_of(a, args, n, levels);
}

/*
 * Most terms have one or two operands: their levels on the stack of a
 * fixed size (an array of the operands' number in the frame of every
 * term walked cost 1% of the corpus's instructions).
 */
enum { FEW_OPERANDS = 8 };

static int operands_level(struct levels *a, struct cat_expr *const *args, int n)
{
	int levels[FEW_OPERANDS];

	if (n > FEW_OPERANDS)
		return many_operands_level(a, args, n);
	return levels_of(a, args, n, levels);
}

static int binds_level(struct levels *a, const struct cat_bind *binds, int n)
{
	int level = LEVEL_STATIC;

	for (int i = 0; i < n; i++) {
		int l = expr_level(a, binds[i].e);

		if (l > level)
			level = l;
	}
	return level;
}

static int let_level(struct levels *a, const struct cat_expr *e)
{
	int level, l;

	a->local++;
	level = expr_level(a, e->args[0]);
	l = binds_level(a, e->binds, e->nbinds);
	a->local--;
	return l > level ? l : level;
}

/* Every node below e is marked, so that evaluation never meets a stale mark. */
static int expr_level(struct levels *a, const struct cat_expr *e)
{
	struct expr_marks *marks = expr_marks(a->ev, e);
	int level;

	*marks = (struct expr_marks){ false, false, 0 };
	switch (e->kind) {
	case X_VAR:
		return e->slot < 0 ? LEVEL_STATIC : slot_level(a, e->slot);
	case X_FUN:
		a->local++;
		level = expr_level(a, e->args[0]);
		a->local--;
		return level;
	case X_LET:
	case X_LETREC:
		return let_level(a, e);
	case X_TRY:
		return expr_level(a, e->args[e->use_handler]);
	default:
		level = operands_level(a, e->args, e->n);
		marks->empty_here = empty_term(a, e);
		marks->empty_set = marks->empty_here && is_set_operation(e) &&
				   is_event_set(a, e->args[0]);
		return marks->empty_here ? LEVEL_STATIC : level;
	}
}

/* The first slot a let binds (an enum binds its name alone). */
static int first_slot(const struct cat_stmt *s)
{
	return s->nbinds ? s->binds[0].slot : s->end_slot;
}

static void set_level(struct levels *a, const struct cat_stmt *s, int level, int state)
{
	stmt_state(a->ev, s)->level = level;
	for (int slot = first_slot(s); slot < s->end_slot; slot++) {
		a->ev->slots[slot].level = level;
		a->state[slot] = state;
	}
}

/*
 * A let rec is first read with its names empty: if every binding is
 * then empty, so is the least fixpoint.  Otherwise the names take the
 * level of their bindings, round after round until it holds still;
 * until then they are busy, never evaluated.
 */
static void letrec_level(struct levels *a, const struct cat_stmt *s)
{
	struct stmt_state *st = stmt_state(a->ev, s);
	bool all_empty = true;
	int level;

	a->local++;
	for (int slot = first_slot(s); slot < s->end_slot; slot++)
		a->assumed_empty[slot] = true;
	set_level(a, s, LEVEL_STATIC, BUSY);
	binds_level(a, s->binds, s->nbinds);
	for (int i = 0; i < s->nbinds; i++)
		all_empty &= empty_operand(a, s->binds[i].e);
	for (int slot = first_slot(s); slot < s->end_slot; slot++)
		a->assumed_empty[slot] = false;
	/* Empty, the marks made with the names empty hold. */
	if (!all_empty) {
		do {
			int grown = binds_level(a, s->binds, s->nbinds);

			level = st->level;
			set_level(a, s, grown > level ? grown : level, BUSY);
		} while (st->level != level);
	}
	set_level(a, s, st->level, DONE);
	a->local--;
}

static int slot_level(struct levels *a, int slot)
{
	const struct cat_stmt *s = a->ev->m->slots[slot].definer;
	int local = a->local;

	if (level_set(a, slot))
		return a->ev->slots[slot].level;
	a->state[slot] = BUSY;
	a->local = 0;	/* a statement of its own, wherever it is first read */
	if (s->kind == S_LETREC)
		letrec_level(a, s);
	else
		set_level(a, s, binds_level(a, s->binds, s->nbinds), DONE);
	a->local = local;
	return a->ev->slots[slot].level;
}

static void analyse_each(void *arg)
{
	struct levels *a = arg;
	const struct cat_model *m = a->ev->m;

	for (int i = 0; i < m->stmts.len; i++) {
		const struct cat_stmt *s = m->stmts.items[i];

		if (s->kind == S_CHECK || s->kind == S_FLAG)
			stmt_state(a->ev, s)->level = expr_level(a, s->e);
		else if (s->kind == S_WITH)
			binds_level(a, s->binds, s->nbinds);
		else if (first_slot(s) < s->end_slot)
			slot_level(a, first_slot(s));
	}
	for (int i = 0; i < m->invariants.len; i++) {
		const struct cat_stmt *s = m->invariants.items[i];

		slot_level(a, s->binds[0].slot);
	}
}

/*
 * Mark the terms empty for the event structure of ev->x, and set the
 * levels.  A type error found on the way ends the load: the analysis's
 * tables are freed first.
 */
void cat_level_analyse(struct cat_eval *ev, cat_slot_reader slot_value)
{
	struct levels a;
	int status;

	if (ev->levels_known) {
		int agreed = answers_agreed(ev, ev->level_reads, ev->nlevel_reads, slot_value);

		if (agreed == ev->nlevel_reads ||
		    restore_analysis(ev, ev->level_reads, ev->nlevel_reads, agreed, slot_value))
			return;
	}
	ev->levels_known = false;	/* until the analysis is whole */
	ev->level_memo_in_place = -1;
	ev->nlevel_reads = 0;
	ev->nkept = 0;
	replace_analysis(ev);
	a = (struct levels){ ev, slot_value, xmalloc(ev->m->nslots + 1),
			     xcalloc(ev->m->nslots + 1, 1), xcalloc(ev->m->nslots + 1, sizeof(bool)),
			     0 };
	memcpy(a.state, ev->level_states, ev->m->nslots + 1);
	status = catch_die(analyse_each, &a);
	free(a.state);
	free(a.answer);
	free(a.assumed_empty);
	if (status)
		die_again(status);
	ev->levels_known = true;
	keep_analysis(ev);
}
