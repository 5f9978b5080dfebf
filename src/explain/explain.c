/*
 * explain.c - why an outcome is forbidden or how it happens, in kernel
 * terms, for --explain (docs/explanations.md shows the layout).
 *
 * First the verdict in one line, with the test's Result: comment and the
 * name of the classic shape the cycle has; then the cycle as a one-line
 * chain, the steps, why the check applies, and a legend of the words
 * used.
 *
 * A forbidden outcome: enumerate.c kept each distinct candidate execution
 * that ends in it and the check that rejected it, with that check's cycle
 * derived down to base steps (cat_derive_failed): po, rf, co, fr,
 * dependencies, and on the way the kinds of event ([Release], a fence)
 * that made the order.  Consecutive program-order steps through fences
 * become one "hop", and each hop is one sentence that names the source
 * lines at both ends and why the order holds, labelled by what orders it
 * (release, mb, rf ...), the model's relation kept for the legend.
 *
 * An allowed outcome: the witness as a story (what each load read, the
 * order of the stores to each variable), the program-order pairs it
 * needs out of order that nothing in the test orders, and the locks that
 * a CPU of the cycle does not take.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "explain.h"

/* What each of the kernel model's checks means, in plain words. */
static const struct {
	const char *check;
	const char *meaning;
	const char *rule;	/* the same as a rule, said where the check is named */
} check_meanings[] = {
	{ "coherence", "the accesses to a single variable would have to be seen in an "
	  "order that contradicts program order (coherence)",
	  "every CPU sees one order of the accesses to a variable" },
	{ "atomic", "another CPU's store would land between the read and the write of "
	  "an atomic read-modify-write", "no store lands inside an atomic read-modify-write" },
	{ "happens-before", "the order in time.  Program order counts where a dependency, "
	  "a fence, an acquire or a release keeps it; a load comes after the store it reads "
	  "(rf); a load that read an older value comes before a store that a release or "
	  "fence carried to its CPU (fr).  The check fails when some event would have to "
	  "happen before itself", "no event happens before itself" },
	{ "propagation", "a store would have to reach a CPU later than a strong fence "
	  "allows: a strong fence (smp_mb(), synchronize_rcu(), smp_mb__after_spinlock() "
	  "after a lock, smp_mb__before_atomic() or smp_mb__after_atomic() beside an RMW) "
	  "waits until every store its CPU has seen has reached every CPU",
	  "a full barrier waits until the stores its CPU has seen have reached every CPU" },
	{ "rcu", "an RCU read-side critical section would overlap a grace period that "
	  "must wait for it", "a grace period waits for the readers that started before it" },
	{ "plain-coherence", "plain accesses would be seen out of order", NULL },
	{ "ConsCo", "the stores to one variable cannot be put in any single order "
	  "that agrees with what the reads observed", NULL },
	{ "lock-nest", "a CPU would take a spinlock it already holds", NULL },
	{ "nested-is-locked", "spin_is_locked() would report an unlocked lock held by "
	  "the CPU asking", NULL },
	{ "unmatched-locks", "a lock would be held by two CPUs at once", NULL },
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
	{ "release", "is a release store: it orders every earlier access before it" },
	{ "mb", "is a full barrier: everything before it is ordered before everything after it" },
	{ "wmb", "orders the stores before it before the stores after it" },
	{ "rmb", "orders the loads before it before the loads after it" },
	{ "sync-rcu", "is a grace period: it waits for every RCU reader that started before it" },
	{ "before-atomic", "makes the atomic operation after it a full barrier" },
	{ "after-atomic", "makes the atomic operation before it a full barrier" },
	{ "after-spinlock", "is a full barrier placed after the lock is taken: everything "
	  "before it, the lock included, is ordered before everything after it" },
	{ "after-unlock-lock", "makes the unlock and lock before it a full barrier" },
	{ "after-srcu-read-unlock", "makes the srcu_read_unlock() before it a full barrier" },
	{ "rcu-lock", "starts an RCU read-side critical section" },
	{ "rcu-unlock", "ends an RCU read-side critical section" },
};

/*
 * The words the steps and the chain are labelled with, for the legend: a
 * relation herd7 gives every model, or a tag of the kernel's .def file,
 * each with the section of the kernel's explanation.txt that tells of
 * it.  A word not here (an edited model's) is listed without a gloss.
 */
static const struct {
	const char *word;
	const char *gloss;
	const char *section;
} glosses[] = {
	{ "po", "program order, the order the statements of one CPU are written in; "
	  "alone, it orders nothing another CPU can see except accesses to one variable "
	  "(coherence)", "THE PROGRAM ORDER RELATION: po AND po-loc" },
	{ "po-loc", "program order between accesses to one variable, which a CPU "
	  "always keeps", "THE PROGRAM ORDER RELATION: po AND po-loc" },
	{ "rf", "reads-from: a load takes the value a store wrote",
	  "THE READS-FROM RELATION: rf, rfi, and rfe" },
	{ "co", "coherence order: the one order in which every CPU sees the stores to a "
	  "variable",
	  "CACHE COHERENCE AND THE COHERENCE ORDER RELATION: co, coi, and coe" },
	{ "fr", "from-reads: a load reads a value older than a store's: it ran before "
	  "that store reached its CPU", "THE FROM-READS RELATION: fr, fri, and fre" },
	{ "addr", "address dependency: the access's address is computed from a load, "
	  "and a CPU cannot make the access before it knows the address; the compiler "
	  "keeps it while the pointer is used as loaded (not compared with a known "
	  "address first)",
	  "DEPENDENCY RELATIONS: data, addr, and ctrl" },
	{ "data", "data dependency: the stored value is computed from a load",
	  "DEPENDENCY RELATIONS: data, addr, and ctrl" },
	{ "ctrl", "control dependency: the access is under a branch on a load",
	  "DEPENDENCY RELATIONS: data, addr, and ctrl" },
	{ "rmw", "the load and the store of one atomic read-modify-write",
	  "ATOMIC UPDATES: rmw" },
	{ "release", "smp_store_release(), rcu_assign_pointer(), spin_unlock(): every "
	  "access before it in program order comes first, and the stores its CPU had seen "
	  "before the release reach each CPU before the released store does",
	  "THE PRESERVED PROGRAM ORDER RELATION: ppo" },
	{ "acquire", "smp_load_acquire(), spin_lock(): "
	  "every access after it in program order comes after it",
	  "THE PRESERVED PROGRAM ORDER RELATION: ppo" },
	{ "mb", "a full barrier (smp_mb(), a fully ordered atomic): everything before it "
	  "comes before everything after it, and every store that has reached its CPU (its "
	  "own too) reaches every CPU before anything after it runs",
	  "PROPAGATION ORDER RELATION: cumul-fence" },
	{ "wmb", "smp_wmb(): orders stores only", "PROPAGATION ORDER RELATION: cumul-fence" },
	{ "rmb", "smp_rmb(): orders loads only", "THE PRESERVED PROGRAM ORDER RELATION: ppo" },
	{ "unlock-lock", "a lock handed on: one CPU's spin_unlock(), then another CPU's "
	  "spin_lock() taking that lock: everything before the unlock comes before everything "
	  "after the lock, and the stores before the unlock reach every CPU before the stores "
	  "after the lock do", "LOCKING" },
	{ "after-spinlock", "smp_mb__after_spinlock(): the spin_lock() before it becomes a "
	  "full barrier", "LOCKING" },
	{ "after-unlock-lock", "smp_mb__after_unlock_lock(): the unlock and lock before it "
	  "become a full barrier", "LOCKING" },
	{ "before-atomic", "smp_mb__before_atomic(): the atomic operation after it becomes "
	  "a full barrier", "ATOMIC UPDATES: rmw" },
	{ "after-atomic", "smp_mb__after_atomic(): the atomic operation before it becomes "
	  "a full barrier", "ATOMIC UPDATES: rmw" },
	{ "sync-rcu", "synchronize_rcu(): a grace period", "RCU RELATIONS" },
	{ "happens-before", NULL, "THE HAPPENS-BEFORE RELATION: hb" },
	{ "propagation", NULL, "THE PROPAGATES-BEFORE RELATION: pb" },
	{ "coherence", NULL, "SEQUENTIAL CONSISTENCY PER VARIABLE" },
	{ "atomic", NULL, "ATOMIC UPDATES: rmw" },
	{ "rcu", NULL, "RCU RELATIONS" },
	{ "plain-coherence", NULL, "PLAIN ACCESSES AND DATA RACES" },
	{ "data-race", NULL, "PLAIN ACCESSES AND DATA RACES" },
};

/*
 * The classic shapes, by their cycle: per process, "po" for two or more
 * events in program order or "-" for one, then how the cycle leaves it
 * for the next process (rf, co, fr).
 */
static const struct {
	const char *shape;
	const char *name;
	const char *kernel;	/* where kernel code meets it, on a line of its own */
	const char *recipe;	/* the section of recipes.txt that shows it */
} shapes[] = {
#define SB_SHAPE 1
	{ "po rf po fr", "MP (message passing: data published behind a flag or a pointer)",
	  "publish with smp_store_release() and check with smp_load_acquire(), or, for a "
	  "pointer, rcu_assign_pointer() and rcu_dereference(); every store that initialises "
	  "the data, plain ones too, goes before the publishing one", "Message passing (MP)" },
	{ "po fr po fr", "SB (store buffering)", "for example, the sleep/wake-up pattern.  A "
	  "sleeper stores "
	  "its task state (set_current_state(), whose smp_store_mb() is the sleeper's barrier), "
	  "then loads the "
	  "condition; a waker stores the condition, then loads the task state (in wake_up()).  "
	  "This outcome is the lost wake-up: the sleeper misses the condition and the waker "
	  "misses the sleeper.  Safe: a plain wake_up(), which takes the wait-queue lock the "
	  "sleeper's prepare_to_wait() took.  Not safe: testing waitqueue_active() before "
	  "wake_up(); use wq_has_sleeper(), whose smp_mb() is the waker's barrier",
	  "Store buffering" },
	{ "po rf po rf", "LB (load buffering)", NULL, NULL },
	{ "po co po fr", "R (a store overwritten by another CPU's, which then loads)", NULL, NULL },
	{ "po rf po co", "S (a message whose flag store is overwritten)", NULL, NULL },
	{ "po co po co", "2+2W (two CPUs each storing twice)", NULL, NULL },
	{ "- rf po rf po fr", "WRC (write-to-read causality)", NULL, NULL },
	{ "- rf po fr po fr", "RWC (read-to-write causality)", NULL, NULL },
	{ "- rf po rf po co", "WWC (write-to-write causality)", NULL, NULL },
	{ "po rf po rf po fr", "ISA2 (message passing through a third CPU)", "a message passed "
	  "along a chain of CPUs: each CPU passes it on with a release or a lock hand-off, "
	  "which carry on what their CPU has seen, and the last reads it with an acquire or "
	  "orders its loads", "Release-acquire chains" },
	{ "po rf po co po fr", "Z6.0 (like ISA2, a message passed on through a third CPU, but "
	  "the third CPU overwrites the second CPU's store instead of reading it)",
	  "a store that is overwritten without being read carries no ordering, so the CPUs on "
	  "both sides of the overwrite need full barriers.  With a lock: an unlock then a "
	  "lock is not a full barrier for CPUs that do not take the lock (they see critical "
	  "sections in order only through what they read); "
	  "smp_mb__after_spinlock() right after the spin_lock() makes it one (the scheduler's "
	  "__schedule() and try_to_wake_up() use it so), and a CPU outside the lock that "
	  "overwrites a store made under it needs smp_mb() between that store and its later "
	  "loads", "Locking" },
	{ "po fr po fr po fr", "3.SB (store buffering on three CPUs)", NULL, NULL },
	{ "po rf po rf po rf", "3.LB (load buffering on three CPUs)", NULL, NULL },
	{ "- rf po fr - rf po fr", "IRIW (independent reads of independent writes)", NULL, NULL },
};

static const char *meaning_of(const char *check)
{
	size_t i;

	for (i = 0; i < sizeof(check_meanings) / sizeof(*check_meanings); i++)
		if (!strcmp(check_meanings[i].check, check))
			return check_meanings[i].meaning;
	return NULL;
}

/*
 * "the model's 'happens-before' check (no event happens before itself)":
 * readers took a check's name alone for jargon.
 */
