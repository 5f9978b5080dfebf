/*
 * explain.c - why an outcome is forbidden or how it happens, in kernel
 * terms, for --explain.
 *
 * A forbidden outcome: enumerate.c kept a candidate execution that ends
 * in it and the check that rejected it, with that check's cycle derived
 * down to base steps (cat_derive_failed): po, rf, co, fr, dependencies,
 * and on the way the kinds of event ([Release], a fence) that made the
 * order.  Consecutive program-order steps through fences become one
 * "hop", and each hop is one sentence that names the source lines at both
 * ends and why the order holds, the model's relation in brackets.
 *
 * An allowed outcome: the witness as a story (what each load read, the
 * order of the stores to each variable) and the program-order pairs it
 * needs out of order that nothing in the test orders.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check.h"

/* What each of the kernel model's checks means, in plain words. */
static const struct {
	const char *check;
	const char *meaning;
} check_meanings[] = {
	{ "coherence", "the accesses to a single variable would have to be seen in an "
	  "order that contradicts program order (coherence)" },
	{ "atomic", "another CPU's store would land between the read and the write of "
	  "an atomic read-modify-write" },
	{ "happens-before", "some event would have to happen before itself: a cycle of "
	  "reads-from links and program order kept by dependencies, fences, "
	  "acquire or release" },
	{ "propagation", "a store would have to reach another CPU later than a strong "
	  "fence (smp_mb(), synchronize_rcu()) after it guarantees" },
	{ "rcu", "an RCU read-side critical section would overlap a grace period that "
	  "must wait for it" },
	{ "plain-coherence", "plain accesses would be seen out of order" },
	{ "ConsCo", "the stores to one variable cannot be put in any single order "
	  "that agrees with what the reads observed" },
	{ "lock-nest", "a CPU would take a spinlock it already holds" },
	{ "nested-is-locked", "spin_is_locked() would report an unlocked lock held by "
	  "the CPU asking" },
	{ "unmatched-locks", "a lock would be held by two CPUs at once" },
};

/*
 * What an event's annotation does for ordering, by the tag herd7 gives
 * it: in lower case up to the 6.14 model, in upper case (ONCE, MB ...)
 * since 6.15, whose .def file writes them.
 */
static const struct {
	const char *tag;
	const char *order;
} tag_orders[] = {
	{ "acquire", "is an acquire load: every access after it waits for it" },
	{ "release", "is a release store: it waits for every access before it" },
	{ "mb", "is a full barrier: everything before it is ordered before everything after it" },
	{ "wmb", "orders the stores before it before the stores after it" },
	{ "rmb", "orders the loads before it before the loads after it" },
	{ "sync-rcu", "is a grace period: it waits for every RCU reader that started before it" },
	{ "before-atomic", "makes the atomic operation after it a full barrier" },
	{ "after-atomic", "makes the atomic operation before it a full barrier" },
	{ "after-spinlock", "makes the lock acquisition before it a full barrier" },
	{ "after-unlock-lock", "makes the unlock and lock before it a full barrier" },
	{ "after-srcu-read-unlock", "makes the srcu_read_unlock() before it a full barrier" },
	{ "rcu-lock", "starts an RCU read-side critical section" },
	{ "rcu-unlock", "ends an RCU read-side critical section" },
};

static const char *meaning_of(const char *check)
{
	size_t i;

	for (i = 0; i < sizeof(check_meanings) / sizeof(*check_meanings); i++)
		if (!strcmp(check_meanings[i].check, check))
			return check_meanings[i].meaning;
	return NULL;
}

static const char *tag_order(const char *tag)
{
	size_t i;

	for (i = 0; i < sizeof(tag_orders) / sizeof(*tag_orders); i++)
		if (!strcasecmp(tag_orders[i].tag, tag))
			return tag_orders[i].order;
	return NULL;
}

