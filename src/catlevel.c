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
 * marked (`empty_here`: evaluation returns {} without looking inside),
 * and every slot and statement that is not a `with` gets the highest
 * level of the terms it still reads.  A level can only go down from the
 * text's, so the steps keep their order.
 */
#include <stdlib.h>

#include "catast.h"

enum { UNSEEN, BUSY, DONE };

struct levels {
	struct cat_model *m;
	unsigned char *state;	/* per slot */
	bool *assumed_empty;	/* a let rec's names, on the first round */
};

static int expr_level(struct levels *a, struct cat_expr *e);
static int slot_level(struct levels *a, int slot);

/* Whether e's value is {}, an empty set or an empty relation here. */
static bool empty_operand(struct levels *a, const struct cat_expr *e)
{
	const struct cat_slot *sl;

	if (e->empty_here || e->kind == X_ZERO || e->kind == X_EMPTY)
		return true;
	if (e->kind != X_VAR || e->slot < 0)
		return false;
	if (a->assumed_empty[e->slot])
		return true;
	sl = &a->m->slots[e->slot];
	if (sl->level != LEVEL_STATIC || (!sl->predef && a->state[e->slot] != DONE))
		return false;
	return cat_is_empty(cat_slot_value(a->m, e->slot));
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

/* An operand marked empty reads nothing: its level is LEVEL_STATIC. */
static int operands_level(struct levels *a, struct cat_expr **args, int n)
{
	int level = LEVEL_STATIC;

	for (int i = 0; i < n; i++) {
		int l = expr_level(a, args[i]);

		if (l > level)
			level = l;
	}
	return level;
}

static int binds_level(struct levels *a, struct cat_bind *binds, int n)
{
	int level = LEVEL_STATIC;

	for (int i = 0; i < n; i++) {
		int l = expr_level(a, binds[i].e);

		if (l > level)
			level = l;
	}
	return level;
}

static int let_level(struct levels *a, struct cat_expr *e)
{
	int level = expr_level(a, e->args[0]), l = binds_level(a, e->binds, e->nbinds);

	return l > level ? l : level;
}

/* Every node below e is marked, so that evaluation never meets a stale mark. */
static int expr_level(struct levels *a, struct cat_expr *e)
{
	int level;

	e->empty_here = false;
	switch (e->kind) {
	case X_VAR:
		return e->slot < 0 ? LEVEL_STATIC : slot_level(a, e->slot);
	case X_FUN:
		return expr_level(a, e->args[0]);
	case X_LET:
	case X_LETREC:
		return let_level(a, e);
	case X_TRY:
		return expr_level(a, e->args[e->use_handler]);
	default:
		level = operands_level(a, e->args, e->n);
		e->empty_here = empty_term(a, e);
		return e->empty_here ? LEVEL_STATIC : level;
	}
}

/* The first slot a let binds (an enum binds its name alone). */
static int first_slot(const struct cat_stmt *s)
{
	return s->nbinds ? s->binds[0].slot : s->end_slot;
}

static void set_level(struct levels *a, struct cat_stmt *s, int level, int state)
{
	s->level = level;
	for (int slot = first_slot(s); slot < s->end_slot; slot++) {
		a->m->slots[slot].level = level;
		a->state[slot] = state;
	}
}

/*
 * A let rec is first read with its names empty: if every binding is
 * then empty, so is the least fixpoint.  Otherwise the names take the
 * level of their bindings, round after round until it holds still;
 * until then they are busy, never evaluated.
 */
static void letrec_level(struct levels *a, struct cat_stmt *s)
{
	bool all_empty = true;
	int level;

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

			level = s->level;
			set_level(a, s, grown > level ? grown : level, BUSY);
		} while (s->level != level);
	}
	set_level(a, s, s->level, DONE);
}

static int slot_level(struct levels *a, int slot)
{
	struct cat_slot *sl = &a->m->slots[slot];
	struct cat_stmt *s = sl->definer;

	if (a->state[slot] != UNSEEN || sl->predef || s->kind == S_WITH)
		return sl->level;
	a->state[slot] = BUSY;
	if (s->kind == S_LETREC)
		letrec_level(a, s);
	else
		set_level(a, s, binds_level(a, s->binds, s->nbinds), DONE);
	return sl->level;
}

/* Mark the terms empty for the event structure of m->x, and set the levels. */
void cat_level_analyse(struct cat_model *m)
{
	struct levels a = { m, xcalloc(m->nslots + 1, 1), xcalloc(m->nslots + 1, sizeof(bool)) };

	for (int i = 0; i < m->stmts.len; i++) {
		struct cat_stmt *s = m->stmts.items[i];

		if (s->kind == S_CHECK || s->kind == S_FLAG)
			s->level = expr_level(&a, s->e);
		else if (s->kind == S_WITH)
			binds_level(&a, s->binds, s->nbinds);
		else if (first_slot(s) < s->end_slot)
			slot_level(&a, first_slot(s));
	}
	for (int i = 0; i < m->invariants.len; i++) {
		struct cat_stmt *s = m->invariants.items[i];

		slot_level(&a, s->binds[0].slot);
	}
	free(a.state);
	free(a.assumed_empty);
}