static void name_check(const char *check, struct strbuf *out)
{
	size_t i;

	sb_addf(out, "the model's '%s' check", check);
	for (i = 0; i < sizeof(check_meanings) / sizeof(*check_meanings); i++)
		if (!strcmp(check_meanings[i].check, check) && check_meanings[i].rule)
			sb_addf(out, " (%s)", check_meanings[i].rule);
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

/* A value as C says it: a pointer to x is "&x" (herd7's output says "x"). */
static void explained_value(const struct program *p, struct value v, struct strbuf *out)
{
	if (v.is_addr && !value_is_symbolic(v))
		sb_addf(out, "&");
	value_print(p, v, out);
}

/*
 * "P0 line 11 (writes buf=1)", or "the initial value of buf (0)".  An
 * access's statement is not quoted: readers have the test beside them,
 * and found every step quoting its two statements the output's main
 * noise.
 */
static void name_event(const struct program *p, const struct snapshot *s, int id,
		       struct strbuf *out)
{
	const struct event *e = &s->events[id];

	if (e->proc < 0) {
		sb_addf(out, "the initial value of %s (", p->loc_names[e->loc]);
		explained_value(p, e->val, out);
		sb_addf(out, ")");
		return;
	}
	sb_addf(out, "P%d line %d", e->proc, e->line);
	/* A lock or an unlock has no value to say it by: its statement is short. */
	if (e->loc < 0 || !e->has_val) {
		sb_addf(out, " `");
		source_line(p->test, e->line, out);
		sb_addf(out, "`");
	}
	if (e->loc >= 0 && e->has_val) {
		sb_addf(out, " (%s %s=", e->kind == EV_READ ? "reads" : "writes",
			p->loc_names[e->loc]);
		explained_value(p, e->val, out);
		sb_addf(out, ")");
	}
}

/* A statement alone: "P0 line 11 `r0 = READ_ONCE(*x);`". */
static void name_statement(const struct program *p, const struct event *e, struct strbuf *out)
{
	sb_addf(out, "P%d line %d `", e->proc, e->line);
	source_line(p->test, e->line, out);
	sb_addf(out, "`");
}

/*
 * "P1 line 5 reads the initial value of x (0)", or "... reads x=1,
 * stored by P0 line 3": the value once, the statements as name_event()
 * says them, the load's quoted where a list of them stands alone
 * (readers counted lines to find it); a lock taken after an unlock
 * "takes the lock ... released", quoted.
 */
static void reads_clause(const struct program *p, const struct snapshot *s, int r, int w,
			 bool quoted, struct strbuf *out)
{
	const struct event *e = &s->events[r];

	if (s->events[w].kind == EV_UNLOCK) {
		name_statement(p, e, out);
		sb_addf(out, " takes the lock ");
		name_statement(p, &s->events[w], out);
		sb_addf(out, " released");
		return;
	}
	if (quoted)
		name_statement(p, e, out);
	else
		sb_addf(out, "P%d line %d", e->proc, e->line);
	if (s->events[w].proc < 0) {
		sb_addf(out, " reads ");
		name_event(p, s, w, out);
		return;
	}
	sb_addf(out, " reads %s=", p->loc_names[e->loc]);
	explained_value(p, e->val, out);
	sb_addf(out, ", stored by P%d line %d", s->events[w].proc, s->events[w].line);
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
		return "releases a lock, which is a release: it orders every earlier access before "
		       "it";
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
 * The first tag of the event with id that orders: none for the MB read
 * of an RMW that failed (the model takes its tag away).
 */
static const char *ordering_tag(const struct snapshot *s, int id)
{
	const struct event *e = &s->events[id];
	int j;

	for (j = 0; j < e->ntags; j++)
		if (event_order(e, e->tags[j]) && (strcasecmp(e->tags[j], "mb") ||
						   e->kind == EV_FENCE || fully_ordered_rmw(s, id)))
			return e->tags[j];
	return NULL;
}

static bool is_po(const struct cat_step *st)
{
	return !st->filter && !st->inverse &&
	       (!strcmp(st->base, "po") || !strcmp(st->base, "po-loc"));
}

static bool is_lock(const struct event *e)
{
	return e->kind == EV_LOCK_READ || e->kind == EV_LOCK_WRITE;
}

/* The length of the C identifier s starts with (0 if none). */
static size_t ident_len(const char *s)
{
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
}

size_t assigned_register(const char *code)
{
	size_t len = ident_len(code), eq = len + strspn(code + len, " ");

	return len && code[eq] == '=' && code[eq + 1] != '=' ? len : 0;
}

/*
 * "`rcu_assign_pointer()` ": the call of a line, where its name does not
 * say what tag it has (readers asked where the release came from).
 */
static void call_named(const struct program *p, int line, const char *tag, struct strbuf *out)
{
	struct strbuf text = { 0 };
	const char *call, *eq, *open;
	char name[48];
	size_t len;

	source_line(p->test, line, &text);
	call = text.buf ? text.buf : "";
	eq = strchr(call, '=');
	open = strchr(call, '(');
	/* "r0 = f(...)": the call after the assignment. */
	if (eq && open && eq < open)
		call = eq + 1;
	call += strspn(call, " \t");
	len = ident_len(call);
	if (len && len < sizeof(name) && call[len] == '(') {
		snprintf(name, sizeof(name), "%.*s", (int)len, call);
		if (!strstr(name, "_ONCE") && !strstr(name, tag))
			sb_addf(out, "`%s()` ", name);
	}
	sb_free(&text);
}

/*
 * Why the hop of program order from steps[first] to steps[last] holds;
 * the hop's label: the tag of its first reason, else "po".  A hop to an
 * unlock or from a lock is said as a release or an acquire whichever
 * relation of the model it came through, so that a lock handed from one
 * CPU to another reads the same in every test.
 */
static const char *po_reasons(const struct program *p, const struct snapshot *s, int lead,
			      int first, int last, struct strbuf *out)
{
	const struct event *from = &s->events[s->steps[first].from];
	const struct event *to = &s->events[s->steps[last].to];
	const char *label = NULL;
	int n = 0, i, said_line = -1;

	for (i = lead; i <= last; i++) {
		const struct cat_step *st = &s->steps[i];
		const struct event *e = &s->events[st->from];
		const char *tag = st->filter ? filter_tag(e, st->base) :
				  i > first ? ordering_tag(s, st->from) : NULL;

		if (!st->filter && i > first) {
			const char *order = tag ? event_order(e, tag) : NULL;
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
			sb_addf(out, "line %d ", e->line);
			call_named(p, e->line, tag, out);
			sb_addf(out, "%s", event_order(e, tag));
		} else {
			continue;
		}
		if (!label && tag)
			label = tag;
	}
	if (!n && to->kind == EV_UNLOCK) {
		sb_addf(out, ": line %d %s", to->line, event_order(to, "release"));
		return "release";
	}
	if (!n && is_lock(from)) {
		sb_addf(out, ": line %d %s", from->line, event_order(from, "acquire"));
		return "acquire";
	}
	if (!n && from->loc >= 0 && from->loc == to->loc) {
		sb_addf(out, ": both access %s, and one CPU sees its own accesses to a "
			"variable in order", p->loc_names[from->loc]);
		return "po-loc";
	}
	if (!n && has_tag(from, "rcu-lock"))
		sb_addf(out, ": it is inside the RCU read-side critical section that line %d "
			"starts", from->line);
	else if (!n && has_tag(to, "rcu-unlock"))
		sb_addf(out, ": it is inside the RCU read-side critical section that line %d "
			"ends", to->line);
	else if (!n)
		sb_addf(out, " in program order");
	if (!label && s->steps[first].context && (has_tag(from, "rcu-lock") ||
						  has_tag(to, "rcu-unlock")))
		label = s->steps[first].context;
	return label ? label : "po";
}

/*
 * The name of a communication step in the steps and the chain: rf, co,
 * fr whether between CPUs or within one (the sentence says which CPUs),
 * so that a lock handed on reads the same whichever the model went
 * through; NULL for any other base.
 */
static const char *communication(const char *base)
{
	static const char *const kinds[] = { "rf", "co", "fr" };
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(*kinds); i++)
		if (!strncmp(base, kinds[i], 2) && (!base[2] || !strcmp(base + 2, "e") ||
						    !strcmp(base + 2, "i")))
			return kinds[i];
	return NULL;
}

const char *kept_link(const struct snapshot *s, const struct cat_step *st)
{
	const char *kind = st->filter || st->inverse ? NULL : communication(st->base);

	if (kind && !strcmp(kind, "rf") && s->events[st->from].kind == EV_UNLOCK)
		return "lock";
	if (!st->filter && !st->inverse &&
	    (!strcmp(st->base, "addr") || !strcmp(st->base, "data") || !strcmp(st->base, "ctrl")))
		return st->base;
	return NULL;
}

/*
 * One sentence for the hop from steps[first] to steps[last], whose
 * filters from steps[lead] on are about its first event; its label.
 */
static const char *hop_sentence(const struct program *p, const struct snapshot *s, int lead,
				int first, int last, struct strbuf *out)
{
	const struct cat_step *st = &s->steps[first];
	int from = st->from, to = s->steps[last].to;
	const char *base = st->base, *kind = st->inverse ? NULL : communication(base);

	if (is_po(st)) {
		name_event(p, s, to, out);
		sb_addf(out, " is ordered after ");
		name_event(p, s, from, out);
		return po_reasons(p, s, lead, first, last, out);
	}
	if (kind && !strcmp(kind, "rf")) {
		reads_clause(p, s, to, from, false, out);
	} else if (kind && !strcmp(kind, "fr")) {
		name_event(p, s, from, out);
		if (s->events[from].proc == s->events[to].proc) {
			sb_addf(out, " reads a value older than the one ");
			name_event(p, s, to, out);
			sb_addf(out, " stores after it on the same CPU");
		} else {
			sb_addf(out, " ran before ");
			name_event(p, s, to, out);
			sb_addf(out, " reached P%d's CPU: it read the older value",
				s->events[from].proc);
		}
	} else if (kind || (st->context && !strcmp(st->context, "co0"))) {
		name_event(p, s, to, out);
		sb_addf(out, " overwrites ");
		name_event(p, s, from, out);
		if (kind)
			sb_addf(out, ": every CPU sees the stores to %s in that order",
				p->loc_names[s->events[to].loc]);
		else
			sb_addf(out, s->events[from].proc < 0 ? ": initial values come first" :
				": %s ends with the value it stores, so it is the last store",
				p->loc_names[s->events[to].loc]);
		return "co";
	} else if (!strcmp(base, "rmw")) {
		name_event(p, s, from, out);
		sb_addf(out, " and ");
		name_event(p, s, to, out);
		sb_addf(out, " are the load and the store of one atomic operation");
	} else if (!strcmp(base, "addr") || !strcmp(base, "data") || !strcmp(base, "ctrl")) {
		name_event(p, s, to, out);
		sb_addf(out, !strcmp(base, "addr") ? " uses an address computed from what " :
			!strcmp(base, "data") ? " stores a value computed from what " :
			" only happens because a branch tested what ");
		name_event(p, s, from, out);
		sb_addf(out, " read");
	} else if (st->context && strstr(st->context, "rcu-rscs")) {
		name_event(p, s, st->inverse ? to : from, out);
		sb_addf(out, " and ");
		name_event(p, s, st->inverse ? from : to, out);
		sb_addf(out, " delimit one RCU read-side critical section");
		return st->context;
	} else {
		name_event(p, s, from, out);
		sb_addf(out, " comes before ");
		name_event(p, s, to, out);
		if (st->inverse && strcmp(base, "?"))
			sb_addf(out, " (%s relates them the other way round)", base);
		return strcmp(base, "?") ? base : st->context ? st->context : "?";
	}
	return kind ? kind : base;
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

/* The words of an explanation, and what it has said once already. */
enum { LEGEND_MAX = 32 };

struct legend {
	int n;
	const char *words[LEGEND_MAX];
	bool lock_handoff;	/* an rf step hands a lock on: its gloss says so */
	bool told_hb;		/* the 'happens-before' why, said once */
	bool told_chain;	/* a chain was told, with how to read one */
	struct strbuf point;		/* the crux in a sentence, said after "In short" */
	struct strbuf first_reads;	/* the loads of Way 1, not said again */
	struct strbuf first_order;	/* and its order of stores */
};

static void legend_add(struct legend *l, const char *word)
{
	int i;

	for (i = 0; i < l->n && strcasecmp(l->words[i], word); i++)
		;
	if (i == l->n && i < LEGEND_MAX)
		l->words[l->n++] = word;
}

/* The section of explanation.txt that explains word, or NULL; its gloss into *gloss. */
static const char *section_of(const char *word, const char **gloss)
{
	size_t k;

	*gloss = meaning_of(word);
	for (k = 0; k < sizeof(glosses) / sizeof(*glosses); k++)
		if (!strcasecmp(glosses[k].word, word)) {
			*gloss = *gloss ? *gloss : glosses[k].gloss;
			return glosses[k].section;
		}
	return NULL;
}

/*
 * Where each word is explained, one line: the sections of the kernel's
 * explanation.txt, by their headings, each with the words it explains,
 * in the order the words came; a word of an edited model alone.  The
 * steps say what each word means where it is used: readers found the
 * definitions again in every output too much.
 */
static void legend_sections(const struct legend *l, struct strbuf *out)
{
	bool told[LEGEND_MAX] = { false };
	const char *gloss;
	int i, j, groups = 0;

	sb_addf(out, "  Where the model's words used here are explained "
		"(tools/memory-model/Documentation/explanation.txt): ");
	for (i = 0; i < l->n; i++) {
		const char *section = section_of(l->words[i], &gloss);
		int heading = section ? (int)strcspn(section, ":") : 0;

		if (told[i])
			continue;
		sb_addf(out, "%s%s", groups++ ? "; " : "", l->words[i]);
		for (j = i + 1; section && j < l->n; j++) {
			const char *other = section_of(l->words[j], &gloss);

			if (other && !strcmp(other, section)) {
				sb_addf(out, ", %s", l->words[j]);
				told[j] = true;
			}
		}
		if (section)
			sb_addf(out, ": %.*s", heading, section);
	}
	sb_addf(out, ".  (Run with --glossary to have each defined here.)\n");
}

/*
 * Each word once, in plain words where we know it, with the section of
 * the kernel's explanation.txt (define); or only where each is explained.
 */
static void legend_print(const struct legend *l, bool define, struct strbuf *out)
{
	int i;

	if (!l->n)
		return;
	if (!define) {
		legend_sections(l, out);
		return;
	}
	sb_addf(out, "  Words used (sections of tools/memory-model/Documentation/explanation.txt "
		"in capitals):\n");
	for (i = 0; i < l->n; i++) {
		const char *word = l->words[i], *gloss, *section = section_of(word, &gloss);

		sb_addf(out, "    %s%s%s", word, gloss ? ": " : "", gloss ? gloss : "");
		if (!strcmp(word, "rf") && l->lock_handoff)
			sb_addf(out, "; a spin_lock() takes the lock the spin_unlock() before it "
				"released");
		sb_addf(out, "%s%s.\n", section ? "; " : "", section ? section : "");
	}
}

/* An event in a few characters, for the chain: "Wx=1", "lock(l)", "mb". */
static void short_event(const struct program *p, const struct event *e, struct strbuf *out)
{
	if (e->proc < 0) {
		sb_addf(out, "init %s=", p->loc_names[e->loc]);
		explained_value(p, e->val, out);
	} else if ((e->kind == EV_READ || e->kind == EV_WRITE) && e->has_val) {
		sb_addf(out, "%c%s=", e->kind == EV_READ ? 'R' : 'W', p->loc_names[e->loc]);
		explained_value(p, e->val, out);
	} else if (is_lock(e) || e->kind == EV_UNLOCK) {
		sb_addf(out, "%s(%s)", e->kind == EV_UNLOCK ? "unlock" : "lock",
			p->loc_names[e->loc]);
	} else if (e->kind == EV_FENCE && e->ntags) {
		sb_addf(out, "%s", e->tags[0]);
	} else {
		event_print(p, e, out);
	}
}

/*
 * How each word of a chain with no steps below it links two events
 * (an allowed outcome's: program order nothing keeps, or what reads or
 * overwrites what), said where the chain is read.
 */
static void link_words(const char *const *label, int n, struct strbuf *out)
{
	static const struct { const char *word, *link; } links[] = {
		{ "po", "later in program order, nothing keeping them in that order" },
		{ "rf", "reads the value it stored" },
		{ "fr", "the load read a value that this store overwrites" },
		{ "co", "overwrites it" },
	};
	size_t k;
	int i, told = 0;

	sb_addf(out, "each ->word is how the next event follows the one before");
	for (k = 0; k < sizeof(links) / sizeof(*links); k++) {
		for (i = 0; i < n && strcmp(label[i], links[k].word); i++)
			;
		if (i < n)
			sb_addf(out, "%s%s: %s", told++ ? "; " : " (", links[k].word, links[k].link);
	}
	sb_addf(out, "%s.)\n", told ? ")" : "");
}

/*
 * The chain in one line, events ev[] with the label of each link to the
 * next, a CPU named where it changes, back to the first event.
 */
static void chain_line(const struct program *p, const struct snapshot *s, const int *ev,
		       const char *const *label, int n, bool steps_below, struct legend *l,
		       struct strbuf *out)
{
	int i, proc = -2;
	bool reads_address = false, locks = false, first = !l->told_chain;

	l->told_chain = true;
	for (i = 0; i < n; i++) {
		reads_address |= s->events[ev[i]].val.is_addr;
		locks |= is_lock(&s->events[ev[i]]) || s->events[ev[i]].kind == EV_UNLOCK;
	}
	sb_addf(out, "  Chain:");
	for (i = 0; i <= n; i++) {
		const struct event *e = &s->events[ev[i % n]];

		sb_addf(out, " ");
		if (e->proc != proc && e->proc >= 0)
			sb_addf(out, "P%d:", e->proc);
		proc = e->proc;
		short_event(p, e, out);
		if (i < n)
			sb_addf(out, " ->%s", label[i]);
	}
	sb_addf(out, "\n");
	/* How to read it, under the first one, where a reader needs it. */
	if (!first)
		return;
	sb_addf(out, "  (Left to right, back to where it started: Wx=1 is a store of 1 to x, "
		"Rx=0 a load that reads 0, ");
	/* herd7 prints a pointer's value as the name it points to. */
	if (reads_address)
		sb_addf(out, "Rp=&x a load of p that returns x's address (herd7's block writes "
			"the value x), ");
	if (locks)
		sb_addf(out, "lock(l) the lock l taken, unlock(l) released, ");
	sb_addf(out, "P1: marks where P1's events begin; ");
	if (steps_below)
		sb_addf(out, "each ->word is a step below.)\n");
	else
		link_words(label, n, out);
}

/*
 * The classic name of a cycle, events ev[] linked by label[]: the CPUs in
 * turn, each left by rf, co or fr, each met once.  NULL for another shape.
 */
static const char *shape_name(const struct snapshot *s, const int *ev,
			      const char *const *label, int n)
{
	struct strbuf sig = { 0 }, twice = { 0 };
	const char *name = NULL;
	uint64_t seen = 0;
	int start, i, j;
	size_t k;

#define PROC(i) (s->events[ev[((i) + start) % n]].proc)
	for (start = 0; start < n && PROC(n - 1) == PROC(0); start++)
		;
	for (i = 0; start < n && i < n; i = j + 1) {
		const char *link;

		for (j = i; j + 1 < n && PROC(j + 1) == PROC(i); j++)
			;
		link = label[(j + start) % n];
		if (PROC(i) < 0 || PROC(i) >= 64 || (seen >> PROC(i) & 1) ||
		    (strcmp(link, "rf") && strcmp(link, "co") && strcmp(link, "fr")))
			break;
		seen |= (uint64_t)1 << PROC(i);
		sb_addf(&sig, "%s%s %s", i ? " " : "", j > i ? "po" : "-", link);
	}
#undef PROC
	/* A rotation of a shape is the same shape: look in it written twice. */
	for (k = 0; n && i == n && k < sizeof(shapes) / sizeof(*shapes) && !name; k++) {
		twice.len = 0;
		sb_addf(&twice, "%s %s", shapes[k].shape, shapes[k].shape);
		if (strlen(shapes[k].shape) == sig.len && strstr(twice.buf, sig.buf))
			name = shapes[k].name;
	}
	sb_free(&sig);
	sb_free(&twice);
	return name;
}

/*
 * "In the kernel: ...": where kernel code meets the shape named name
 * (shape_name()'s), and the section of recipes.txt that shows it.
 */
static void kernel_note(const char *name, struct strbuf *out)
{
	size_t k;

	for (k = 0; name && k < sizeof(shapes) / sizeof(*shapes); k++)
		if (shapes[k].name == name && shapes[k].kernel)
			sb_addf(out, "  In the kernel: %s (tools/memory-model/Documentation/"
				"recipes.txt: \"%s\").\n", shapes[k].kernel, shapes[k].recipe);
}

/* A step of a strong fence: one that makes its CPU's stores reach every CPU first. */
static bool is_strong_fence(const char *label)
{
	static const char *const strong[] = {
		"mb", "after-spinlock", "after-unlock-lock", "before-atomic", "after-atomic",
		"sync-rcu",
	};
	size_t k;

	for (k = 0; k < sizeof(strong) / sizeof(*strong); k++)
		if (!strcmp(label, strong[k]))
			return true;
	return false;
}

/* "steps 4 (co) and 6 (fr)": the steps of labels[] that pick(), as a list. */
static void step_list(const char *const *labels, int n, bool (*pick)(const char *),
		      struct strbuf *out)
{
	int i, k = 0, count = 0;

	for (i = 0; i < n; i++)
		count += pick(labels[i]);
	sb_addf(out, "step%s", count == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		if (pick(labels[i]))
			sb_addf(out, "%s%d (%s)", !k++ ? " " : k == count ? " and " : ", ", i + 1,
				labels[i]);
}

static bool is_memory_order(const char *label)
{
	return !strcmp(label, "co") || !strcmp(label, "fr");
}

/* "step 2", "steps 2 and 3", "steps 2 to 5". */
static void step_range(int first, int last, struct strbuf *out)
{
	if (first == last)
		sb_addf(out, "step %d", first);
	else
		sb_addf(out, "steps %d %s %d", first, last == first + 1 ? "and" : "to", last);
}

/*
 * "step 1: P1 took the lock after P0 released it": the steps that open a
 * timeline, with why, where they are one lock hand-off: readers took the
 * bare "(step 1)" for the guarantee asserted.
 */
static void opening_steps(const struct snapshot *s, const int *ev, const char *const *labels,
			  int last, struct strbuf *out)
{
	step_range(1, last, out);
	if (last == 1 && !strcmp(labels[0], "unlock-lock"))
		sb_addf(out, ": P%d took the lock after P%d released it", s->events[ev[1]].proc,
			s->events[ev[0]].proc);
}

/* Whether the step labelled label sends the stores before it out first. */
static bool sends_stores_first(const char *label)
{
	return is_strong_fence(label) || !strcmp(label, "release") || !strcmp(label, "wmb") ||
	       !strcmp(label, "unlock-lock");
}

/* "x=1": what a store writes or a load reads, in the chain's short words. */
static void access_value(const struct program *p, const struct event *e, struct strbuf *out)
{
	sb_addf(out, "%s=", p->loc_names[e->loc]);
	explained_value(p, e->val, out);
}

/* "P2 line 37 (z=2)": an event of a chain, short, for the sub-steps below. */
static void chain_event(const struct program *p, const struct snapshot *s, int id,
			struct strbuf *out)
{
	const struct event *e = &s->events[id];

	if (e->proc < 0) {
		sb_addf(out, "the initial value of %s", p->loc_names[e->loc]);
		return;
	}
	sb_addf(out, "P%d line %d", e->proc, e->line);
	if (e->kind == EV_WRITE || e->kind == EV_READ) {
		sb_addf(out, " (");
		access_value(p, e, out);
		sb_addf(out, ")");
	}
}

/*
 * A chain as told: its events ev[], the label of the link from each to
 * the next (to[]: the next, but where a pair's chain ends) and that
 * link's sentence; a link that hands a lock on from one CPU to another
 * keeps its unlock and its lock, other links -1.
 */
enum { MAX_HOPS = 128 };

struct chain {
	int n;
	int ev[MAX_HOPS], to[MAX_HOPS];
	const char *labels[MAX_HOPS];
	struct strbuf said[MAX_HOPS];
	int unlock[MAX_HOPS], lock[MAX_HOPS];
};

/* The hops of s's cycle as links of c, each one sentence. */
static void build_chain(const struct program *p, const struct snapshot *s, struct chain *c)
{
	int i, first, last;

	memset(c, 0, sizeof(*c));
	for (i = 0; (first = next_step(s, i)) >= 0 && c->n < MAX_HOPS; i = last + 1) {
		last = hop_end(s, first);
		c->ev[c->n] = s->steps[first].from;
		c->to[c->n] = s->steps[last].to;
		c->labels[c->n] = hop_sentence(p, s, i, first, last, &c->said[c->n]);
		c->unlock[c->n] = c->lock[c->n] = -1;
		c->n++;
	}
}

static void free_chain(struct chain *c)
{
	int i;

	for (i = 0; i < c->n; i++)
		sb_free(&c->said[i]);
}

/* Drop links first+1 .. first+count of c, their sentences with them. */
static void drop_links(struct chain *c, int first, int count)
{
	int i;

	for (i = first + 1; i <= first + count; i++)
		sb_free(&c->said[i]);
	c->to[first] = c->to[first + count];
	for (i = first + 1; i + count < c->n; i++) {
		c->ev[i] = c->ev[i + count];
		c->to[i] = c->to[i + count];
		c->labels[i] = c->labels[i + count];
		c->said[i] = c->said[i + count];
		c->unlock[i] = c->unlock[i + count];
		c->lock[i] = c->lock[i + count];
	}
	c->n -= count;
}

/*
 * A release into an unlock, the lock on another CPU that takes it, and
 * an acquire out of that lock are one link, "unlock-lock": readers took
 * the three for a release and an acquire, which do less than a lock's
 * hand-off (LOCKING in explanation.txt).  The lock stays an event of the
 * chain where a fence, not an acquire, leads on from it, or where the
 * chain starts at it.
 */
static void merge_hand_offs(const struct program *p, const struct snapshot *s,
			    struct chain *c)
{
	int i;

	for (i = 0; i + 1 < c->n; i++) {
		int from = c->ev[i], unlock = c->ev[i + 1], lock = c->ev[(i + 2) % c->n];
		bool acquire = i + 2 < c->n && !strcmp(c->labels[i + 2], "acquire");
		struct strbuf *out = &c->said[i];

		if (strcmp(c->labels[i], "release") || strcmp(c->labels[i + 1], "rf") ||
		    s->events[unlock].kind != EV_UNLOCK || !is_lock(&s->events[lock]) ||
		    s->events[lock].proc == s->events[unlock].proc)
			continue;
		out->len = 0;
		if (acquire) {
			name_event(p, s, c->ev[(i + 3) % c->n], out);
			sb_addf(out, " is ordered after ");
			name_event(p, s, from, out);
			sb_addf(out, ": the lock is handed on between them, from ");
			name_statement(p, &s->events[unlock], out);
			sb_addf(out, " to ");
			name_statement(p, &s->events[lock], out);
		} else {
			name_statement(p, &s->events[lock], out);
			sb_addf(out, " takes the lock ");
			name_statement(p, &s->events[unlock], out);
			sb_addf(out, " released after ");
			name_event(p, s, from, out);
		}
		c->labels[i] = "unlock-lock";
		c->unlock[i] = unlock;
		c->lock[i] = lock;
		drop_links(c, i, acquire ? 2 : 1);
	}
}

/*
 * Whether a chain's first link hands a lock on, then reaches a store of
 * the locker before it reaches the load's CPU at link arrive.  The index
 * in ev[] of that store, or 0.
 */
static int lock_hand_off(const struct snapshot *s, const struct chain *c, int arrive)
{
	int i, locker = c->lock[0] >= 0 ? s->events[c->lock[0]].proc : -1;

	if (strcmp(c->labels[0], "unlock-lock"))
		return 0;
	for (i = 1; i < arrive; i++)
		if (s->events[c->ev[i]].kind == EV_WRITE && s->events[c->ev[i]].proc == locker)
			return i;
	return 0;
}

/* The store the load r reads, or -1. */
static int store_read(const struct snapshot *s, int r)
{
	int w;

	for (w = 0; w < s->nevents; w++)
		if (rel_has(s->rf, w, r))
			return w;
	return -1;
}

/*
 * The index of a chain's first strong fence, when the chain runs from a
 * store through it to a load that missed the store; -1 otherwise.
 */
static int strong_fence_step(const struct snapshot *s, const int *ev, const char *const *labels,
			     int n)
{
	int k;

	for (k = 0; k < n && !is_strong_fence(labels[k]); k++)
		;
	if (k >= n - 1 || s->events[ev[0]].kind != EV_WRITE || strcmp(labels[n - 1], "fr"))
		return -1;
	return k;
}

/*
 * The event a timeline moment arrives at, as a sentence: "P1 line 29
 * writes z=1"; the chain's last, the load that missed the store, without
 * the value it cannot read.
 */
static void timeline_event(const struct program *p, const struct snapshot *s, int id, bool last,
			   struct strbuf *out)
{
	const struct event *e = &s->events[id];

	if (e->proc < 0 || (e->kind != EV_WRITE && e->kind != EV_READ)) {
		chain_event(p, s, id, out);
		return;
	}
	sb_addf(out, "P%d line %d %s ", e->proc, e->line, e->kind == EV_WRITE ? "writes" : "reads");
	if (last)
		sb_addf(out, "%s", p->loc_names[e->loc]);
	else
		access_value(p, e, out);
}

/*
 * A timeline being told: its lettered lines so far, and the line at
 * which each event of the chain (by its index) and the first strong
 * fence's wait were told, for a later line to point back to.
 */
struct timeline {
	int moment;
	int fence_wait;
	int at[MAX_HOPS];
};

/*
 * A timeline's line m (from 1) by letter, "c": readers mixed up "(see 3
 * above)" with "(step 3)" of the steps above it.  Past z, numbers.
 */
static void moment_name(int m, struct strbuf *out)
{
	if (m <= 26)
		sb_addf(out, "%c", 'a' + m - 1);
	else
		sb_addf(out, "%d", m);
}

/* The next line of a timeline ("In time:" ends the line before the first). */
static void next_moment(struct timeline *tl, struct strbuf *out)
{
	sb_addf(out, "%s    ", tl->moment ? ".\n" : "\n");
	moment_name(++tl->moment, out);
	sb_addf(out, ". ");
}

/* " (c)": which line of the timeline told it, if one did. */
static void moment_ref(int m, struct strbuf *out)
{
	if (!m)
		return;
	sb_addf(out, " (");
	moment_name(m, out);
	sb_addf(out, ")");
}

/* " (see c above; every CPU sees z=1 then z=2)": why the overwrite came later. */
static void overwrite_order(const struct program *p, const struct snapshot *s, const int *ev,
			    int i, const struct timeline *tl, struct strbuf *out)
{
	sb_addf(out, " (");
	if (tl->at[i - 1]) {
		sb_addf(out, "see ");
		moment_name(tl->at[i - 1], out);
		sb_addf(out, " above; ");
	}
	sb_addf(out, "every CPU sees ");
	access_value(p, &s->events[ev[i - 1]], out);
	sb_addf(out, " then ");
	access_value(p, &s->events[ev[i]], out);
	sb_addf(out, ")");
}

/*
 * "P1's too.  f. Putting it together: P2's wait (e) lasts until z=2 has
 * reached P1's CPU.  z=2 comes after z=1 in z's order, so it reaches P1's
 * CPU only after P1 wrote z=1 (c); had it arrived first, z=1 would have
 * overwritten it there.  P1 wrote z=1 only after x=1 had reached every
 * CPU (b).  So when P2's wait ends, x=1 has reached every CPU": where the store a
 * fence (link i) waits for overwrote another CPU's (link i - 1), the
 * wait reaches that CPU too, after its store, and so after what the
 * chain's first fence (link k) waited for.  Readers found the argument
 * broken without it, then a chain to rebuild in every shorter form: its
 * links a sentence each (one of 60 words was read twice), back from the
 * wait, and the conclusion apart.
 */
static void overwritten_reached(const struct program *p, const struct snapshot *s,
				const int *ev, const char *const *labels, int i, int k,
				struct timeline *tl, struct strbuf *out)
{
	const struct event *over;
	int wait;

	if (i < 1 || strcmp(labels[i - 1], "co"))
		return;
	over = &s->events[ev[i - 1]];
	if (over->proc < 0 || over->proc == s->events[ev[i]].proc)
		return;
	sb_addf(out, ", P%d's too", over->proc);
	wait = tl->moment;
	next_moment(tl, out);
	if (k >= 0 && k < i - 1) {
		/* Back from the wait, each sentence from the one before, then the conclusion. */
		sb_addf(out, "Putting it together: P%d's wait", s->events[ev[i]].proc);
		moment_ref(wait, out);
		sb_addf(out, " lasts until ");
		access_value(p, &s->events[ev[i]], out);
		sb_addf(out, " has reached P%d's CPU.  ", over->proc);
		access_value(p, &s->events[ev[i]], out);
		sb_addf(out, " comes after ");
		access_value(p, over, out);
		sb_addf(out, " in %s's order, so it reaches P%d's CPU only after P%d wrote ",
			p->loc_names[over->loc], over->proc, over->proc);
		access_value(p, over, out);
		moment_ref(tl->at[i - 1], out);
		/* Coherence in a clause: readers stopped to rebuild it. */
		sb_addf(out, "; had it arrived first, ");
		access_value(p, over, out);
		sb_addf(out, " would have overwritten it there.  P%d wrote ", over->proc);
		access_value(p, over, out);
		sb_addf(out, " only after ");
		access_value(p, &s->events[ev[0]], out);
		sb_addf(out, " had reached every CPU");
		moment_ref(tl->fence_wait, out);
		sb_addf(out, ".  So when P%d's wait ends, ", s->events[ev[i]].proc);
		access_value(p, &s->events[ev[0]], out);
		sb_addf(out, " has reached every CPU");
		return;
	}
	sb_addf(out, "So ");
	access_value(p, &s->events[ev[i]], out);
	sb_addf(out, " reached P%d's CPU only after P%d wrote ", over->proc, over->proc);
	access_value(p, over, out);
	overwrite_order(p, s, ev, i, tl, out);
}


/*
 * Step i of a chain from its strong fence on (ev[k] is the fence's), as
 * the moments of a timeline: how the chain gets to its next event.
 */
static void timeline_step(const struct program *p, const struct snapshot *s, const int *ev,
			  const char *const *labels, int i, int k, int n, struct timeline *tl,
			  struct strbuf *out)
{
	const struct event *from = &s->events[ev[i]];
	int waited = i == k ? ev[0] : from->kind == EV_READ ? store_read(s, ev[i]) : ev[i];
	bool last = i + 1 == n - 1;

	next_moment(tl, out);
	/* In happens-before's timeline (k < 0) a fence only keeps program order. */
	if (k >= 0 && is_strong_fence(labels[i])) {
		if (i == k)
			tl->fence_wait = tl->moment;
		sb_addf(out, "P%d waits at its fence (step %d)", from->proc, i + 1);
		/* A store it made or read: what it holds the rest back for. */
		if (waited >= 0 && s->events[waited].proc >= 0) {
			sb_addf(out, " until ");
			access_value(p, &s->events[waited], out);
			sb_addf(out, " has reached every CPU");
			/* The rule where first used: readers met it only in the verdict's aside. */
			if (i == k && s->events[waited].proc != from->proc) {
				sb_addf(out, " (a full barrier waits so for every store its CPU has "
					"seen, ");
				access_value(p, &s->events[waited], out);
				sb_addf(out, " included)");
			}
			overwritten_reached(p, s, ev, labels, i, k, tl, out);
		}
		next_moment(tl, out);
		tl->at[i + 1] = tl->moment;
		sb_addf(out, "After the fence, ");
		timeline_event(p, s, ev[i + 1], last, out);
		return;
	}
	tl->at[i + 1] = tl->moment;
	timeline_event(p, s, ev[i + 1], last, out);
	if (!strcmp(labels[i], "co")) {
		sb_addf(out, " over ");
		access_value(p, from, out);
		sb_addf(out, " (step %d)", i + 1);
	} else if (!strcmp(labels[i], "rf") && (last || s->events[ev[i + 1]].proc < 0)) {
		sb_addf(out, ", reading it (step %d)", i + 1);
	} else if (!strcmp(labels[i], "rf")) {
		sb_addf(out, " (step %d)", i + 1);
	} else if (!strcmp(labels[i], "fr")) {
		sb_addf(out, ", which reaches P%d's CPU only after line %d read the older value "
			"(step %d)", from->proc, from->line, i + 1);
	} else {
		sb_addf(out, " (step %d, %s)", i + 1, labels[i]);
	}
}

/* A timeline's last words: the load that missed the store ev[0] cannot have missed it. */
static void timeline_end(const struct program *p, const struct snapshot *s, const int *ev, int n,
			 struct strbuf *out)
{
	sb_addf(out, ", where ");
	access_value(p, &s->events[ev[0]], out);
	sb_addf(out, " already is: it cannot read ");
	access_value(p, &s->events[ev[n - 1]], out);
	sb_addf(out, ".\n");
}

/*
 * A propagation chain that starts at a store and ends in a load reading
 * an older value, told through its first strong fence as a timeline, a
 * lettered line a moment:
 *   a. x=1 reaches P1's CPU (step 1).
 *   b. P1 waits at its fence (step 2) until x=1 has reached every CPU.
 *   c. After the fence, P1 line 29 writes z=1.
 *   d. P2 line 37 writes z=2 over z=1 (step 3).  ...
 *   g. After the fence, P2 line 39 reads x, where x=1 already is: it
 *      cannot read x=0.
 * Readers of the lettered sub-steps this replaced asked for this
 * picture, and of the arrows before the numbers for lines.  Whether the
 * chain has that form.
 */
static bool fence_timeline(const struct program *p, const struct snapshot *s, const int *ev,
			   const char *const *labels, int n, struct strbuf *out)
{
	int i, k = strong_fence_step(s, ev, labels, n);
	struct timeline tl = { 0 };

	if (k < 0)
		return false;
	sb_addf(out, "  In time:");
	next_moment(&tl, out);
	if (k) {
		access_value(p, &s->events[ev[0]], out);
		sb_addf(out, " reaches P%d's CPU (", s->events[ev[k]].proc);
		opening_steps(s, ev, labels, k, out);
		sb_addf(out, ")");
	} else {
		timeline_event(p, s, ev[0], false, out);
	}
	for (i = k; i < n - 1; i++)
		timeline_step(p, s, ev, labels, i, k, n, &tl, out);
	timeline_end(p, s, ev, n, out);
	return true;
}

/*
 * A happens-before chain from a store to a load that missed it, told in
 * time order as fence_timeline() tells a propagation chain: "1. buf=1
 * reaches each CPU before P0 line 16 (flag=1) reaches it (step 1).  2. P1
 * line 24 reads flag=1 (step 2).  3. P1 line 25 reads buf (step 3, acquire),
 * where buf=1 already is: it cannot read buf=0."  Links 1 to ahead send
 * the store out before ev[ahead].
 */
static void hb_timeline(const struct program *p, const struct snapshot *s,
			const struct chain *c, int ahead, struct strbuf *out)
{
	int i, n = c->n;
	struct timeline tl = { 0 };

	sb_addf(out, "  In time:");
	next_moment(&tl, out);
	access_value(p, &s->events[c->ev[0]], out);
	sb_addf(out, " reaches each CPU before ");
	chain_event(p, s, c->ev[ahead], out);
	sb_addf(out, " reaches it (");
	opening_steps(s, c->ev, c->labels, ahead, out);
	sb_addf(out, ")");
	for (i = ahead; i < n - 1; i++)
		timeline_step(p, s, c->ev, c->labels, i, -1, n, &tl, out);
	timeline_end(p, s, c->ev, n, out);
}

/*
 * The crux of a happens-before chain through a lock hand-off (links 1 to
 * handed) from a store to a load that missed it, for "The point:".
 */
static void hand_off_point(const struct program *p, const struct snapshot *s,
			   const struct chain *c, int handed, int arrive, struct strbuf *point)
{
	const struct event *sent = &s->events[c->ev[0]], *load = &s->events[c->ev[c->n - 1]];
	const struct event *passed = &s->events[c->ev[handed]];
	bool reads = handed + 1 == arrive && !strcmp(c->labels[handed], "rf");

	if (load->proc != sent->proc && load->proc != passed->proc) {
		/*
		 * In one sentence, the rule and the third CPU that sees it
		 * without the lock: readers set it against DCL's "the lock
		 * orders nothing" and found two sentences of it one too many.
		 */
		sb_addf(point, "when P%d takes the lock after P%d releases it, any CPU, even one "
			"that never takes the lock, that sees P%d's stores from after taking it (",
			passed->proc, sent->proc, passed->proc);
		access_value(p, passed, point);
		sb_addf(point, ") then sees P%d's from before the release (", sent->proc);
		access_value(p, sent, point);
		sb_addf(point, "); P%d %s ", load->proc, reads ? "reads" : "learns of");
		access_value(p, passed, point);
		sb_addf(point, ", so it must see ");
		access_value(p, sent, point);
	} else {
		sb_addf(point, "the lock hand-off from P%d to P%d makes ", sent->proc,
			passed->proc);
		access_value(p, sent, point);
		sb_addf(point, " reach each CPU before ");
		access_value(p, passed, point);
		sb_addf(point, " reaches that CPU, and P%d %s ", load->proc,
			reads ? "reads" : "learns of");
		access_value(p, passed, point);
	}
}

/* The same where the chain's first link (a release, a fence) sends the store out first. */
static void sent_first_point(const struct program *p, const struct snapshot *s,
			     const struct chain *c, struct strbuf *point)
{
	const struct event *sent = &s->events[c->ev[0]], *ahead = &s->events[c->ev[1]];
	const struct event *load = &s->events[c->ev[c->n - 1]];

	sb_addf(point, strcmp(c->labels[0], "release") ? "the %s ordering before P%d line %d "
		"makes " : "the %s at P%d line %d makes ", c->labels[0], ahead->proc, ahead->line);
	access_value(p, sent, point);
	sb_addf(point, " reach each CPU before ");
	access_value(p, ahead, point);
	sb_addf(point, " reaches that CPU, and P%d loads %s only after it has read ", load->proc,
		p->loc_names[load->loc]);
	access_value(p, ahead, point);
}

/*
 * The why of a happens-before chain that starts at a store and ends in a
 * load that missed it, told by the chain's first step when it makes the
 * store count: a release or fence sends the store out before what follows
 * it, and the steps between lead from there to the load.  The timeline
 * tells it; the first such chain's crux goes to "The point:" (readers
 * found a paragraph after the timeline the same argument a third time),
 * a later one's to a paragraph of its own.  Whether the chain has that
 * form.
 */
static bool missed_store_story(const struct program *p, const struct snapshot *s,
			       const struct chain *c, struct strbuf *point, struct strbuf *out)
{
	const int *ev = c->ev;
	const char *const *labels = c->labels;
	int n = c->n, store = ev[0], load = ev[n - 1];
	const struct event *sent = &s->events[store], *ahead = &s->events[ev[1]];
	int arrive, handed;

	/* The chain is told from the store: the load that missed it ends it. */
	if (n < 3 || strcmp(labels[n - 1], "fr") || !sends_stores_first(labels[0]))
		return false;
	/* The steps up to the load's CPU carry the news there; the rest are that CPU's order. */
	for (arrive = 1; arrive < n - 1 && s->events[ev[arrive]].proc != s->events[load].proc;
	     arrive++)
		;
	if (arrive < 2)
		return false;
	handed = lock_hand_off(s, c, arrive);
	hb_timeline(p, s, c, handed ? handed : 1, out);
	if (!point->len) {
		if (handed)
			hand_off_point(p, s, c, handed, arrive, point);
		else
			sent_first_point(p, s, c, point);
		return true;
	}
	/* The timeline told the rest: what makes the missed store a step in time. */
	sb_addf(out, "  Why it cannot happen: P%d line %d could read ", s->events[load].proc,
		s->events[load].line);
	access_value(p, &s->events[load], out);
	sb_addf(out, " only if ");
	access_value(p, sent, out);
	sb_addf(out, " had not yet reached P%d's CPU (step %d, fr), but ", s->events[load].proc, n);
	if (handed) {
		/* What carries the store on is the lock, which a release and an acquire are not. */
		step_range(1, handed, out);
		sb_addf(out, " hand%s a lock on from P%d to P%d.  A lock's hand-off guarantees "
			"that every store before the unlock (", handed == 1 ? "s" : "", sent->proc,
			s->events[ev[handed]].proc);
		chain_event(p, s, c->unlock[0], out);
		sb_addf(out, "), ");
		access_value(p, sent, out);
		sb_addf(out, " too, reaches every CPU before any store P%d makes after taking "
			"the lock (", s->events[ev[handed]].proc);
		chain_event(p, s, c->lock[0], out);
		sb_addf(out, ") does, such as ");
		chain_event(p, s, ev[handed], out);
		sb_addf(out, "; a release and an acquire alone would not (LOCKING in "
			"explanation.txt).\n");
	} else {
		sb_addf(out, "step 1's %s sends ", labels[0]);
		name_event(p, s, store, out);
		sb_addf(out, " ahead of ");
		name_event(p, s, ev[1], out);
		sb_addf(out, ": a CPU that has learned of line %d%s has ", ahead->line,
			arrive == 2 ? "" : ", directly or through CPUs that pass it on with a "
			"release or a strong fence,");
		access_value(p, sent, out);
		sb_addf(out, " too.\n");
	}
	return true;
}

/* What passes ordering on from CPU to CPU in a chain, as the why says it. */
struct passer {
	const char *is;		/* "the lock hand-off is" (not enough here) */
	const char *then;	/* "it makes" */
	const char *what;	/* "the lock hand-off" (orders nothing for ...) */
};

/*
 * "P1 took the lock after P0 released it, so ": who handed the lock to
 * whom, where the chain has a hand-off; else what passes it on.
 */
static void handed_on(const struct snapshot *s, const int *ev, const char *const *labels,
		      int n, const struct passer *passed, struct strbuf *out)
{
	for (int i = 0; i + 1 < n; i++)
		if (!strcmp(labels[i], "unlock-lock")) {
			sb_addf(out, "P%d took the lock after P%d released it, so ",
				s->events[ev[i + 1]].proc, s->events[ev[i]].proc);
			return;
		}
	sb_addf(out, "through %s, ", passed->what);
}

/* The passer of a chain's links: its lock hand-off, else its releases; NULL for neither. */
static const struct passer *passer(const char *const *labels, int n)
{
	static const struct passer lock = {
		"the lock hand-off is", "it makes", "the lock hand-off"
	}, releases = {
		"releases and acquires are", "they make", "what releases and acquires pass on"
	};
	const struct passer *found = NULL;
	int i;

	for (i = 0; i < n; i++) {
		if (!strcmp(labels[i], "unlock-lock"))
			return &lock;
		if (!strcmp(labels[i], "release") || !strcmp(labels[i], "acquire"))
			found = &releases;
	}
	return found;
}

/*
 * Why the check applies to this chain (events ev[], labels[] its
 * steps'): happens-before is an order in time, told through the release
 * or fence that makes a missed store count where the chain has one, else
 * in words said once an output; propagation is how far stores have
 * spread, told through the chain's first strong fence where it can be.
 */
static void why_check(const struct program *p, const struct snapshot *s,
		      const struct chain *c, struct legend *l, struct strbuf *out)
{
	const int *ev = c->ev;
	const char *const *labels = c->labels, *check = s->check;
	int i, n = c->n, fences = 0, told;
	bool overwrite, timeline;

	for (i = 0; i < n; i++)
		fences += is_strong_fence(labels[i]);
	if (!strcmp(check, "happens-before")) {
		if (missed_store_story(p, s, c, &l->point, out))
			return;
		if (!l->told_hb)
			sb_addf(out, "  Why it cannot happen: each step puts its event later in time "
				"than the one before (program order that a fence, acquire, release "
				"or dependency keeps; a load after the store it reads; a load before "
				"a store it missed, where a release or fence after that store brings "
				"it back to the load's CPU in order), and time cannot lead back to "
				"where it started.\n");
		l->told_hb = true;
		return;
	}
	if (strcmp(check, "propagation"))
		return;
	timeline = fence_timeline(p, s, ev, labels, n, out);
	for (i = 0; i < n - 1 && strcmp(labels[i], "co"); i++)
		;
	/*
	 * Why a lock, or a release and an acquire, leave this chain to propagation:
	 * happens-before did not close it, and the overwrite is where it breaks.
	 * Said first, as it is what a reader who relies on the lock asks.
	 */
	overwrite = i < n - 1 && s->events[ev[i + 1]].proc >= 0;
	if (overwrite) {
		const struct event *over = &s->events[ev[i]], *by = &s->events[ev[i + 1]];
		const struct passer *passed = passer(labels, n);

		/*
		 * What a reader of the lock, or of a release, asks first: why not
		 * it.  Where the timeline told the rest, the answer is the crux.
		 */
		if (passed && timeline && !l->point.len) {
			/*
			 * Short sentences: who handed the lock to whom, then the
			 * overwrite that takes P2 out of it (readers lost the "but" in
			 * one long sentence, and "that" without a clear antecedent).
			 */
			handed_on(s, ev, labels, n, passed, &l->point);
			sb_addf(&l->point, "a CPU that reads ");
			access_value(p, over, &l->point);
			sb_addf(&l->point, " must see ");
			access_value(p, &s->events[ev[0]], &l->point);
			sb_addf(&l->point, " too.  But P%d never reads ", by->proc);
			access_value(p, over, &l->point);
			sb_addf(&l->point, ": its store ");
			access_value(p, by, &l->point);
			sb_addf(&l->point, " overwrites it, and an overwrite passes on no ordering.  "
				"What forbids the outcome is the full barrier%s", fences > 1 ? "s" : "");
			/* Named by CPU: the steps, which have the numbers, come later. */
			for (i = 0, told = 0; i < n; i++)
				if (is_strong_fence(labels[i]))
					sb_addf(&l->point, "%s P%d", told++ ? " and" : " on",
						s->events[ev[i]].proc);
			sb_addf(&l->point, "%s (\"Putting it together\" below)",
				fences > 1 ? ", on both sides of that overwrite" : "");
			return;
		}
		if (passed) {
			sb_addf(out, "  Why %s not enough here: %s ", passed->is, passed->then);
			access_value(p, &s->events[ev[0]], out);
			sb_addf(out, " reach each CPU before ");
			access_value(p, over, out);
			sb_addf(out, " does, so a CPU that reads ");
			access_value(p, over, out);
			sb_addf(out, " has ");
			access_value(p, &s->events[ev[0]], out);
			sb_addf(out, " too; P%d does not read ", by->proc);
			access_value(p, over, out);
			sb_addf(out, ", it overwrites it (step %d, co), so nothing ", i + 1);
			access_value(p, over, out);
			sb_addf(out, " carried is sure to have reached P%d.  ", by->proc);
		} else {
			sb_addf(out, "  Why it cannot happen: P%d does not read ", by->proc);
			access_value(p, over, out);
			sb_addf(out, ", it overwrites it (step %d, co) without waiting for it to "
				"arrive.  ", i + 1);
		}
	} else {
		sb_addf(out, "  Why it cannot happen: ");
		step_list(labels, n, is_memory_order, out);
		sb_addf(out, " say only that a store reached a CPU late, and a store can reach "
			"other CPUs long after its own CPU ran it.  ");
	}
	if (fences) {
		sb_addf(out, "%s strong fence%s of ", overwrite ? "Only the" : "The",
			fences == 1 ? "" : "s");
		step_list(labels, n, is_strong_fence, out);
	} else {
		sb_addf(out, "A strong fence (smp_mb(), synchronize_rcu()) in it");
	}
	sb_addf(out, " forbid%s it%s: a CPU at a strong fence waits until every store it has "
		"seen has reached every CPU.",
		fences > 1 ? "" : "s", timeline ? ", as \"In time\" above shows" : "");
	/* The rule a reader takes away (include/linux/spinlock.h says it too). */
	for (i = 0; overwrite && i < n && strcmp(labels[i], "after-spinlock"); i++)
		;
	if (overwrite && i < n)
		sb_addf(out, "  That is what smp_mb__after_spinlock() is for: with it, a CPU that "
			"does not take the lock sees the critical sections in order.");
	sb_addf(out, "\n");
}

/*
 * The loads of s that are (on) or are not (!on) among the n events of
 * chain, as witness_reads() tells them; how many.
 */
static int loads_on_chain(const struct program *p, const struct snapshot *s, const int *chain,
			  int n, bool on, struct strbuf *out)
{
	int r, w, i, told = 0;

	for (r = 0; r < s->nevents; r++) {
		bool member = false;

		for (i = 0; i < n; i++)
			member |= chain[i] == r;
		if ((s->events[r].kind != EV_READ && s->events[r].kind != EV_LOCK_READ) ||
		    member != on)
			continue;
		for (w = 0; w < s->nevents; w++) {
			if (!rel_has(s->rf, w, r) ||
			    (s->events[r].kind == EV_LOCK_READ && s->events[w].kind != EV_UNLOCK))
				continue;
			sb_addf(out, "    ");
			reads_clause(p, s, r, w, true, out);
			sb_addf(out, ".\n");
			told++;
		}
	}
	return told;
}

/* Whether s has a load of process proc made by the statement at line. */
static bool runs_load(const struct snapshot *s, int proc, int line)
{
	int e;

	for (e = 0; e < s->nevents; e++)
		if (s->events[e].proc == proc && s->events[e].line == line &&
		    s->events[e].kind == EV_READ)
			return true;
	return false;
}

/* Whether the load of trace event i of trace t comes from a line an earlier one did. */
static bool line_seen(const struct proc_info *pi, int t, int i)
{
	int line = pi->traces[t].events[i].pos.line, u, j;

	for (u = 0; u <= t; u++)
		for (j = 0; j < (u < t ? pi->traces[u].nevents : i); j++)
			if (pi->traces[u].events[j].kind == EV_READ &&
			    pi->traces[u].events[j].pos.line == line)
				return true;
	return false;
}

/* The value register name (len bytes) of process proc starts with: 0 unless the test sets it. */
static long long register_initial(const struct litmus *t, int proc, const char *name, size_t len)
{
	int i;

	for (i = 0; i < t->ninit; i++)
		if (t->init[i].proc == proc && strlen(t->init[i].name) == len &&
		    !strncmp(t->init[i].name, name, len) && t->init[i].has_value &&
		    !t->init[i].value.is_addr)
			return t->init[i].value.n;
	return 0;
}

/*
 * "(P1 line 43 does not run here: 1:r1=0 in herd7's state is r1's
 * initial value, not a value read.)": a load the
 * execution's branches skip, whose register readers took for a value it
 * read.  The register is the one the line's text assigns, "r1 = ...".
 */
static void loads_not_run(const struct program *p, const struct snapshot *s, struct strbuf *out)
{
	int proc, t, i;

	for (proc = 0; proc < p->nprocs; proc++) {
		const struct proc_info *pi = &p->procs[proc];

		for (t = 0; t < pi->ntraces; t++)
			for (i = 0; i < pi->traces[t].nevents; i++) {
				int line = pi->traces[t].events[i].pos.line;
				struct strbuf text = { 0 };
				size_t len;
				long long initial;

				if (pi->traces[t].events[i].kind != EV_READ ||
				    runs_load(s, proc, line) || line_seen(pi, t, i))
					continue;
				source_line(p->test, line, &text);
				len = text.buf ? assigned_register(text.buf) : 0;
				if (len) {
					initial = register_initial(p->test, proc, text.buf, len);
					/* Short: readers who did not misread the state found it noise. */
					sb_addf(out, "  (P%d line %d does not run here: %d:%.*s=%lld in "
						"herd7's state is %.*s's initial value, not a value "
						"read.)\n", proc, line, proc, (int)len, text.buf,
						initial, (int)len, text.buf);
				}
				sb_free(&text);
			}
	}
}

/* "P0 line 12 `r0 = READ_ONCE(*y);` reads the initial value of y (0)." */
static void witness_reads(const struct program *p, const struct snapshot *s,
			  struct strbuf *out)
{
	loads_on_chain(p, s, NULL, 0, false, out);
}

/*
 * The lock hand-offs of a cycle: which unlock each lock takes is the
 * model's (lock.cat), not in the candidate's rf, and it is what tells two
 * candidates with the same loads apart.  Each on a line of its own, or
 * (inline) as clauses of one sentence.
 */
static void witness_handoffs(const struct program *p, const struct snapshot *s, const int *ev,
			     const char *const *labels, int n, bool in_sentence, struct strbuf *out)
{
	int i, told = 0;

	for (i = 0; i < n; i++) {
		int from = ev[i], to = ev[(i + 1) % n];

		if (strcmp(labels[i], "rf") || s->events[from].kind != EV_UNLOCK ||
		    rel_has(s->rf, from, to))
			continue;
		sb_addf(out, in_sentence ? (told ? " and " : "") : "    ");
		reads_clause(p, s, to, from, false, out);
		sb_addf(out, in_sentence ? "" : ".\n");
		told++;
	}
}

/* The order in which every CPU sees the stores to each variable with several. */
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
		sb_addf(out, "    Every CPU sees the stores to %s in this order:", p->loc_names[loc]);
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
	int x = s->co ? store_read(s, r) : -1;

	return x >= 0 && rel_has(s->co, x, w);
}

bool sc_before(const struct snapshot *s, int a, int b)
{
	return rel_has(s->po, a, b) || rel_has(s->rf, a, b) ||
	       (s->co && rel_has(s->co, a, b)) || reads_before(s, a, b);
}

/* The first link of c that hands a lock on, or -1. */
static int hand_off_link(const struct chain *c)
{
	int i;

	for (i = 0; i < c->n && strcmp(c->labels[i], "unlock-lock"); i++)
		;
	return i < c->n ? i : -1;
}

/*
 * "P1's critical section comes before P0's, and ": the order a lock
 * hand-off of the cycle puts the critical sections in, which is what a
 * cycle through a lock contradicts.
 */
static void lock_order(const struct snapshot *s, const struct chain *c, struct strbuf *out)
{
	int i = hand_off_link(c);

	if (i >= 0)
		sb_addf(out, "P%d's critical section comes before P%d's, and ",
			s->events[c->unlock[i]].proc, s->events[c->lock[i]].proc);
}

/* The link of a chain from a store to a load that reads it, or -1. */
static int read_link(const struct snapshot *s, const struct chain *c)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->labels[i], "rf") && s->events[c->ev[i]].kind == EV_WRITE)
			return i;
	return -1;
}