/* The text of line `line` of the test, without its indentation. */
static void source_line(const struct litmus *t, int line, struct strbuf *out)
{
	const char *p = t->text;
	size_t len;

	for (; p && *p && line > 1; p++)
		if (*p == '\n')
			line--;
	if (!p)
		return;
	while (*p == ' ' || *p == '\t')
		p++;
	len = strcspn(p, "\n");
	while (len && isspace((unsigned char)p[len - 1]))
		len--;
	sb_addf(out, "%.*s", (int)len, p);
}

/* "P0 line 11 `WRITE_ONCE(*buf, 1);` (buf=1)", or "the initial value of buf (0)". */
static void name_event(const struct program *p, const struct snapshot *s, int id,
		       struct strbuf *out)
{
	const struct event *e = &s->events[id];

	if (e->proc < 0) {
		sb_addf(out, "the initial value of %s (", p->loc_names[e->loc]);
		value_print(p, e->val, out);
		sb_addf(out, ")");
		return;
	}
	sb_addf(out, "P%d line %d `", e->proc, e->line);
	source_line(p->test, e->line, out);
	sb_addf(out, "`");
	if (e->loc >= 0 && e->has_val) {
		sb_addf(out, " (%s %s=", e->kind == EV_READ ? "reads" : "writes",
			p->loc_names[e->loc]);
		value_print(p, e->val, out);
		sb_addf(out, ")");
	}
}

/* "reads the initial value of x (0)" or "reads the value of P0 line 3 ...". */
static void reads_from(const struct program *p, const struct snapshot *s, int w,
		       struct strbuf *out)
{
	sb_addf(out, s->events[w].proc < 0 ? " reads " : " reads the value of ");
	name_event(p, s, w, out);
}

static bool has_tag(const struct event *e, const char *tag)
{
	int i;

	for (i = 0; i < e->ntags; i++)
		if (!strcasecmp(e->tags[i], tag))
			return true;
	return false;
}

/*
 * The annotation the model's set `set` (e.g. Release) stands for on e: one
 * of e's tags of that name, or, for an event the set holds by its kind
 * (spin_lock() is an Acquire), the set's name as a tag.
 */
static const char *filter_tag(const struct event *e, const char *set)
{
	static const char *const kinds[] = { "acquire", "release" };
	size_t i;

	for (i = 0; i < (size_t)e->ntags; i++)
		if (!strcasecmp(e->tags[i], set))
			return e->tags[i];
	for (i = 0; i < sizeof(kinds) / sizeof(*kinds); i++)
		if (!strcasecmp(kinds[i], set))
			return kinds[i];
	return NULL;
}

/* What an ordering annotation does, said of the event that has it. */
static const char *event_order(const struct event *e, const char *tag)
{
	if (!strcasecmp(tag, "acquire") && (e->kind == EV_LOCK_READ || e->kind == EV_LOCK_WRITE))
		return "takes a lock, which is an acquire: every access after it waits for it";
	if (!strcasecmp(tag, "release") && e->kind == EV_UNLOCK)
		return "releases a lock, which is a release: it waits for every access before it";
	/* Since the 6.15 model, xchg() and friends are MB accesses, not fenced ones. */
	if (!strcasecmp(tag, "mb") && (e->kind == EV_READ || e->kind == EV_WRITE))
		return "is a fully ordered read-modify-write: every access before it "
		       "takes effect before it, and it before every access after it";
	return tag_order(tag);
}

/*
 * Whether e is the read or the write of a fully ordered RMW that took
 * place: since the 6.15 model, an MB access, with no fence around it.
 */
static bool fully_ordered_rmw(const struct snapshot *s, int e)
{
	int x;

	if (s->events[e].kind == EV_FENCE || !has_tag(&s->events[e], "mb"))
		return false;
	for (x = 0; x < s->nevents; x++)
		if (rel_has(s->rmw, e, x) || rel_has(s->rmw, x, e))
			return true;
	return false;
}

/*
 * What the event with id orders, by its first tag that orders: nothing
 * for the MB read of an RMW that failed (the model takes its tag away).
 */
