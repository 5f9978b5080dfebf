/*
 * report.c - herd7's output for a decided test, line for line (and
 * klitmus7's block for what a kernel run saw).
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* How herd7 writes each quantifier, and the kind of test it makes. */
static const struct {
	const char *name, *kind;
} quantifiers[] = {
	[Q_EXISTS] = { "exists", "Allowed" },
	[Q_NOT_EXISTS] = { "~exists", "Forbidden" },
	[Q_FORALL] = { "forall", "Required" },
};

/* Sort states as herd7 does: by each variable's value, in column order. */
static int state_order(const void *a, const void *b, void *ctx)
{
	const struct state *x = a, *y = b;
	const struct outcomes *o = ((void **)ctx)[1];
	const struct program *p = ((void **)ctx)[0];
	int i, c;

	for (i = 0; i < o->nvars; i++) {
		c = value_cmp(p, x->vals[i], y->vals[i]);
		if (c)
			return c;
	}
	return 0;
}

static int flag_order(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void print_var(const struct state_var *v, struct strbuf *out)
{
	if (v->proc >= 0) {
		sb_add_int(out, v->proc);
		sb_adds(out, ":");
		sb_adds(out, v->name);
	} else {
		sb_adds(out, "[");
		sb_adds(out, v->name);
		sb_adds(out, "]");
	}
}

void states_sort(const struct program *p, struct outcomes *o)
{
	void *ctx[2] = { (void *)p, o };

	sort_with(o->states, o->nstates, sizeof(*o->states), state_order, ctx);
}

void state_vars_print(const struct outcomes *o, struct strbuf *out)
{
	int v;

	for (v = 0; v < o->nvars; v++) {
		sb_adds(out, v ? " " : "");
		print_var(&o->vars[v], out);
	}
}

void state_print(const struct program *p, const struct outcomes *o, const struct value *vals,
		 struct strbuf *out)
{
	int v;

	for (v = 0; v < o->nvars; v++) {
		print_var(&o->vars[v], out);
		sb_adds(out, "=");
		value_print(p, o->vars[v].proc < 0 ?
			    value_at_loc(p, o->vars[v].index, vals[v]) : vals[v], out);
		sb_adds(out, v + 1 < o->nvars ? "; " : ";");
	}
}

static void print_states(const struct program *p, const struct outcomes *o,
			 struct strbuf *out)
{
	int i;

	states_sort(p, (struct outcomes *)o);
	sb_addf(out, "States %d\n", o->nstates);
	for (i = 0; i < o->nstates; i++) {
		state_print(p, o, o->states[i].vals, out);
		sb_adds(out, "\n");
	}
}

static void print_cond_loc(const struct cond_loc *l, struct strbuf *out)
{
	if (l->proc >= 0) {
		sb_add_int(out, l->proc);
		sb_adds(out, ":");
		sb_adds(out, l->name);
	} else {
		sb_adds(out, "[");
		sb_adds(out, l->name);
		sb_adds(out, "]");
	}
}

/*
 * herd7 flattens chains of /\ and of \/, and parenthesises a \/ inside a
 * /\ (never the other way round), and writes ~p as "not (p)".  No
 * printf: sb_addf() formats through vsnprintf(), about a thousand
 * instructions a piece of every test's condition.
 */
enum prop_context { IN_TOP, IN_AND, IN_OR };

static void print_prop(const struct prop *pr, enum prop_context above, struct strbuf *out)
{
	bool paren = above == IN_AND && pr->kind == P_OR;

	switch (pr->kind) {
	case P_TRUE:
		sb_adds(out, "true");
		return;
	case P_FALSE:
		sb_adds(out, "false");
		return;
	case P_NOT:
		sb_adds(out, "not (");
		print_prop(pr->left, IN_TOP, out);
		sb_adds(out, ")");
		return;
	case P_ATOM:
		print_cond_loc(&pr->loc, out);
		sb_adds(out, "=");
		if (pr->rhs_is_loc)
			print_cond_loc(&pr->rhs_loc, out);
		else if (pr->value.is_addr)
			sb_adds(out, pr->value.addr_of);
		else
			sb_add_int(out, pr->value.n);
		return;
	case P_AND:
	case P_OR:
		break;
	}
	if (paren)
		sb_adds(out, "(");
	print_prop(pr->left, pr->kind == P_AND ? IN_AND : IN_OR, out);
	sb_adds(out, pr->kind == P_AND ? " /\\ " : " \\/ ");
	print_prop(pr->right, pr->kind == P_AND ? IN_AND : IN_OR, out);
	if (paren)
		sb_adds(out, ")");
}

bool condition_ok(const struct litmus *t, const struct outcomes *o)
{
	switch (t->quantifier) {
	case Q_EXISTS:
		return o->positive > 0;
	case Q_NOT_EXISTS:
		return o->positive == 0;
	default:
		return o->negative == 0;
	}
}

void stats_print(const struct outcomes *o, struct strbuf *out)
{
	sb_addf(out, "Stats combinations=%ld executions=%ld verdicts=%ld twins=%d\n",
		o->combinations, o->candidates, o->verdicts, o->twins);
}

const char *observation(const struct outcomes *o)
{
	if (o->positive == 0)
		return "Never";
	return o->negative == 0 ? "Always" : "Sometimes";
}

static void print_hash(const struct litmus *t, struct strbuf *out)
{
	char hex[33];

	test_digest(t, hex);
	sb_addf(out, "Hash=%s\n", hex);
}

void report(const struct program *p, const struct outcomes *o, double seconds,
	    struct strbuf *out)
{
	const struct litmus *t = p->test;
	bool swap = t->quantifier == Q_NOT_EXISTS;
	struct strbuf cond = { 0 };
	int i;

	sb_addf(out, "Test %s %s\n", t->name, quantifiers[t->quantifier].kind);
	print_states(p, o, out);
	sb_addf(out, "%s\nWitnesses\n", condition_ok(t, o) ? "Ok" : "No");
	sb_addf(out, "Positive: %ld Negative: %ld\n", swap ? o->negative : o->positive,
		swap ? o->positive : o->negative);
	if (o->nflags)
		qsort(o->flags, o->nflags, sizeof(*o->flags), flag_order);
	for (i = 0; i < o->nflags; i++)
		sb_addf(out, "Flag %s\n", o->flags[i]);
	print_prop(t->cond, IN_TOP, &cond);
	sb_addf(out, "Condition %s (%s)\n", quantifiers[t->quantifier].name, cond.buf);
	sb_addf(out, "Observation %s %s %ld %ld\n", t->name, observation(o), o->positive,
		o->negative);
	sb_addf(out, "Time %s %.2f\n", t->name, seconds);
	print_hash(t, out);
	sb_free(&cond);
}

/*
 * klitmus7's result block for the states a kernel run saw: o->states
 * hold the counts and whether each satisfies the condition is decided
 * again here, so that run.c need not know the quantifier's rules.
 */
void report_klitmus(const struct program *p, const struct outcomes *o,
		    const bool *satisfies, double seconds, struct strbuf *out)
{
	const struct litmus *t = p->test;
	bool swap = t->quantifier == Q_NOT_EXISTS;
	struct strbuf cond = { 0 };
	int i;

	sb_addf(out, "Test %s %s\n", t->name, quantifiers[t->quantifier].kind);
	sb_addf(out, "Histogram (%d states)\n", o->nstates);
	for (i = 0; i < o->nstates; i++) {
		sb_addf(out, "%-8ld%c>", o->states[i].count, satisfies[i] ? '*' : ':');
		state_print(p, o, o->states[i].vals, out);
		sb_addf(out, "\n");
	}
	sb_addf(out, "%s\n\nWitnesses\n", condition_ok(t, o) ? "Ok" : "No");
	sb_addf(out, "Positive: %ld, Negative: %ld\n", swap ? o->negative : o->positive,
		swap ? o->positive : o->negative);
	print_prop(t->cond, IN_TOP, &cond);
	sb_addf(out, "Condition %s (%s) is %svalidated\n", quantifiers[t->quantifier].name,
		cond.buf, condition_ok(t, o) ? "" : "NOT ");
	print_hash(t, out);
	sb_addf(out, "Observation %s %s %ld %ld\n", t->name, observation(o), o->positive,
		o->negative);
	sb_addf(out, "Time %s %.2f\n\n", t->name, seconds);
	sb_free(&cond);
}

void prop_print(const struct prop *pr, struct strbuf *out)
{
	print_prop(pr, IN_TOP, out);
}