/*
 * A happens-before cycle told by one of its loads (link i reads): the
 * rest of the chain puts the load before the store it reads.
 */
static void read_too_early(const struct program *p, const struct snapshot *s,
			   const struct chain *c, int i, bool said_order, struct strbuf *out)
{
	int store = c->ev[i], load = c->ev[(i + 1) % c->n];

	if (!said_order)
		lock_order(s, c, out);
	name_event(p, s, load, out);
	sb_addf(out, " would run before ");
	name_event(p, s, store, out);
	sb_addf(out, ", the store it reads, which ");
	name_check(s->check, out);
	sb_addf(out, " forbids.\n");
}

/* The words of the links of c into the legend: those a reader has met. */
static void legend_links(struct legend *l, const struct snapshot *s, const struct chain *c)
{
	int i;

	for (i = 0; i < c->n; i++) {
		legend_add(l, c->labels[i]);
		l->lock_handoff |= !strcmp(c->labels[i], "rf") &&
				   s->events[c->ev[i]].kind == EV_UNLOCK;
	}
}

/*
 * A rejected candidate: what it reads, its chain in one line, the steps,
 * how it ends and why the check applies; the words into l.  The shape's
 * name, or NULL.
 */
static const char *tell_cycle(const struct program *p, struct snapshot *s, struct legend *l,
			      struct strbuf *out)
{
	struct chain c;
	int i, reads, handed;
	const char *shape = NULL;
	struct strbuf reads_told = { 0 }, order = { 0 }, handoffs = { 0 }, taken = { 0 };
	bool same_loads, same_order, hb = !strcmp(s->check, "happens-before");