static const char *access_order(const struct snapshot *s, int id)
{
	const struct event *e = &s->events[id];
	int j;

	for (j = 0; j < e->ntags; j++) {
		const char *order = event_order(e, e->tags[j]);

		if (order && (strcasecmp(e->tags[j], "mb") || e->kind == EV_FENCE ||
			      fully_ordered_rmw(s, id)))
			return order;
	}
	return NULL;
}

static bool is_po(const struct cat_step *st)
{
	return !st->filter && !st->inverse &&
	       (!strcmp(st->base, "po") || !strcmp(st->base, "po-loc"));
}

/* Why the hop of program order from steps[first] to steps[last] holds. */
static void po_reasons(const struct program *p, const struct snapshot *s, int lead, int first,
		       int last, struct strbuf *out)
{
	const struct event *from = &s->events[s->steps[first].from];
	const struct event *to = &s->events[s->steps[last].to];
	const char *context = s->steps[first].context;
	int n = 0, i, said_line = -1;

	for (i = lead; i <= last; i++) {
		const struct cat_step *st = &s->steps[i];
		const struct event *e = &s->events[st->from];
		const char *tag = st->filter ? filter_tag(e, st->base) : NULL;

		if (!st->filter && i > first) {
			const char *order = access_order(s, st->from);
			bool endpoint = e->line == from->line || e->line == to->line;

			/*
			 * The events of one statement (an RMW, its fences) are said
			 * once, those of an end point's statement only for what they
			 * order.
			 */
			if (e->line == said_line || (endpoint && !order))
				continue;
			said_line = e->line;
			sb_addf(out, "%s", n++ ? "; " : ": ");
			sb_addf(out, "line %d `", e->line);
			source_line(p->test, e->line, out);
			if (endpoint)
				sb_addf(out, "` %s", order);
			else
				sb_addf(out, "` comes between them%s%s", order ? " and " : "",
					order ? order : "");
		} else if (tag && (e == from || e == to) && event_order(e, tag)) {
			sb_addf(out, "%s", n++ ? "; " : ": ");
			sb_addf(out, "line %d %s", e->line, event_order(e, tag));
		}
	}
	if (!n && from->loc >= 0 && from->loc == to->loc)
		sb_addf(out, ": both access %s, and one CPU sees its own accesses to a "
			"variable in order", p->loc_names[from->loc]);
	else if (!n && has_tag(from, "rcu-lock"))
		sb_addf(out, ": it is inside the RCU read-side critical section that line %d "
			"starts", from->line);
	else if (!n && has_tag(to, "rcu-unlock"))
		sb_addf(out, ": it is inside the RCU read-side critical section that line %d "
			"ends", to->line);
	else if (!n)
		sb_addf(out, " in program order");
	if (context)
		sb_addf(out, " [%s]", context);
}

/*
 * One sentence for the hop from steps[first] to steps[last]; the filters
 * from steps[lead] on are about its first event.
 */
