/*
 * catmono.c - which checks of a model can judge a partial execution.
 *
 * The enumerator adds reads-from edges one read at a time.  A check
 * whose relation can only grow as rf grows (and as the relations that a
 * `with` chooses grow) and that fails already on a partial execution
 * fails on every execution that completes it: acyclic, irreflexive and
 * empty only get harder to satisfy with more edges.  Such a check can
 * cut the search early.  Which checks qualify is read off the model's
 * own text: an expression grows with its operands through union,
 * intersection, sequence, product, closures and inverse, and turns
 * around through complement and the right side of a difference.
 *
 * A partial run binds each `with` to {}, which is below every choice,
 * so the relations a with chooses count as growing too.
 *
 * Polarities are bit sets: GROWS (may gain pairs as the inputs grow),
 * SHRINKS (may lose pairs); 0 is a value that does not move, and both
 * bits one we know nothing of.  A term empty for this event structure
 * (catlevel.c) does not move: the analysis is redone whenever the
 * event structure changes, so that e.g. a term about locks is ignored in
 * a test with none.
 */
#include <stdlib.h>
#include <string.h>

#include "catast.h"

enum { GROWS = 1, SHRINKS = 2, ANYHOW = 3 };

/* How deep applications of the model's functions are followed. */
enum { MAX_DEPTH = 32 };

/* The polarity of local names in scope. */
struct penv {
	const char *name;
	int pol;
	const struct penv *up;
};

struct mono {
	struct cat_eval *ev;
	signed char *slot_pol;	/* per slot: its polarity, or -1 not known yet */
	int depth;
};

static int expr_pol(struct mono *a, const struct cat_expr *e, const struct penv *env);

static int flip(int pol)
{
	return (pol & GROWS ? SHRINKS : 0) | (pol & SHRINKS ? GROWS : 0);
}

/* The names of pat, all of polarity pol, in cells. */
static const struct penv *bind_pat(const struct cat_pat *pat, int pol, const struct penv *env,
				   struct penv *cells)
{
	for (int i = 0; i < pat->n; i++) {
		cells[i].name = pat->names[i];
		cells[i].pol = pol;
		cells[i].up = env;
		env = &cells[i];
	}
	return env;
}

/* The polarity of f applied to arg. */
static int app_pol(struct mono *a, const struct cat_expr *f, const struct cat_expr *arg,
		   const struct penv *env)
{
	int argp = expr_pol(a, arg, env), pol;
	const struct cat_slot *sl;
	const struct cat_expr *fun;

	if (f->kind != X_VAR || f->slot < 0)
		return (expr_pol(a, f, env) | argp) ? ANYHOW : 0;
	sl = &a->ev->m->slots[f->slot];
	if (sl->predef) {
		/* Of the primitives, these keep or filter their argument's pairs. */
		static const char *const keeping[] = { "domain", "range", "different-values" };

		for (size_t i = 0; i < sizeof(keeping) / sizeof(keeping[0]); i++)
			if (!strcmp(sl->name, keeping[i]))
				return argp;
		return argp ? ANYHOW : 0;
	}
	if (!sl->definer || sl->definer->kind != S_LET || sl->definer->nbinds != 1 ||
	    sl->definer->binds[0].pat.tuple || sl->definer->binds[0].e->kind != X_FUN)
		return (expr_pol(a, f, env) | argp) ? ANYHOW : 0;
	if (a->depth >= MAX_DEPTH)
		return ANYHOW;
	fun = sl->definer->binds[0].e;
	{
		struct penv cells[fun->param.n + 1];
		const struct penv *inner;

		if (fun->param.tuple && arg->kind == X_TUPLE && arg->n == fun->param.n) {
			inner = NULL;
			for (int i = 0; i < fun->param.n; i++) {
				cells[i].name = fun->param.names[i];
				cells[i].pol = expr_pol(a, arg->args[i], env);
				cells[i].up = inner;
				inner = &cells[i];
			}
		} else {
			inner = bind_pat(&fun->param, argp, NULL, cells);
		}
		a->depth++;
		pol = expr_pol(a, fun->args[0], inner);
		a->depth--;
	}
	return pol;
}

/* let and let rec inside an expression. */
static int let_pol(struct mono *a, const struct cat_expr *e, const struct penv *env)
{
	int n = 0;

	for (int i = 0; i < e->nbinds; i++)
		n += e->binds[i].pat.n;
	{
		struct penv cells[n + 1];
		const struct penv *inner = env;
		int k = 0;

		for (int i = 0; i < e->nbinds; i++) {
			int pol = e->kind == X_LETREC ? 0 : expr_pol(a, e->binds[i].e, env);

			inner = bind_pat(&e->binds[i].pat, pol, inner, cells + k);
			k += e->binds[i].pat.n;
		}
		if (e->kind == X_LETREC) {
			/* Grow the names' polarities until a round changes none. */
			for (bool again = true; again;) {
				again = false;
				k = 0;
				for (int i = 0; i < e->nbinds; i++) {
					int pol = expr_pol(a, e->binds[i].e, inner);

					for (int j = 0; j < e->binds[i].pat.n; j++, k++) {
						again |= (cells[k].pol | pol) != cells[k].pol;
						cells[k].pol |= pol;
					}
				}
			}
		}
		return expr_pol(a, e->args[0], inner);
	}
}