	if (!s->nsteps) {
		sb_addf(out, "  (the cycle is too long to tell step by step)\n");
		return NULL;
	}
	if (!s->pair)
		rotate_cycle(s);
	build_chain(p, s, &c);
	/* The shape and the lock hand-offs from the links as the model has them. */
	if (!s->pair) {
		shape = shape_name(s, c.ev, c.labels, c.n);
		witness_handoffs(p, s, c.ev, c.labels, c.n, false, &handoffs);
		witness_handoffs(p, s, c.ev, c.labels, c.n, true, &taken);
	}
	merge_hand_offs(p, s, &c);
	handed = hand_off_link(&c);
	witness_reads(p, s, &reads_told);
	witness_coherence(p, s, &order);
	same_loads = l->first_reads.buf &&
		     !strcmp(l->first_reads.buf, reads_told.buf ? reads_told.buf : "");
	same_order = same_loads && !strcmp(l->first_order.buf ? l->first_order.buf : "",
					   order.buf ? order.buf : "");
	reads = same_loads && hb && !s->pair ? read_link(s, &c) : -1;
	/*
	 * Way 1's loads, another lock taken first, and a load that would run
	 * too early: one sentence, which readers asked for over a chain.
	 */
	if (reads >= 0 && taken.buf && handed >= 0) {
		sb_addf(out, "  The same loads%s as Way 1, but with P%d's critical section first "
			"(%s): then ", same_order && order.buf ? " and store order" : "",
			s->events[c.unlock[handed]].proc, taken.buf);
		read_too_early(p, s, &c, reads, true, out);
		legend_add(l, s->check);
		goto done;
	}
	if (!s->pair) {
		chain_line(p, s, c.ev, c.labels, c.n, true, l, out);
		legend_links(l, s, &c);
	}
	if (same_loads) {
		sb_addf(out, "  The same loads%s as Way 1%s\n",
			same_order && order.buf ? " and store order" : "",
			handoffs.buf || (!same_order && order.buf) ? ", but:" : ".");
	} else {
		sb_addf(out, "  It is the candidate where:\n%s", reads_told.buf ? reads_told.buf : "");
		if (!l->first_reads.buf) {
			sb_addf(&l->first_reads, "%s", reads_told.buf ? reads_told.buf : "");
			sb_addf(&l->first_order, "%s", order.buf ? order.buf : "");
		}
	}
	sb_addf(out, "%s", handoffs.buf ? handoffs.buf : "");
	if (!same_order)
		sb_addf(out, "%s", order.buf ? order.buf : "");
	/* Its steps are Way 1's words again; the chain line says them. */
	if (!same_loads || s->pair) {
		bool in_time = hb;

		legend_links(l, s, &c);
		/* A missed store is no step in time, even in happens-before's chain. */
		for (i = 0; i < c.n; i++)
			in_time &= strcmp(c.labels[i], "fr") != 0;
		sb_addf(out, in_time && !s->pair ?
			"  Step by step, each event must come after the one before:\n" :
			"  Step by step:\n");
		for (i = 0; i < c.n; i++)
			sb_addf(out, "  %d. %s [%s].\n", i + 1, c.said[i].buf, c.labels[i]);
	}
	legend_add(l, s->check);
	if (s->pair) {
		sb_addf(out, "  The model's '%s' check forbids this.\n", s->check);
		goto done;
	}
	if (reads >= 0) {
		sb_addf(out, "  Then ");
		read_too_early(p, s, &c, reads, false, out);
		goto done;
	}
	sb_addf(out, "  That leads back to ");
	name_event(p, s, c.ev[0], out);
	sb_addf(out, ": it would have to come after itself, which ");
	name_check(s->check, out);
	sb_addf(out, " forbids.\n");
	why_check(p, s, &c, l, out);
done:
	free_chain(&c);
	sb_free(&reads_told);
	sb_free(&order);
	sb_free(&handoffs);
	sb_free(&taken);
	return shape;
}