static void hop_sentence(const struct program *p, const struct snapshot *s, int lead, int first,
			 int last, struct strbuf *out)
{
	const struct cat_step *st = &s->steps[first];
	int from = st->from, to = s->steps[last].to;
	const char *base = st->base;

	if (is_po(st)) {
		name_event(p, s, to, out);
		sb_addf(out, " is ordered after ");
		name_event(p, s, from, out);
		po_reasons(p, s, lead, first, last, out);
	} else if (!strncmp(base, "rf", 2) && s->events[from].kind == EV_UNLOCK &&
		   s->events[to].kind == EV_LOCK_READ) {
		name_event(p, s, to, out);
		sb_addf(out, " takes the lock ");
		name_event(p, s, from, out);
		sb_addf(out, " released [%s]", base);
	} else if (!strncmp(base, "rf", 2)) {
		name_event(p, s, st->inverse ? from : to, out);
		reads_from(p, s, st->inverse ? to : from, out);
		sb_addf(out, " [%s]", base);
	} else if (!strncmp(base, "fr", 2) && !st->inverse) {
		name_event(p, s, from, out);
		sb_addf(out, " reads a value older than the one ");
		name_event(p, s, to, out);
		sb_addf(out, " stores, so that store comes after it [%s]", base);
	} else if (!strncmp(base, "co", 2) && !st->inverse) {
		name_event(p, s, to, out);
		sb_addf(out, " overwrites ");
		name_event(p, s, from, out);
		sb_addf(out, ": the stores reach memory in that order [%s]", base);
	} else if (!strcmp(base, "rmw")) {
		name_event(p, s, from, out);
		sb_addf(out, " and ");
		name_event(p, s, to, out);
		sb_addf(out, " are the load and the store of one atomic operation [rmw]");
	} else if (!strcmp(base, "addr") || !strcmp(base, "data") || !strcmp(base, "ctrl")) {
		name_event(p, s, to, out);
		sb_addf(out, !strcmp(base, "addr") ? " uses an address computed from what " :
			!strcmp(base, "data") ? " stores a value computed from what " :
			" only happens because a branch tested what ");
		name_event(p, s, from, out);
		sb_addf(out, " read [%s]", base);
	} else if (st->context && !strcmp(st->context, "co0")) {
		name_event(p, s, to, out);
		sb_addf(out, " overwrites ");
		name_event(p, s, from, out);
		sb_addf(out, s->events[from].proc < 0 ? ": initial values come first" :
			": %s ends with the value it stores, so it is the last store",
			p->loc_names[s->events[to].loc]);
		sb_addf(out, " [co0]");
	} else if (st->context && strstr(st->context, "rcu-rscs")) {
		name_event(p, s, st->inverse ? to : from, out);
		sb_addf(out, " and ");
		name_event(p, s, st->inverse ? from : to, out);
		sb_addf(out, " delimit one RCU read-side critical section [%s]", st->context);
	} else {
		name_event(p, s, from, out);
		sb_addf(out, " comes before ");
		name_event(p, s, to, out);
		if (strcmp(base, "?"))
			sb_addf(out, " [%s%s%s%s]", st->inverse ? "inverse of " : "", base,
				st->context ? ", in " : "", st->context ? st->context : "");
		else
			sb_addf(out, " [%s]", st->context ? st->context : "?");
	}
}

static bool same_context(const struct cat_step *a, const struct cat_step *b)
{
	return a->context && b->context && !strcmp(a->context, b->context);
}

/*
 * Where a hop that starts at steps[i] ends: program order runs on through
 * fences, and through other events (a spin_unlock() then spin_lock()) while
 * it is the same relation of the model; anything else is one step.
 */
static int hop_end(const struct snapshot *s, int i)
{
	int last = i, j;

	if (!is_po(&s->steps[i]))
		return i;
	for (j = i + 1; j < s->nsteps; j++) {
		const struct cat_step *st = &s->steps[j];

		if (st->filter)
			continue;
		if (!is_po(st) || (s->events[st->from].kind != EV_FENCE &&
				   !same_context(st, &s->steps[i])))
			break;
		last = j;
	}
	/* Filters right after the hop are about its last event. */
	while (last + 1 < s->nsteps && s->steps[last + 1].filter)
		last++;
	return last;
}

/* The first non-filter step at or after i, or -1. */
static int next_step(const struct snapshot *s, int i)
{
	for (; i < s->nsteps; i++)
		if (!s->steps[i].filter)
			return i;
	return -1;
}

/*
 * The cycle told from its earliest event of the lowest-numbered process,
 * so that it reads in the order the test is written: rotate steps (a
 * copy), keeping the filters on that event with it.
 */