static int operands_pol(struct mono *a, const struct cat_expr *e, const struct penv *env)
{
	int pol = 0;

	for (int i = 0; i < e->n; i++)
		pol |= expr_pol(a, e->args[i], env);
	return pol;
}

static int local_pol(const struct cat_expr *e, const struct penv *env)
{
	for (; env; env = env->up)
		if (env->name == e->name)
			return env->pol;
	return ANYHOW;
}

static int slot_pol(struct mono *a, int slot);

static int expr_pol(struct mono *a, const struct cat_expr *e, const struct penv *env)
{
	if (expr_marks(a->ev, e)->empty_here)
		return 0;
	switch (e->kind) {
	case X_VAR:
		return e->slot >= 0 ? slot_pol(a, e->slot) : local_pol(e, env);
	case X_TAG: case X_ZERO: case X_EMPTY: case X_UNIV:
		return 0;
	case X_DIFF:
		return expr_pol(a, e->args[0], env) | flip(expr_pol(a, e->args[1], env));
	case X_COMP:
		return flip(expr_pol(a, e->args[0], env));
	case X_APP:
		return app_pol(a, e->args[0], e->args[1], env);
	case X_FUN: {
		/* As a value, a function is known only if it reads nothing moving. */
		struct penv cells[e->param.n + 1];

		return expr_pol(a, e->args[0], bind_pat(&e->param, 0, env, cells))
			       ? ANYHOW : 0;
	}
	case X_LET:
	case X_LETREC:
		return let_pol(a, e, env);
	case X_TRY:
		return expr_pol(a, e->args[e->use_handler], env);
	default:	/* | * ++ ^-1 + * ? [] {..} (..): as their operands */
		return operands_pol(a, e, env);
	}
}

/* A top-level let rec: its names grow together until a round changes none. */
static void letrec_pols(struct mono *a, const struct cat_stmt *s)
{
	for (int i = 0; i < s->nbinds; i++)
		a->slot_pol[s->binds[i].slot] = 0;
	for (bool again = true; again;) {
		again = false;
		for (int i = 0; i < s->nbinds; i++) {
			int slot = s->binds[i].slot, pol = expr_pol(a, s->binds[i].e, NULL);

			again |= (a->slot_pol[slot] | pol) != a->slot_pol[slot];
			a->slot_pol[slot] |= pol;
		}
	}
}

static int slot_pol(struct mono *a, int slot)
{
	const struct cat_slot *sl = &a->ev->m->slots[slot];
	const struct cat_stmt *s = sl->definer;

	if (a->slot_pol[slot] >= 0)
		return a->slot_pol[slot];
	a->slot_pol[slot] = ANYHOW;	/* while computing it */
	if (sl->predef) {
		/* rf is what grows; the rest of the execution stays put. */
		a->slot_pol[slot] = !strcmp(sl->predef->name, "rf") ? GROWS : 0;
	} else if (s->kind == S_WITH) {
		a->slot_pol[slot] = GROWS;
	} else if (s->kind == S_LETREC) {
		letrec_pols(a, s);
	} else {
		for (int i = 0; i < s->nbinds; i++) {
			const struct cat_bind *b = &s->binds[i];

			if (slot >= b->slot && slot < b->slot + b->pat.n)
				a->slot_pol[slot] = (signed char)expr_pol(a, b->e, NULL);
		}
	}
	return a->slot_pol[slot];
}

/*
 * Mark the checks that can judge a partial execution, for the event
 * structure of ev->x: an acyclic, irreflexive or empty check, not
 * negated, whose relation never loses pairs as rf and the withs grow.
 */
void cat_mono_analyse(struct cat_eval *ev)
{
	const struct cat_model *m = ev->m;
	struct mono a = { ev, xmalloc(m->nslots ? m->nslots : 1), 0 };

	memset(a.slot_pol, -1, m->nslots);
	for (int i = 0; i < m->steps.len; i++) {
		const struct cat_stmt *s = m->steps.items[i];

		stmt_state(ev, s)->prunes = s->kind == S_CHECK && !s->negated &&
					    !(expr_pol(&a, s->e, NULL) & SHRINKS);
	}
	free(a.slot_pol);
}