/* What in the test orders the program-order pair a, b: its label, or NULL. */
static const char *pair_order(const struct snapshot *s, int a, int b)
{
	const struct event *ea = &s->events[a], *eb = &s->events[b];
	int f;

	if (ea->kind == EV_READ && has_tag(ea, "acquire"))
		return "acquire";
	if (eb->kind == EV_WRITE && has_tag(eb, "release"))
		return "release";
	if (fully_ordered_rmw(s, a) || fully_ordered_rmw(s, b))
		return "mb";
	if (rel_has(s->addr, a, b) || rel_has(s->data, a, b) || rel_has(s->ctrl, a, b))
		return rel_has(s->addr, a, b) ? "addr" : rel_has(s->data, a, b) ? "data" : "ctrl";
	if (ea->loc >= 0 && ea->loc == eb->loc)
		return "po-loc";
	for (f = 0; f < s->nevents; f++)
		if ((s->events[f].kind == EV_FENCE || fully_ordered_rmw(s, f)) &&
		    rel_has(s->po, a, f) && rel_has(s->po, f, b))
			return ordering_tag(s, f) ? ordering_tag(s, f) :
			       s->events[f].ntags ? s->events[f].tags[0] : "F";
	return NULL;
}

/*
 * A shortest cycle of r (n events) into cycle, how long, 0 if none or
 * longer than max: breadth first from each event.
 */