static void rotate_cycle(struct snapshot *s)
{
	int best = -1, i, k;
	struct cat_step *rotated;

	for (i = 0; i < s->nsteps; i++) {
		const struct event *e = &s->events[s->steps[i].from], *b;

		if (s->steps[i].filter || e->proc < 0)
			continue;
		b = best < 0 ? NULL : &s->events[s->steps[best].from];
		if (!b || e->proc < b->proc || (e->proc == b->proc && e->poi < b->poi))
			best = i;
	}
	while (best > 0 && s->steps[best - 1].filter &&
	       s->steps[best - 1].from == s->steps[best].from)
		best--;
	if (best <= 0)
		return;
	rotated = xmalloc(s->nsteps * sizeof(*rotated));
	for (k = 0; k < s->nsteps; k++)
		rotated[k] = s->steps[(best + k) % s->nsteps];
	memcpy(s->steps, rotated, s->nsteps * sizeof(*rotated));
	free(rotated);
}

static void explain_cycle(const struct program *p, struct snapshot *s, struct strbuf *out)
{
	int i, n = 0, first, last;

	if (!s->nsteps) {
		sb_addf(out, "  (the cycle is too long to tell step by step)\n");
		return;
	}
	if (!s->pair)
		rotate_cycle(s);
	sb_addf(out, s->pair ? "  Step by step:\n" : "  Step by step, each event must come "
		"after the one before:\n");
	for (i = 0; (first = next_step(s, i)) >= 0; i = last + 1) {
		last = hop_end(s, first);
		sb_addf(out, "  %d. ", ++n);
		hop_sentence(p, s, i, first, last, out);
		sb_addf(out, ".\n");
	}
	if (s->pair) {
		sb_addf(out, "  The model's '%s' check forbids this", s->check);
		sb_addf(out, meaning_of(s->check) ? ": %s.\n" : ".\n", meaning_of(s->check));
		return;
	}
	sb_addf(out, "  That leads back to ");
	name_event(p, s, s->steps[next_step(s, 0)].from, out);
	sb_addf(out, ": it would have to come after itself.  The model's '%s' check "
		"forbids such a cycle, so the outcome cannot happen.\n", s->check);
}

/* "P0 line 12 `r0 = READ_ONCE(*y);` (reads y=0) reads the initial value of y (0)." */
static void witness_reads(const struct program *p, const struct snapshot *s,
			  struct strbuf *out)
{
	int r, w;

	for (r = 0; r < s->nevents; r++) {
		if (s->events[r].kind != EV_READ)
			continue;
		for (w = 0; w < s->nevents; w++) {
			if (!rel_has(s->rf, w, r))
				continue;
			sb_addf(out, "    ");
			name_event(p, s, r, out);
			reads_from(p, s, w, out);
			sb_addf(out, ".\n");
		}
	}
}

/* The order in which the stores to each variable with several reach memory. */
static void witness_coherence(const struct program *p, const struct snapshot *s,
			      struct strbuf *out)
{
	int loc, w, v;

	if (!s->co)
		return;
	for (loc = 0; loc < p->nlocs; loc++) {
		int stores = 0;

		for (w = 0; w < s->nevents; w++)
			stores += s->events[w].kind == EV_WRITE && s->events[w].loc == loc &&
				  s->events[w].proc >= 0;
		if (stores < 2)
			continue;
		sb_addf(out, "    The stores to %s reach memory in this order:", p->loc_names[loc]);
		/* A write's place is how many writes to loc come before it. */
		for (v = 0; v <= stores; v++) {
			for (w = 0; w < s->nevents; w++) {
				int before = 0, x;

				if (s->events[w].kind != EV_WRITE || s->events[w].loc != loc)
					continue;
				for (x = 0; x < s->nevents; x++)
					before += rel_has(s->co, x, w);
				if (before != v)
					continue;
				sb_addf(out, "%s", v ? ",\n      then " : "\n      ");
				name_event(p, s, w, out);
			}
		}
		sb_addf(out, ".\n");
	}
}

/* From-read: load r reads a store that store w follows in coherence order. */
static bool reads_before(const struct snapshot *s, int r, int w)
{
	int x;

	for (x = 0; x < s->nevents && s->co; x++)
		if (rel_has(s->rf, x, r) && rel_has(s->co, x, w))
			return true;
	return false;
}

bool sc_before(const struct snapshot *s, int a, int b)
{
	return rel_has(s->po, a, b) || rel_has(s->rf, a, b) ||
	       (s->co && rel_has(s->co, a, b)) || reads_before(s, a, b);
}

/* Whether something in the test orders the program-order pair a, b. */
static bool syntactically_ordered(const struct snapshot *s, int a, int b)
{
	const struct event *ea = &s->events[a], *eb = &s->events[b];
	int f;

	if ((ea->kind == EV_READ && has_tag(ea, "acquire")) ||
	    (eb->kind == EV_WRITE && has_tag(eb, "release")) ||
	    fully_ordered_rmw(s, a) || fully_ordered_rmw(s, b) ||
	    rel_has(s->addr, a, b) || rel_has(s->data, a, b) || rel_has(s->ctrl, a, b) ||
	    (ea->loc >= 0 && ea->loc == eb->loc))
		return true;
	for (f = 0; f < s->nevents; f++)
		if ((s->events[f].kind == EV_FENCE || fully_ordered_rmw(s, f)) &&
		    rel_has(s->po, a, f) && rel_has(s->po, f, b))
			return true;
	return false;
}

/*
 * An outcome no sequential interleaving gives needs some pair of accesses
 * of one CPU to take effect out of program order: a cycle of program
 * order and communication (rf, co, fr) in the witness.  Its pairs that
 * nothing in the test orders go to pairs (a, b, a, b ...); how many, or
 * -1 when there is no such cycle.
 */
static int unordered_pairs(const struct snapshot *s, int *pairs, int max)
{
	int n = s->nevents, cycle[64], len, i, found = 0;
	struct rel *sc = rel_new(n);

	for (i = 0; i < n; i++) {
		int j;

		for (j = 0; j < n; j++) {
			if (s->events[i].kind == EV_FENCE || s->events[j].kind == EV_FENCE)
				continue;
			if (sc_before(s, i, j))
				rel_add(sc, i, j);
		}
	}
	len = rel_find_cycle(sc, cycle, 64);
	free(sc);
	if (!len)
		return -1;
	for (i = 0; i < len && found < max; i++) {
		int a = cycle[i], b = cycle[(i + 1) % len];

		if (rel_has(s->po, a, b) && !syntactically_ordered(s, a, b)) {
			pairs[2 * found] = a;
			pairs[2 * found + 1] = b;
			found++;
		}
	}
	return found;
}

static void witness_reordering(const struct program *p, const struct snapshot *s,
			       struct strbuf *out)
{
	int pairs[2 * 32], n = unordered_pairs(s, pairs, 32), i;

	if (n < 0) {
		sb_addf(out, "  Some interleaving of the processes, one statement at a time, "
			"gives this outcome.\n");
		return;
	}
	if (!n) {
		sb_addf(out, "  No interleaving gives it, and each program-order pair it needs "
			"reordered has some ordering in the test, but not one strong enough: "
			"for example smp_wmb() orders only stores, smp_rmb() only loads, and "
			"only a full barrier orders a store before a later load.\n");
		return;
	}
	sb_addf(out, "  No interleaving gives it: it needs these accesses to take effect out "
		"of program order, and nothing in the test orders them (no fence, acquire, "
		"release or dependency between them):\n");
	for (i = 0; i < n; i++) {
		sb_addf(out, "    ");
		name_event(p, s, pairs[2 * i], out);
		sb_addf(out, "\n      then ");
		name_event(p, s, pairs[2 * i + 1], out);
		sb_addf(out, "\n");
	}
}