static int shortest_cycle(const struct rel *r, int n, int *cycle, int max)
{
	int *dist = xmalloc(n * sizeof(*dist)), *prev = xmalloc(n * sizeof(*prev));
	int *queue = xmalloc(n * sizeof(*queue)), best = 0, start;

	for (start = 0; start < n; start++) {
		int head = 0, tail = 0, found = -1, x, y;

		for (x = 0; x < n; x++)
			dist[x] = -1;
		dist[start] = 0;
		queue[tail++] = start;
		while (head < tail && found < 0) {
			x = queue[head++];
			if (best && dist[x] + 1 >= best)
				break;
			for (y = 0; y < n && found < 0; y++) {
				if (!rel_has(r, x, y))
					continue;
				if (y == start)
					found = x;
				else if (dist[y] < 0) {
					dist[y] = dist[x] + 1;
					prev[y] = x;
					queue[tail++] = y;
				}
			}
		}
		if (found < 0 || dist[found] + 1 > max)
			continue;
		best = dist[found] + 1;
		for (x = found, y = best - 1; y >= 0; y--, x = prev[x])
			cycle[y] = x;
	}
	free(dist);
	free(prev);
	free(queue);
	return best;
}

/*
 * An outcome no sequential interleaving gives has a cycle of program
 * order and communication (rf, co, fr) among the accesses of the
 * witness: a shortest one into cycle, how long (0: none).
 */
static int sc_cycle(const struct snapshot *s, int *cycle, int max)
{
	int n = s->nevents, i, j, len;
	struct rel *sc = rel_new(n);

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (s->events[i].kind != EV_FENCE && s->events[j].kind != EV_FENCE &&
			    sc_before(s, i, j))
				rel_add(sc, i, j);
	len = shortest_cycle(sc, n, cycle, max);
	free(sc);
	return len;
}

int unordered_pairs(const struct snapshot *s, int *pairs, int max)
{
	int cycle[64], len = sc_cycle(s, cycle, 64), i, found = 0;

	if (!len)
		return -1;
	for (i = 0; i < len && found < max; i++) {
		int a = cycle[i], b = cycle[(i + 1) % len];

		if (rel_has(s->po, a, b) && !pair_order(s, a, b)) {
			pairs[2 * found] = a;
			pairs[2 * found + 1] = b;
			found++;
		}
	}
	return found;
}

/*
 * The witness's cycle as a chain, words into l: each link po (or what
 * orders it), rf, co or fr.  The shape's name, or NULL; nothing without
 * a cycle.
 */
static const char *witness_chain(const struct program *p, const struct snapshot *s,
				 struct legend *l, struct strbuf *out)
{
	int cycle[64], len = sc_cycle(s, cycle, 64), i;
	const char *labels[64];

	for (i = 0; i < len; i++) {
		int a = cycle[i], b = cycle[(i + 1) % len];

		if (rel_has(s->po, a, b))
			labels[i] = pair_order(s, a, b) ? pair_order(s, a, b) : "po";
		else
			labels[i] = rel_has(s->rf, a, b) ? "rf" : reads_before(s, a, b) ? "fr" : "co";
		legend_add(l, labels[i]);
	}
	if (!len)
		return NULL;
	chain_line(p, s, cycle, labels, len, false, l, out);
	return shape_name(s, cycle, labels, len);
}
/*
 * What would keep a program-order pair in order, by what its accesses
 * are: the kernel's own rules of thumb (memory-barriers.txt), which the
 * model agrees with, said so that a present but weaker ordering is not
 * taken for a fix.
 */
static const char *what_orders(const struct event *a, const struct event *b)
{
	bool store_first = a->kind == EV_WRITE, store_then = b->kind == EV_WRITE;

	if (store_first && !store_then)
		return "(a store, then a load: only a full barrier, smp_mb() or a fully ordered RMW "
			"such as xchg(), orders these; the "
		       "store can wait in the CPU's store buffer while the load runs, on x86 too)";
	if (store_first)
		return "(two stores: smp_wmb() between them, or a release for the second, "
		       "orders them)";
	if (!store_then)
		return "(two loads: smp_rmb() between them, or an acquire for the first, "
		       "orders them; a branch on the first does not order a later load)";
	return "(a load, then a store: an acquire for the load, a release for the store, "
	       "or a dependency orders them)";
}

static void witness_reordering(const struct program *p, const struct snapshot *s,
			       struct strbuf *point, struct strbuf *out)
{
	int pairs[2 * 32], n = unordered_pairs(s, pairs, 32), i, stores_then_loads = 0;

	if (n < 0) {
		sb_addf(out, "  Some interleaving of the processes, one statement at a time, "
			"gives this outcome.\n");
		return;
	}
	if (!n) {
		sb_addf(out, "  If each CPU ran its statements in program order, this outcome could "
			"not happen, and each program-order pair it needs reordered has some "
			"ordering in the test, but not one strong enough: for example smp_wmb() "
			"orders only stores, smp_rmb() only loads, and only a full barrier orders "
			"a store before a later load.\n");
		return;
	}
	if (n == 1)
		sb_addf(out, "  If each CPU ran its statements in program order, this outcome could "
			"not happen: it needs these accesses to take effect out of program order, "
			"and nothing in the test orders them (no fence, acquire, release or "
			"dependency between them):\n");
	else
		sb_addf(out, "  If each CPU ran its statements in program order, this outcome could not "
			"happen.  Each of these reorderings is enough on its own to produce it, "
			"and nothing in the test prevents them (no fence, acquire, release or "
			"dependency between them): so a fix must block each one:\n");
	for (i = 0; i < n; i++) {
		const char *why = what_orders(&s->events[pairs[2 * i]], &s->events[pairs[2 * i + 1]]);
		bool told = false;
		int j;

		for (j = 0; j < i; j++)
			told |= !strcmp(why, what_orders(&s->events[pairs[2 * j]],
							 &s->events[pairs[2 * j + 1]]));
		sb_addf(out, "    ");
		name_event(p, s, pairs[2 * i], out);
		sb_addf(out, "\n      then ");
		name_event(p, s, pairs[2 * i + 1], out);
		sb_addf(out, "\n      %s\n", told ? "(likewise)" : why);
		stores_then_loads += s->events[pairs[2 * i]].kind == EV_WRITE &&
				     s->events[pairs[2 * i + 1]].kind == EV_READ;
	}
	/* Store buffering, whatever the shape: the one reason, first. */
	if (stores_then_loads == n && !point->len)
		sb_addf(point, "each CPU's store can wait in its store buffer while its later "
			"load runs, so the load%s can read the old value%s; only a full barrier "
			"between them keeps them in order", n > 1 ? "s" : "", n > 1 ? "s" : "");
}

/* Whether process proc takes the lock loc in the witness. */
static bool takes(const struct snapshot *s, int proc, int loc)
{
	int i;

	for (i = 0; i < s->nevents; i++)
		if (s->events[i].proc == proc && s->events[i].loc == loc && is_lock(&s->events[i]))
			return true;
	return false;
}

/* The witness's first lock event of loc. */
static int first_taker(const struct snapshot *s, int loc)
{
	int i;

	for (i = 0; i < s->nevents; i++)
		if (s->events[i].loc == loc && is_lock(&s->events[i]))
			return i;
	return -1;
}

/*
 * Where process proc's code takes the lock loc (in any run), its line,
 * the line of the load a branch around it tests and that of a load of
 * the same variable before the unlock (the recheck of double-checked
 * locking); 0 when it never takes it, or for what is not there.
 */
static int lock_line(const struct program *p, int proc, int loc, int *branch_line,
		     int *recheck_line)
{
	const struct proc_info *pi = &p->procs[proc];
	int t, i, k;

	for (t = 0; t < pi->ntraces; t++) {
		const struct trace *tr = &pi->traces[t];

		for (i = 0; i < tr->nevents; i++) {
			const struct trace_event *te = &tr->events[i], *test;

			if ((te->kind != EV_LOCK_READ && te->kind != EV_LOCK_WRITE) || te->loc != loc)
				continue;
			test = te->ctrl_deps ? &tr->events[__builtin_ctzll(te->ctrl_deps)] : NULL;
			*branch_line = test ? test->pos.line : 0;
			*recheck_line = 0;
			for (k = i + 1; test && k < tr->nevents && !*recheck_line &&
			     !(tr->events[k].kind == EV_UNLOCK && tr->events[k].loc == loc); k++)
				if (tr->events[k].kind == EV_READ && tr->events[k].loc == test->loc)
					*recheck_line = tr->events[k].pos.line;
			return te->pos.line;
		}
	}
	return 0;
}

/* Whether process proc makes a store of the chain cycle[]. */
static int chain_stores(const struct snapshot *s, const int *cycle, int len, int proc,
			int stores[2])
{
	int i, n = 0;

	for (i = 0; i < len && n < 2; i++)
		if (s->events[cycle[i]].proc == proc && s->events[cycle[i]].kind == EV_WRITE)
			stores[n++] = cycle[i];
	return n;
}

/*
 * A lock some CPU takes orders nothing for a CPU of the chain that does
 * not take it: say so, and why it does not, for each such pair.
 */
static void locks_not_shared(const struct program *p, const struct snapshot *s,
			     struct strbuf *point, struct strbuf *out)
{
	int cycle[64], len = sc_cycle(s, cycle, 64), l, i;

	for (l = 0; l < s->nevents; l++) {
		const struct event *lk = &s->events[l];
		uint64_t said = 0;

		/* Each lock once, at its first acquisition. */
		if (!is_lock(lk) || first_taker(s, lk->loc) != l)
			continue;
		for (i = 0; i < len; i++) {
			int proc = s->events[cycle[i]].proc, line, branch = 0, recheck = 0;
			int stores[2], nstores;

			if (proc < 0 || proc >= 64 || proc == lk->proc || (said >> proc & 1) ||
			    takes(s, proc, lk->loc))
				continue;
			said |= (uint64_t)1 << proc;
			line = lock_line(p, proc, lk->loc, &branch, &recheck);
			if (line) {
				sb_addf(out, "  P%d does not take %s here: it skips line %d `", proc,
					p->loc_names[lk->loc], line);
				source_line(p->test, line, out);
				sb_addf(out, "`");
				if (branch)
					sb_addf(out, ", as the branch on what line %d read goes "
						"around it", branch);
			} else {
				sb_addf(out, "  P%d never takes %s", proc, p->loc_names[lk->loc]);
			}
			sb_addf(out, ".");
			/* The crux first, as readers asked: the stores seen out of order. */
			nstores = chain_stores(s, cycle, len, lk->proc, stores);
			sb_addf(out, "  So the lock gives P%d no ordering", proc);
			if (nstores) {
				sb_addf(out, ": it may see the stores P%d makes under the lock in "
					"either order", lk->proc);
				if (nstores == 2) {
					sb_addf(out, ", ");
					access_value(p, &s->events[stores[1]], out);
					sb_addf(out, " before ");
					access_value(p, &s->events[stores[0]], out);
				}
			}
			sb_addf(out, ".");
			if (branch && !point->len)
				sb_addf(point, "P%d's first check, at line %d, runs without %s, so the "
					"lock orders nothing for what P%d does after that check", proc, branch,
					p->loc_names[lk->loc], proc);
			if (branch && recheck) {
				sb_addf(out, "  The recheck at line %d `", recheck);
				source_line(p->test, recheck, out);
				sb_addf(out, "` needs no ordering of its own: it runs under the lock, "
					"after the critical section of whoever held it before, stores "
					"included.  Keep the lock all the same: it is what lets only "
					"one CPU initialise.");
			}
			sb_addf(out, "\n");
		}
	}
}

/*
 * Whether some process's code reads a variable, then, under a lock it
 * takes on what it read, reads the variable again before unlocking:
 * double-checked locking, whatever the variable is called.
 */
static bool double_checked(const struct program *p)
{
	int proc, t, i, j, k;

	for (proc = 0; proc < p->nprocs; proc++) {
		const struct proc_info *pi = &p->procs[proc];

		for (t = 0; t < pi->ntraces; t++) {
			const struct trace *tr = &pi->traces[t];
			const struct trace_event *e = tr->events;

			for (i = 0; i < tr->nevents; i++)
				for (j = i + 1; e[i].kind == EV_READ && j < tr->nevents; j++)
					for (k = j + 1; (e[j].kind == EV_LOCK_READ ||
							 e[j].kind == EV_LOCK_WRITE) &&
							(e[j].ctrl_deps >> i & 1) && k < tr->nevents &&
							!(e[k].kind == EV_UNLOCK && e[k].loc == e[j].loc); k++)
						if (e[k].kind == EV_READ && e[k].loc == e[i].loc)
							return true;
		}
	}
	return false;
}

/* The word after "Result:" in the test's comments, into word; false if none. */
static bool result_comment(const struct litmus *t, char *word, size_t size)
{
	const char *r = t->text ? strstr(t->text, "Result:") : NULL;
	size_t len = 0;

	if (!r)
		return false;
	for (r += strlen("Result:"); *r == ' ' || *r == '\t'; r++)
		;
	while (isalnum((unsigned char)r[len]))
		len++;
	if (!len || len >= size)
		return false;
	memcpy(word, r, len);
	word[len] = '\0';
	return true;
}

/* The shared locations a condition names, each once. */
struct final_locs {
	const char *names[8];
	int n;
};

static void add_final_loc(const struct cond_loc *l, void *ctx)
{
	struct final_locs *finals = ctx;
	int i;

	if (l->proc >= 0)
		return;
	for (i = 0; i < finals->n; i++)
		if (!strcmp(finals->names[i], l->name))
			return;
	if (finals->n < (int)(sizeof(finals->names) / sizeof(*finals->names)))
		finals->names[finals->n++] = l->name;
}

/* "[x], [y] and [z]", or "x, y and z". */
static void list_finals(const struct final_locs *finals, bool brackets, struct strbuf *out)
{
	int i;

	for (i = 0; i < finals->n; i++)
		sb_addf(out, "%s%s%s%s", i == 0 ? "" : i == finals->n - 1 ? " and " : ", ",
			brackets ? "[" : "", finals->names[i], brackets ? "]" : "");
}

/*
 * ", where [z] is z's final value": herd7 writes a location the
 * condition reads at the end in brackets, which readers took for
 * notation they should already know.
 */
static void final_values(const struct prop *cond, struct strbuf *out)
{
	struct final_locs finals = { { 0 }, 0 };

	prop_each_loc(cond, add_final_loc, &finals);
	if (!finals.n)
		return;
	sb_addf(out, ", where ");
	list_finals(&finals, true, out);
	if (finals.n == 1) {
		sb_addf(out, " is %s's final value", finals.names[0]);
		return;
	}
	sb_addf(out, " are the final values of ");
	list_finals(&finals, false, out);
}

/*
 * The first line: the verdict in words, whether the test's Result:
 * comment agrees, and the shape's name when it has one.
 */
static void opening(const struct program *p, const struct outcomes *o, const char *shape,
		    struct strbuf *out)
{
	const char *seen = observation(o);
	struct strbuf cond = { 0 };
	long total = o->positive + o->negative;
	bool swap = p->test->quantifier == Q_NOT_EXISTS;
	char result[32];

	prop_print(p->test->cond, &cond);
	final_values(p->test->cond, &cond);
	if (!o->positive)
		sb_addf(out, "  Forbidden: the outcome (%s) never happens (%s)", cond.buf, seen);
	else
		/* herd7's own words, where the reader's eye goes: what "Ok" is, too. */
		sb_addf(out, "  Allowed: the outcome (%s) %s (%s: %ld of the %ld executions the "
			"model accepts end%s in it, which herd7 says with \"%s\" and \"Positive: "
			"%ld Negative: %ld\"%s; a count of ways, not a likelihood)",
			cond.buf, o->negative ? "can happen" : "always happens",
			seen, o->positive, total, o->positive == 1 ? "s" : "",
			condition_ok(p->test, o) ? "Ok" : "No", swap ? o->negative : o->positive,
			swap ? o->positive : o->negative,
			swap ? ", counted the other way round for a ~exists test" : "");
	/* Result: DEADLOCK and the like are about runs on hardware: no verdict to compare. */
	if (result_comment(p->test, result, sizeof(result)) &&
	    (!strcmp(result, "Never") || !strcmp(result, "Sometimes") || !strcmp(result, "Always")))
		sb_addf(out, strcmp(result, seen) ? ", unlike the test's \"Result: %s\"" :
			", as the test's \"Result: %s\" says", result);
	if (double_checked(p))
		sb_addf(out, "; this is double-checked locking%s%s", shape ? ", and underneath, " :
			"", shape ? shape : "");
	else if (shape)
		sb_addf(out, "; the shape is %s", shape);
	sb_addf(out, ".\n");
	sb_free(&cond);
}

/*
 * herd7's first line is the test's question, which over a forbidden
 * outcome reads as a verdict opposite to ours: said only there, as
 * readers found the note on every output noise where the two agree.
 */
static void herd7_gloss(const struct program *p, const struct outcomes *o, struct strbuf *out)
{
	if (p->test->quantifier == Q_EXISTS && !o->positive)
		sb_addf(out, "  (herd7's block above: \"Test %s Allowed\" only names the question, "
			"whether the outcome is allowed; the \"No\" under it is the answer, and its "
			"States are the outcomes that can happen.)\n",
			p->test->name);
	else if (p->test->quantifier == Q_NOT_EXISTS && o->positive)
		sb_addf(out, "  (herd7's block above: \"Test %s Forbidden\" is what the test "
			"claims, and \"No\" says the claim fails.)\n", p->test->name);
}

/* The shared location whose initial value is a pointer to target, or NULL. */
static const char *points_at_first(const struct litmus *t, const char *target)
{
	int i;

	for (i = 0; i < t->ninit; i++)
		if (t->init[i].proc < 0 && t->init[i].has_value && t->init[i].value.is_addr &&
		    t->init[i].value.addr_of && !strcmp(t->init[i].value.addr_of, target))
			return t->init[i].name;
	return NULL;
}

/*
 * "In herd7's state 1:r0=y; 1:r1=0;, r0=y is &y, the initial value of p:
 * P1 read p before the store to it reached P1's CPU, which can happen.":
 * readers of a forbidden outcome took a state where a register holds
 * the old pointer for the bad one.  Said of the first such register.
 */
static void old_pointers(const struct program *p, const struct outcomes *o, struct strbuf *out)
{
	int i, v;

	for (i = 0; i < o->nstates; i++)
		for (v = 0; v < o->nvars; v++) {
			const struct value val = o->states[i].vals[v];
			const char *target, *ptr;

			if (o->vars[v].proc < 0 || !val.is_addr || value_is_symbolic(val))
				continue;
			target = p->loc_names[val.n];
			ptr = points_at_first(p->test, target);
			if (!ptr)
				continue;
			sb_addf(out, "  In herd7's state ");
			state_print(p, o, o->states[i].vals, out);
			sb_addf(out, ", %s=%s is &%s, the initial value of %s: P%d read %s before the "
				"store to it reached P%d's CPU, which can happen; only the outcome "
				"above cannot.\n", o->vars[v].name, target, target, ptr,
				o->vars[v].proc, ptr, o->vars[v].proc);
			return;
		}
}

/* How many candidates reached the outcome and what rejected them, in one line. */
static void rejections(const struct outcomes *o, struct strbuf *out)
{
	long total = 0;
	int i;

	for (i = 0; i < o->nreasons; i++)
		total += o->reason_counts[i];
	if (total == 1) {
		sb_addf(out, "  The code can give these values in only one way (a candidate "
			"execution), and the model's '%s' check rules it out:\n", o->reasons[0]);
		return;
	}
	sb_addf(out, "  The code can give these values in %ld ways (candidate executions), and "
		"the model rules out each one", total);
	/* Each way told names its check: the tally only where some are not told. */
	if (o->ncounterexamples > 1 && o->ncounterexamples == total) {
		sb_addf(out, ", as told below:\n");
		return;
	}
	sb_addf(out, " (");
	for (i = 0; i < o->nreasons; i++)
		sb_addf(out, "%s%ld by '%s'", i ? ", " : "", o->reason_counts[i], o->reasons[i]);
	if (o->ncounterexamples > 1)
		sb_addf(out, "), in %d kinds, each told below:\n", o->ncounterexamples);
	else
		sb_addf(out, "), all alike:\n");
}

/* The length of a process body's text, from its '{' to the matching '}'. */
static size_t body_length(const char *open)
{
	const char *p = open;
	int depth = 0;

	do {
		depth += (*p == '{') - (*p == '}');
		p++;
	} while (*p && depth);
	return p - open;
}

/* Same code: parameters and body, run on two CPUs. */
bool same_code(const struct litmus *t, int a, int b)
{
	const struct process *x = &t->procs[a], *y = &t->procs[b];
	size_t len = body_length(x->body_text);
	int i;

	if (x->nparams != y->nparams || len != body_length(y->body_text) ||
	    memcmp(x->body_text, y->body_text, len))
		return false;
	for (i = 0; i < x->nparams; i++)
		if (strcmp(x->params[i].name, y->params[i].name) ||
		    strcmp(x->params[i].type, y->params[i].type))
			return false;
	return true;
}

/* The first process after a with the same code, or -1. */
static int mirror_of(const struct program *p, int a)
{
	int b;

	for (b = a + 1; b < p->nprocs; b++)
		if (same_code(p->test, a, b))
			return b;
	return -1;
}