void explain(const struct program *p, const struct outcomes *o, struct strbuf *out)
{
	const struct litmus *t = p->test;
	struct strbuf cond = { 0 };
	long total = o->positive + o->negative;
	int i;

	prop_print(t->cond, &cond);
	sb_addf(out, "Explanation:\n");
	if (o->positive) {
		sb_addf(out, "  The outcome (%s) is allowed: %ld of the %ld executions the model "
			"accepts end in it.\n", cond.buf, o->positive, total);
	} else {
		sb_addf(out, "  The outcome (%s) is forbidden: none of the %ld executions the "
			"model accepts ends in it.\n", cond.buf, total);
	}
	for (i = 0; i < o->nreasons; i++) {
		const char *meaning = meaning_of(o->reasons[i]);

		sb_addf(out, "  %ld candidate execution%s reaching it violate%s '%s'",
			o->reason_counts[i], o->reason_counts[i] == 1 ? "" : "s",
			o->reason_counts[i] == 1 ? "s" : "", o->reasons[i]);
		sb_addf(out, meaning ? ": %s.\n" : ".\n", meaning);
	}
	if (!o->positive && !o->nreasons)
		sb_addf(out, "  No run of the processes can produce those values at all.\n");
	if (o->witness) {
		sb_addf(out, "  It happens when:\n");
		witness_reads(p, o->witness, out);
		witness_coherence(p, o->witness, out);
		witness_reordering(p, o->witness, out);
		sb_addf(out, "  (--suggest lists the cheapest changes that forbid it.)\n");
	} else if (o->counterexample) {
		sb_addf(out, "  Take the candidate execution (a way the processes could run, "
			"before the model's checks) where:\n");
		witness_reads(p, o->counterexample, out);
		witness_coherence(p, o->counterexample, out);
		explain_cycle(p, o->counterexample, out);
	}
	for (i = 0; i < o->nflags; i++)
		sb_addf(out, "  Flag %s: some accepted execution %s.\n", o->flags[i],
			!strcmp(o->flags[i], "data-race") ?
			"has a data race (plain accesses not ordered against each other)" :
			"raises this flag of the model");
	sb_free(&cond);
}

/* A Graphviz string: quotes and backslashes escaped. */
static void dot_string(const char *text, struct strbuf *out)
{
	for (; *text; text++) {
		if (*text == '\n')
			sb_addf(out, "\\n");
		else
			sb_addf(out, *text == '"' || *text == '\\' ? "\\%c" : "%c", *text);
	}
}

/* An event's box: "P0 line 15: W[once] buf=1" over its statement. */
static void dot_event(const struct program *p, const struct snapshot *s, int id,
		      struct strbuf *out)
{
	const struct event *e = &s->events[id];
	struct strbuf label = { 0 };

	if (e->proc < 0) {
		sb_addf(&label, "initial value: %s=", p->loc_names[e->loc]);
		value_print(p, e->val, &label);
	} else {
		sb_addf(&label, "P%d line %d: ", e->proc, e->line);
		event_print(p, e, &label);
		sb_addf(&label, "\n");
		source_line(p->test, e->line, &label);
	}
	sb_addf(out, "  e%d [label=\"", id);
	dot_string(label.buf, out);
	sb_addf(out, "\"];\n");
	sb_free(&label);
}

/* Whether some edge of the picture touches event id (initial values are drawn only then). */
static bool drawn(const struct snapshot *s, int id)
{
	int i;

	if (s->events[id].proc >= 0)
		return true;
	for (i = 0; i < s->nevents; i++)
		if (rel_has(s->rf, id, i) || (s->co && (rel_has(s->co, id, i))))
			return true;
	for (i = 0; i < s->nsteps; i++)
		if (s->steps[i].from == id || s->steps[i].to == id)
			return true;
	return false;
}

/*
 * Events one column per process, in program order, left to right: a
 * header node per process, all on one rank and chained by invisible
 * edges (which dot lays out left to right), above each process' events.
 * The initial values drawn are those some edge touches.
 */
static void dot_events(const struct program *p, const struct snapshot *s, struct strbuf *out)
{
	int proc, i, prev;

	sb_addf(out, "  subgraph cluster_init {\n    label=\"initial values\"; style=dotted;\n");
	for (i = 0; i < s->nevents; i++)
		if (s->events[i].proc < 0 && drawn(s, i))
			dot_event(p, s, i, out);
	sb_addf(out, "  }\n  { rank=same;");
	for (proc = 0; proc < p->nprocs; proc++)
		sb_addf(out, " P%d [shape=plaintext, fontname=\"sans-serif\"];", proc);
	sb_addf(out, " }\n");
	for (proc = 1; proc < p->nprocs; proc++)
		sb_addf(out, "  P%d -> P%d [style=invis];\n", proc - 1, proc);
	for (proc = 0; proc < p->nprocs; proc++) {
		prev = -1;
		for (i = 0; i < s->nevents; i++) {
			if (s->events[i].proc != proc)
				continue;
			dot_event(p, s, i, out);
			if (prev >= 0)
				sb_addf(out, "  e%d -> e%d [label=\"po\", color=gray, weight=10];\n",
					prev, i);
			else
				sb_addf(out, "  P%d -> e%d [style=invis, weight=10];\n", proc, i);
			prev = i;
		}
	}
}

/* Whether the cycle drawn in red already has an edge from a to b. */
static bool on_cycle(const struct snapshot *s, int a, int b)
{
	int i, first, last;

	for (i = 0; (first = next_step(s, i)) >= 0; i = last + 1) {
		last = hop_end(s, first);
		if (s->steps[first].from == a && s->steps[last].to == b)
			return true;
	}
	return false;
}

/* rf, co and fr, as the execution has them, but those the red cycle draws. */
static void dot_communication(const struct snapshot *s, struct strbuf *out)
{
	int a, b;

	for (a = 0; a < s->nevents; a++) {
		for (b = 0; b < s->nevents; b++) {
			if (on_cycle(s, a, b))
				continue;

			if (rel_has(s->rf, a, b))
				sb_addf(out, "  e%d -> e%d [label=\"rf\", color=darkgreen, "
					"constraint=false];\n", a, b);
			if (s->co && rel_has(s->co, a, b) && s->events[a].proc >= 0)
				sb_addf(out, "  e%d -> e%d [label=\"co\", color=blue, "
					"constraint=false];\n", a, b);
			if (s->events[b].proc >= 0 && reads_before(s, a, b))
				sb_addf(out, "  e%d -> e%d [label=\"fr\", color=orange, "
					"constraint=false];\n", a, b);
		}
	}
}

/* The failed check's cycle, hop by hop, in red with the model's relations. */
static void dot_cycle(const struct snapshot *s, struct strbuf *out)
{
	int i, first, last, n = 0;

	for (i = 0; (first = next_step(s, i)) >= 0; i = last + 1) {
		const struct cat_step *st = &s->steps[first];

		last = hop_end(s, first);
		sb_addf(out, "  e%d -> e%d [label=\"%d. %s\", color=red, fontcolor=red, "
			"penwidth=2, constraint=false];\n", st->from, s->steps[last].to, ++n,
			st->context && is_po(st) ? st->context : st->base);
	}
}

void explain_graph(const struct program *p, const struct outcomes *o, struct strbuf *out)
{
	struct snapshot *s = o->witness ? o->witness : o->counterexample;

	sb_addf(out, "digraph \"");
	dot_string(p->test->name, out);
	sb_addf(out, "\" {\n  label=\"");
	dot_string(p->test->name, out);
	if (!s) {
		sb_addf(out, ": no execution reaches the outcome\";\n}\n");
		return;
	}
	sb_addf(out, o->witness ? ": an execution with the outcome\";\n" :
		": a candidate with the outcome, rejected by '%s'\";\n", s->check);
	sb_addf(out, "  node [shape=box, fontname=\"monospace\"];\n");
	dot_events(p, s, out);
	dot_communication(s, out);
	if (!o->witness) {
		if (!s->pair)
			rotate_cycle(s);
		dot_cycle(s, out);
	} else {
		int pairs[2 * 32], n = unordered_pairs(s, pairs, 32), i;

		for (i = 0; i < n; i++)
			sb_addf(out, "  e%d -> e%d [label=\"not ordered\", color=red, fontcolor=red, "
				"style=dashed, constraint=false];\n", pairs[2 * i], pairs[2 * i + 1]);
	}
	sb_addf(out, "}\n");
}