/*
 * vals, a final state of o, with the registers of processes a and b
 * swapped, into mirror; false if a register of one has no match in the
 * other.
 */
static bool swap_state(const struct outcomes *o, int a, int b, const struct value *vals,
		       struct value *mirror)
{
	int i, j;

	for (i = 0; i < o->nvars; i++) {
		const struct state_var *v = &o->vars[i];
		int other = v->proc == a ? b : v->proc == b ? a : v->proc;

		for (j = 0; j < o->nvars && (o->vars[j].proc != other ||
					     strcmp(o->vars[j].name, v->name)); j++)
			;
		if (j == o->nvars)
			return false;
		mirror[i] = vals[j];
	}
	return true;
}

/*
 * "Mapped onto that pattern, P0 would be the sleeper (x its task state, y
 * the condition) and P1 the waker.": SB's kernel note in the test's names,
 * from the chain s's cycle (readers asked which CPU plays which part).
 */
static void sleeper_roles(const struct program *p, const struct snapshot *s, struct strbuf *out)
{
	int cycle[64], len = s ? sc_cycle(s, cycle, 64) : 0, i, sleeper = -1, waker = -1;
	int state = -1, cond = -1;

	for (i = 0; i < len; i++) {
		const struct event *e = &s->events[cycle[i]];

		if (e->proc < 0)
			continue;
		if (sleeper < 0 || e->proc < sleeper)
			sleeper = e->proc;
	}
	for (i = 0; i < len; i++) {
		const struct event *e = &s->events[cycle[i]];

		if (e->proc == sleeper && e->kind == EV_WRITE)
			state = e->loc;
		else if (e->proc == sleeper && e->kind == EV_READ)
			cond = e->loc;
		else if (e->proc >= 0 && e->proc != sleeper)
			waker = e->proc;
	}
	if (state < 0 || cond < 0 || waker < 0)
		return;
	sb_addf(out, "  Mapped onto that pattern, P%d would be the sleeper (%s its task state, "
		"%s the condition) and P%d the waker.\n", sleeper, p->loc_names[state],
		p->loc_names[cond], waker);
}

/*
 * Whether the outcome is reached in exactly two executions, each the
 * other with the parts of two processes of the same code (into *a, *b)
 * swapped: then the reader needs only one of them told.  Two executions
 * in two final states are one in each.
 */
static bool mirrored_pair(const struct program *p, const struct outcomes *o, int *a, int *b)
{
	int s, first = -1, second = -1;
	struct value *swapped;
	bool mirrored = false;

	if (o->positive != 2)
		return false;
	for (s = 0; s < o->nstates; s++)
		if (state_holds(p, p->test->cond, o, o->states[s].vals))
			*(first < 0 ? &first : &second) = s;
	if (second < 0)
		return false;
	swapped = xcalloc(o->nvars + 1, sizeof(*swapped));
	for (*a = 0; *a < p->nprocs; ++*a) {
		*b = mirror_of(p, *a);
		mirrored = *b >= 0 && swap_state(o, *a, *b, o->states[first].vals, swapped) &&
			   values_eq(swapped, o->states[second].vals, o->nvars);
		if (mirrored)
			break;
	}
	free(swapped);
	return mirrored;
}

void explain(const struct program *p, const struct outcomes *o, bool with_fixes,
	     bool define_words, const char *in_short, struct strbuf *out)
{
	struct strbuf body = { 0 };
	struct legend l = { 0 };
	const char *shape = NULL;
	long told = 0;
	int i, twin, twin_of;

	if (o->witness) {
		int chain[64], len = sc_cycle(o->witness, chain, 64);
		struct strbuf others = { 0 };

		shape = witness_chain(p, o->witness, &l, &body);
		if (mirrored_pair(p, o, &twin, &twin_of))
			sb_addf(&body, "  It happens in 2 executions, mirror images of each other "
				"(P%d and P%d run the same code).  One of them, when:\n", twin,
				twin_of);
		else if (o->positive > 1)
			sb_addf(&body, "  It happens, in one of the %ld executions that reach it, "
				"when:\n", o->positive);
		else
			sb_addf(&body, "  It happens when:\n");
		loads_on_chain(p, o->witness, chain, len, len > 0, &body);
		if (len && loads_on_chain(p, o->witness, chain, len, false, &others))
			sb_addf(&body, "  The other loads of this execution, off the chain:\n%s",
				others.buf);
		sb_free(&others);
		loads_not_run(p, o->witness, &body);
		witness_coherence(p, o->witness, &body);
		witness_reordering(p, o->witness, &l.point, &body);
		locks_not_shared(p, o->witness, &l.point, &body);
		if (!with_fixes)
			sb_addf(&body, "  (--suggest lists the cheapest changes that forbid it.)\n");
	} else if (o->ncounterexamples) {
		rejections(o, &body);
		for (i = 0; i < o->ncounterexamples; i++) {
			const char *s;

			if (o->ncounterexamples > 1) {
				sb_addf(&body, "  Way %d of %d", i + 1, o->ncounterexamples);
				if (o->counterexample_counts[i] > 1)
					sb_addf(&body, " (%ld executions like it)",
						o->counterexample_counts[i]);
				sb_addf(&body, ":\n");
			}
			s = tell_cycle(p, o->counterexamples[i], &l, &body);
			shape = shape ? shape : s;
			told += o->counterexample_counts[i];
		}
		for (i = 0; i < o->nreasons; i++)
			told -= o->reason_counts[i];
		if (told)
			sb_addf(&body, "  (%ld more rejected candidates, not taken apart.)\n", -told);
	} else if (!o->positive) {
		sb_addf(&body, "  No run of the processes can produce those values at all.\n");
	}
	sb_addf(out, "Explanation:\n");
	opening(p, o, shape, out);
	/* Where a reader meets herd7's "Allowed" over a forbidden outcome: right away. */
	herd7_gloss(p, o, out);
	if (!o->positive)
		old_pointers(p, o, out);
	/* What readers found deep in the why and asked to read first, the lesson before the action. */
	if (l.point.len)
		sb_addf(out, "  The point: %s.\n", l.point.buf);
	if (in_short && *in_short)
		sb_addf(out, "  In short: %s.\n", in_short);
	kernel_note(shape, out);
	if (shape && shape == shapes[SB_SHAPE].name)
		sleeper_roles(p, o->positive ? o->witness : o->ncounterexamples ?
			      o->counterexamples[0] : NULL, out);
	sb_addf(out, "%s", body.buf ? body.buf : "");
	for (i = 0; i < o->nflags; i++)
		sb_addf(out, "  Flag %s: some accepted execution %s.\n", o->flags[i],
			!strcmp(o->flags[i], "data-race") ?
			"has a data race (plain accesses not ordered against each other)" :
			"raises this flag of the model");
	legend_print(&l, define_words, out);
	sb_free(&l.point);
	sb_free(&l.first_reads);
	sb_free(&l.first_order);
	sb_free(&body);
}

/* An event's box: "P0 line 15: W[once] buf=1" over its statement. */
static void add_node(struct graph *g, const struct program *p, const struct snapshot *s,
		     int id, int po_prev)
{
	const struct event *e = &s->events[id];
	struct strbuf label = { 0 };
	struct graph_node node = { .event = id, .proc = e->proc, .po_prev = po_prev };

	if (e->proc < 0) {
		sb_addf(&label, "initial value: %s=", p->loc_names[e->loc]);
		explained_value(p, e->val, &label);
	} else {
		sb_addf(&label, "P%d line %d: ", e->proc, e->line);
		event_print(p, e, &label);
		sb_addf(&label, "\n");
		source_line(p->test, e->line, &label);
	}
	node.label = arena_strndup(&g->arena, label.buf, label.len);
	arena_push(&g->arena, g->nodes, g->nnodes, node);
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
 * The initial values some edge touches, then each process' events in
 * program order, each knowing the one before it.
 */
static void add_nodes(struct graph *g, const struct program *p, const struct snapshot *s)
{
	int proc, i, prev;

	for (i = 0; i < s->nevents; i++)
		if (s->events[i].proc < 0 && drawn(s, i))
			add_node(g, p, s, i, -1);
	for (proc = 0; proc < p->nprocs; proc++) {
		prev = -1;
		for (i = 0; i < s->nevents; i++) {
			if (s->events[i].proc != proc)
				continue;
			add_node(g, p, s, i, prev);
			prev = g->nnodes - 1;
		}
	}
}

/* The node of event id (every event an edge touches has one). */
static int node_of(const struct graph *g, int id)
{
	int i;

	for (i = 0; i < g->nnodes; i++)
		if (g->nodes[i].event == id)
			return i;
	die(EXIT_INTERNAL, "graph: event %d has no node", id);
}

static void add_edge(struct graph *g, int from, int to, const char *colour, bool marked,
		     bool dashed, const char *label)
{
	struct graph_edge e = { node_of(g, from), node_of(g, to), colour, marked, dashed,
				arena_strndup(&g->arena, label, strlen(label)) };

	arena_push(&g->arena, g->edges, g->nedges, e);
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
static void add_communication(struct graph *g, const struct snapshot *s)
{
	int a, b;

	for (a = 0; a < s->nevents; a++) {
		for (b = 0; b < s->nevents; b++) {
			if (on_cycle(s, a, b))
				continue;

			if (rel_has(s->rf, a, b))
				add_edge(g, a, b, "darkgreen", false, false, "rf");
			if (s->co && rel_has(s->co, a, b) && s->events[a].proc >= 0)
				add_edge(g, a, b, "blue", false, false, "co");
			if (s->events[b].proc >= 0 && reads_before(s, a, b))
				add_edge(g, a, b, "orange", false, false, "fr");
		}
	}
}

/* The failed check's cycle, hop by hop, in red, labelled as the steps of --explain. */
static void add_cycle(struct graph *g, const struct program *p, const struct snapshot *s)
{
	struct strbuf label = { 0 };
	struct chain c;
	int i;

	build_chain(p, s, &c);
	merge_hand_offs(p, s, &c);
	for (i = 0; i < c.n; i++) {
		label.len = 0;
		sb_addf(&label, "%d. %s", i + 1, c.labels[i]);
		add_edge(g, c.ev[i], c.to[i], "red", true, false, label.buf);
	}
	free_chain(&c);
	sb_free(&label);
}

void explain_graph(const struct program *p, const struct outcomes *o, struct graph *g)
{
	struct snapshot *s = o->witness ? o->witness : o->counterexamples[0];
	struct strbuf caption = { 0 };

	memset(g, 0, sizeof(*g));
	g->name = p->test->name;
	g->nprocs = p->nprocs;
	g->drawn = s;
	sb_addf(&caption, "%s: ", p->test->name);
	if (!s)
		sb_addf(&caption, "no execution reaches the outcome");
	else if (o->witness)
		sb_addf(&caption, "an execution with the outcome");
	else
		sb_addf(&caption, "a candidate with the outcome, rejected by '%s'", s->check);
	g->caption = arena_strndup(&g->arena, caption.buf, caption.len);
	sb_free(&caption);
	if (!s)
		return;
	add_nodes(g, p, s);
	add_communication(g, s);
	if (!o->witness) {
		if (!s->pair)
			rotate_cycle(s);
		add_cycle(g, p, s);
	} else {
		int pairs[2 * 32], n = unordered_pairs(s, pairs, 32), i;

		for (i = 0; i < n; i++)
			add_edge(g, pairs[2 * i], pairs[2 * i + 1], "red", true, true, "not ordered");
	}
}

void graph_free(struct graph *g)
{
	arena_free(&g->arena);
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

static void dot_node(const struct graph_node *n, struct strbuf *out)
{
	sb_addf(out, "  e%d [label=\"", n->event);
	dot_string(n->label, out);
	sb_addf(out, "\"];\n");
}

/*
 * Events one column per process, in program order, left to right: a
 * header node per process, all on one rank and chained by invisible
 * edges (which dot lays out left to right), above each process' events.
 */
static void dot_nodes(const struct graph *g, struct strbuf *out)
{
	int proc, i;

	sb_addf(out, "  subgraph cluster_init {\n    label=\"initial values\"; style=dotted;\n");
	for (i = 0; i < g->nnodes && g->nodes[i].proc < 0; i++)
		dot_node(&g->nodes[i], out);
	sb_addf(out, "  }\n  { rank=same;");
	for (proc = 0; proc < g->nprocs; proc++)
		sb_addf(out, " P%d [shape=plaintext, fontname=\"sans-serif\"];", proc);
	sb_addf(out, " }\n");
	for (proc = 1; proc < g->nprocs; proc++)
		sb_addf(out, "  P%d -> P%d [style=invis];\n", proc - 1, proc);
	for (; i < g->nnodes; i++) {
		const struct graph_node *n = &g->nodes[i];

		dot_node(n, out);
		if (n->po_prev >= 0)
			sb_addf(out, "  e%d -> e%d [label=\"po\", color=gray, weight=10];\n",
				g->nodes[n->po_prev].event, n->event);
		else
			sb_addf(out, "  P%d -> e%d [style=invis, weight=10];\n", n->proc, n->event);
	}
}

/* An edge off the layout's ranks: the red ones bold, or dashed when nothing orders them. */
static void dot_edge(const struct graph *g, const struct graph_edge *e, struct strbuf *out)
{
	sb_addf(out, "  e%d -> e%d [label=\"", g->nodes[e->from].event, g->nodes[e->to].event);
	dot_string(e->label, out);
	sb_addf(out, "\", color=%s", e->colour);
	if (e->marked)
		sb_addf(out, ", fontcolor=%s, %s", e->colour,
			e->dashed ? "style=dashed" : "penwidth=2");
	sb_addf(out, ", constraint=false];\n");
}

void graph_dot(const struct graph *g, struct strbuf *out)
{
	int i;

	sb_addf(out, "digraph \"");
	dot_string(g->name, out);
	sb_addf(out, "\" {\n  label=\"");
	dot_string(g->caption, out);
	sb_addf(out, "\";\n");
	if (g->drawn) {
		sb_addf(out, "  node [shape=box, fontname=\"monospace\"];\n");
		dot_nodes(g, out);
		for (i = 0; i < g->nedges; i++)
			dot_edge(g, &g->edges[i], out);
	}
	sb_addf(out, "}\n");
}
