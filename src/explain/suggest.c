/*
 * suggest.c - --suggest: what to change in a test so that the model
 * forbids its outcome, or which of its orderings it needs.
 *
 * The edits are the ones a kernel developer makes: a READ_ONCE() becomes
 * smp_load_acquire(), a WRITE_ONCE() smp_store_release() (or
 * rcu_assign_pointer() when it publishes a pointer), a fence goes
 * between two statements (smp_mb__*() ones only where the kernel puts
 * them).  Each has a price, edit_kinds[] below; sets of edits are tried
 * cheapest first, each by checking the edited text with the model, and
 * the sets of the lowest costs that forbid the outcome are printed as
 * unified diffs.
 *
 * Before any of that, the test with smp_mb() before every statement is
 * checked: if the outcome stays reachable, in an execution that one
 * order of all accesses gives, no ordering can forbid it, and that order
 * is shown instead.  The search is bounded by --suggest-timeout seconds
 * (and --suggest-max variants when given), sets by --suggest-edits
 * (processes + 2 by default).
 *
 * A relaxed RMW (xchg_relaxed(), atomic_add_return_relaxed() ...) can
 * become its _acquire or _release form (cost 1) or its fully ordered one
 * (3), atomic_read() atomic_read_acquire() and atomic_set()
 * atomic_set_release() (1): whichever forms the model's .def defines.
 *
 * For a test whose outcome the model already forbids, each ordering of
 * the test is removed in turn (an acquire or release weakened to
 * READ_ONCE() or WRITE_ONCE(), rcu_assign_pointer() to WRITE_ONCE(), an
 * ordered RMW to its _relaxed form, a fence deleted): those whose
 * removal lets the outcome happen are the ones it needs.
 *
 * Edits work on the text, line by line, so that the diff is of the test
 * as its author wrote it.
 */
#include <stdlib.h>
#include <string.h>

#include "explain.h"

enum edit_kind {
	ADD_ACQUIRE, ADD_RELEASE,
	/* fences put on a line of their own, before a statement */
	ADD_AFTER_UNLOCK_LOCK, ADD_RMB, ADD_WMB, ADD_BEFORE_ATOMIC, ADD_AFTER_ATOMIC,
	ADD_AFTER_SPINLOCK, ADD_MB,
	DROP_ACQUIRE, DROP_RELEASE, DROP_FENCE,
	/* a call renamed (struct edit.to) */
	ORDER_CALL, FULLY_ORDER_CALL, WEAKEN_CALL, ASSIGN_POINTER, PARTLY_WEAKEN,
	/* a plain access marked, for a flag the model raises (data-race) */
	MARK_LOAD, MARK_STORE,
};

/*
 * The price of each edit on the machines that pay for ordering (arm64,
 * PowerPC; x86 orders all but store->load already): an acquire or a
 * release is an ordered load or store (arm64 LDAR/STLR, PowerPC lwsync);
 * smp_mb__after_unlock_lock() is a full barrier on PowerPC alone;
 * smp_rmb(), smp_wmb() a one-way barrier; the smp_mb__*_atomic() and
 * smp_mb__after_spinlock() cost a full barrier there but nothing on
 * x86, whose RMWs and locks already are; smp_mb() a full barrier
 * everywhere, x86 included.  docs/explanations.md has the list.
 */
static const struct {
	int cost;
	const char *what;
} edit_kinds[] = {
	[ADD_ACQUIRE] = { 1, "smp_load_acquire()" },
	[ADD_RELEASE] = { 1, "smp_store_release()" },
	[ADD_AFTER_UNLOCK_LOCK] = { 1, "smp_mb__after_unlock_lock()" },
	[ADD_RMB] = { 2, "smp_rmb()" },
	[ADD_WMB] = { 2, "smp_wmb()" },
	[ADD_BEFORE_ATOMIC] = { 2, "smp_mb__before_atomic()" },
	[ADD_AFTER_ATOMIC] = { 2, "smp_mb__after_atomic()" },
	[ADD_AFTER_SPINLOCK] = { 2, "smp_mb__after_spinlock()" },
	[ADD_MB] = { 3, "smp_mb()" },
	[DROP_ACQUIRE] = { 0, "smp_load_acquire() weakened to READ_ONCE()" },
	[DROP_RELEASE] = { 0, "smp_store_release() weakened to WRITE_ONCE()" },
	[DROP_FENCE] = { 0, "removed" },
	[ORDER_CALL] = { 1, NULL },
	[FULLY_ORDER_CALL] = { 3, NULL },
	[WEAKEN_CALL] = { 0, NULL },
	[ASSIGN_POINTER] = { 1, NULL },
	[PARTLY_WEAKEN] = { 0, NULL },
	[MARK_LOAD] = { 0, "READ_ONCE()" },
	[MARK_STORE] = { 0, "WRITE_ONCE()" },
};

static bool is_fence_insertion(enum edit_kind kind)
{
	return kind >= ADD_AFTER_UNLOCK_LOCK && kind <= ADD_MB;
}

/* struct edit.from of an acquire or a release made of a plain access. */
#define PLAIN "*"

/* An edit: a call rewritten at line:col, or a fence put before line. */
struct edit {
	enum edit_kind kind;
	int proc;
	int line, col;
	int gap;		/* fences: which gap between statements, for conflicts */
	char from[48], to[48];	/* a call renamed: its name, its new name */
	int after;		/* a fence before a branch: the line of the statement before it */
};

struct edits {
	int n;
	struct edit *items;
};

/* The test's text as lines, each edit applied to them. */
struct lines {
	int n;
	char **text;		/* line i + 1 of the test */
	char **before;		/* a line inserted before line i + 1, or NULL */
	bool *dropped;
};

static void add_edit(struct edits *e, enum edit_kind kind, int proc, int line, int col, int gap)
{
	e->items = xrealloc(e->items, (e->n + 1) * sizeof(*e->items));
	e->items[e->n++] = (struct edit){ kind, proc, line, col, gap, "", "", 0 };
}

/* name with its suffix `from` (or none, from "") replaced by `to`, if the model defines it. */
static bool other_form(const struct macro_table *macros, const char *name, const char *from,
		       const char *to, char out[48])
{
	size_t len = strlen(name), cut = strlen(from);

	if (len < cut || strcmp(name + len - cut, from) ||
	    (size_t)snprintf(out, 48, "%.*s%s", (int)(len - cut), name, to) >= 48)
		return false;
	return strcmp(out, name) && macro_find(macros, out);
}

static void add_rename(struct edits *e, enum edit_kind kind, int proc, struct srcpos pos,
		       const char *from, const char *to)
{
	add_edit(e, kind, proc, pos.line, pos.col, -1);
	snprintf(e->items[e->n - 1].from, sizeof(e->items->from), "%s", from);
	strcpy(e->items[e->n - 1].to, to);
}

/*
 * The renamings of a call that order it more, or (weaken) less: the
 * forms of an RMW or an atomic_t access the .def file defines.
 */
static void rename_edits(const char *name, int proc, struct srcpos pos, bool weaken,
			 const struct macro_table *macros, struct edits *out)
{
	static const char *const suffixes[] = { "_acquire", "_release" };
	char form[48];
	size_t i;

	if (!strncmp(name, "smp_", 4))	/* smp_load_acquire() and friends: DROP_* */
		return;
	if (weaken) {
		/* A fully ordered RMW of which a one-way form may do. */
		for (i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++)
			if (!strstr(name, "_relaxed") && other_form(macros, name, "", "_relaxed", form) &&
			    other_form(macros, name, "", suffixes[i], form))
				add_rename(out, PARTLY_WEAKEN, proc, pos, name, form);
		if (!strcmp(name, "rcu_assign_pointer"))
			add_rename(out, WEAKEN_CALL, proc, pos, name, "WRITE_ONCE");
		else if (!strcmp(name, "rcu_dereference"))
			add_rename(out, WEAKEN_CALL, proc, pos, name, "READ_ONCE");
		else if (other_form(macros, name, "_acquire", "_relaxed", form) ||
			 other_form(macros, name, "_release", "_relaxed", form) ||
			 other_form(macros, name, "_acquire", "", form) ||
			 other_form(macros, name, "_release", "", form) ||
			 (strncmp(name, "atomic_read", 11) && strncmp(name, "atomic_set", 10) &&
			  !strstr(name, "_relaxed") && other_form(macros, name, "", "_relaxed", form)))
			add_rename(out, WEAKEN_CALL, proc, pos, name, form);
		return;
	}
	for (i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++)
		if (other_form(macros, name, "_relaxed", suffixes[i], form) ||
		    ((!strcmp(name, "atomic_read") || !strcmp(name, "atomic_set")) &&
		     other_form(macros, name, "", suffixes[i], form)))
			add_rename(out, ORDER_CALL, proc, pos, name, form);
	if (other_form(macros, name, "_relaxed", "", form))
		add_rename(out, FULLY_ORDER_CALL, proc, pos, name, form);
}

/* What a fence of the test, its statement's code, costs; 0 if not one of edit_kinds[]. */
static int fence_price(const char *code)
{
	size_t len = strcspn(code, "(");
	int k;

	for (k = 0; k < (int)(sizeof(edit_kinds) / sizeof(*edit_kinds)); k++)
		if (is_fence_insertion(k) && !strncmp(edit_kinds[k].what, code, len) &&
		    edit_kinds[k].what[len] == '(')
			return edit_kinds[k].cost;
	return 0;
}

/* What an edit does, as the lists of changes say it. */
static void edit_what(const struct edit *e, struct strbuf *out)
{
	if (edit_kinds[e->kind].what)
		sb_addf(out, "%s", edit_kinds[e->kind].what);
	else
		sb_addf(out, "%s() %s %s()", e->from,
			e->kind == PARTLY_WEAKEN && fence_price(e->to) > fence_price(e->from) ?
			"replaced by" : e->kind == WEAKEN_CALL || e->kind == PARTLY_WEAKEN ?
			"weakened to" : "made", e->to);
}

/* Whether the .def defines name as statements of which one is of kind. */
static bool macro_does(const struct macro_table *macros, const char *name, enum stmt_kind kind)
{
	const struct macro *m = macro_find(macros, name);
	int i;

	if (!m || !m->body)
		return false;
	if (m->body->kind == kind)
		return true;
	for (i = 0; i < m->body->nbody; i++)
		if (m->body->body[i]->kind == kind)
			return true;
	return false;
}

/* A statement that calls a macro doing kind (__lock, __atomic_op ...). */
static bool statement_does(const struct stmt *s, const struct macro_table *macros,
			   enum stmt_kind kind)
{
	return s && s->kind == S_CALL && macro_does(macros, s->name, kind);
}

/* A value that is an address: &x, or a location, which a test names by its address. */
static bool is_pointer_value(const struct litmus *t, int proc, const struct expr *e)
{
	const struct process *pr = &t->procs[proc];
	int i;

	if (e->kind == X_ADDR_OF)
		return true;
	if (e->kind != X_NAME)
		return false;
	for (i = 0; i < pr->nparams; i++)
		if (!strcmp(pr->params[i].name, e->name))
			return true;
	return false;
}

/* The statements that only order, which a Never test may or may not need. */
static bool is_fence_call(const char *name)
{
	static const char *const fences[] = {
		"smp_mb", "smp_rmb", "smp_wmb", "synchronize_rcu", "synchronize_rcu_expedited",
		"smp_mb__before_atomic", "smp_mb__after_atomic", "smp_mb__after_spinlock",
		"smp_mb__after_unlock_lock", "smp_mb__after_srcu_read_unlock",
	};
	size_t i;

	for (i = 0; i < sizeof(fences) / sizeof(*fences); i++)
		if (!strcmp(name, fences[i]))
			return true;
	return false;
}

/* Where the edits of a test are gathered. */
struct finder {
	const struct litmus *t;
	const struct macro_table *macros;
	bool weaken;		/* a forbidden outcome: orderings to remove */
	int proc;
	int gaps;		/* gaps between statements seen so far */
	struct edits *out;
};

/*
 * The calls an edit can rewrite, anywhere in a statement; and the plain
 * loads, but not the "*x" a call's first argument names: READ_ONCE(*x)
 * accesses it itself.
 */
static void find_calls(struct finder *f, const struct expr *e, bool call_access)
{
	int i;

	if (!e)
		return;
	if (e->kind == X_CALL && !f->weaken && !strcmp(e->name, "READ_ONCE"))
		add_edit(f->out, ADD_ACQUIRE, f->proc, e->pos.line, e->pos.col, -1);
	/* a plain load made an acquire at once ("*x" as a whole, not "**p") */
	if (e->kind == X_LOAD && !e->annot.n && !f->weaken && !call_access &&
	    !(e->nargs && e->args[0] && e->args[0]->kind == X_LOAD)) {
		add_edit(f->out, ADD_ACQUIRE, f->proc, e->pos.line, e->pos.col, -1);
		strcpy(f->out->items[f->out->n - 1].from, PLAIN);
		return;
	}
	if (e->kind == X_CALL && f->weaken && !strcmp(e->name, "smp_load_acquire"))
		add_edit(f->out, DROP_ACQUIRE, f->proc, e->pos.line, e->pos.col, -1);
	if (e->kind == X_CALL)
		rename_edits(e->name, f->proc, e->pos, f->weaken, f->macros, f->out);
	for (i = 0; i < e->nargs; i++)
		find_calls(f, e->args[i], e->kind == X_CALL && i == 0);
}

/*
 * What the model allows but a kernel developer would not write: the
 * model's smp_mb__after_unlock_lock() orders across any unlock->lock
 * hand-off, the kernel uses it in RCU alone.
 */
#define AFTER_UNLOCK_LOCK_NOTE "smp_mb__after_unlock_lock() is RCU's own (only RCU uses it " \
	"in the kernel); elsewhere write smp_mb__after_spinlock()"

/*
 * Fences and a cheaper one that may do instead, with what a developer
 * must know before taking it where the model says it is enough.
 * smp_mb__after_spinlock() has no entry: the model lets
 * smp_mb__after_unlock_lock() do its work after a lock hand-off, but
 * only RCU uses that one, and readers took its offer, made and taken
 * back at once, for noise.
 */
static const struct {
	const char *fence, *weaker, *orders;	/* orders: what it cannot do, or NULL */
	/* the pair the weaker one keeps in order: two accesses of this kind (pair_name: told) */
	enum event_kind pair;
	const char *pair_name;
} weaker[] = {
	{ "smp_mb", "smp_rmb", "it orders only loads before later loads", EV_READ, "two loads" },
	{ "smp_mb", "smp_wmb", "it orders only stores before later stores", EV_WRITE,
	  "two stores" },
	/*
	 * And the other way, a dearer smp_mb() in place of a fence that is a
	 * full barrier only where the lock or the RMW is not one already:
	 * readers asked why the test does not simply use smp_mb().  Should
	 * one fail, the checker's answer is told without a guessed reason.
	 */
	{ "smp_mb__after_spinlock", "smp_mb", NULL, 0, NULL },
	{ "smp_mb__before_atomic", "smp_mb", NULL, 0, NULL },
	{ "smp_mb__after_atomic", "smp_mb", NULL, 0, NULL },
};

/* The entry of weaker[] for fence weakened to to. */
static int weakening(const char *fence, const char *to)
{
	int i;

	for (i = 0; i < (int)(sizeof(weaker) / sizeof(*weaker)); i++)
		if (!strcmp(fence, weaker[i].fence) && !strcmp(to, weaker[i].weaker))
			return i;
	return -1;
}

/*
 * A smp_mb() that one of the one-way barriers may do instead, in a test
 * whose outcome is forbidden: is it more than the test needs?
 */
static void weaker_fences(struct finder *f, const struct stmt *s)
{
	size_t i;

	for (i = 0; i < sizeof(weaker) / sizeof(*weaker); i++)
		if (!strcmp(s->name, weaker[i].fence) && macro_find(f->macros, weaker[i].weaker))
			add_rename(f->out, PARTLY_WEAKEN, f->proc, s->pos, s->name,
				   weaker[i].weaker);
}

static void find_statement_edits(struct finder *f, const struct stmt *s)
{
	int i;

	if (!s)
		return;
	if (s->kind == S_CALL)
		rename_edits(s->name, f->proc, s->pos, f->weaken, f->macros, f->out);
	if (s->kind == S_CALL && !f->weaken && !strcmp(s->name, "WRITE_ONCE")) {
		add_edit(f->out, ADD_RELEASE, f->proc, s->pos.line, s->pos.col, -1);
		/* Publishing a pointer: the kernel's way is rcu_assign_pointer(). */
		if (s->nargs == 2 && is_pointer_value(f->t, f->proc, s->args[1]) &&
		    macro_find(f->macros, "rcu_assign_pointer"))
			add_rename(f->out, ASSIGN_POINTER, f->proc, s->pos, s->name,
				   "rcu_assign_pointer");
	}
	if (s->kind == S_STORE && !s->annot.n && !f->weaken) {
		add_edit(f->out, ADD_RELEASE, f->proc, s->pos.line, s->pos.col, -1);
		strcpy(f->out->items[f->out->n - 1].from, PLAIN);
	}
	if (s->kind == S_CALL && f->weaken && !strcmp(s->name, "smp_store_release"))
		add_edit(f->out, DROP_RELEASE, f->proc, s->pos.line, s->pos.col, -1);
	if (s->kind == S_CALL && f->weaken && is_fence_call(s->name)) {
		add_edit(f->out, DROP_FENCE, f->proc, s->pos.line, s->pos.col, -1);
		weaker_fences(f, s);
	}
	for (i = 0; i < s->nargs; i++)
		find_calls(f, s->args[i], (s->kind == S_CALL || s->kind == S_STORE) && i == 0);
	for (i = 0; i < s->nbody; i++)
		find_statement_edits(f, s->body[i]);
}

/*
 * A fence of kind before s, after prev, in the current gap, when the .def
 * has it.  Before a branch it is said to come after prev: readers found
 * "smp_rmb() before line 22 `if (r0 == 0) {`" odd.
 */
static void add_fence(struct finder *f, enum edit_kind kind, const struct stmt *prev,
		      const struct stmt *s)
{
	const char *what = edit_kinds[kind].what;
	char name[48];

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(what, "("), what);
	if (!macro_find(f->macros, name))
		return;
	add_edit(f->out, kind, f->proc, s->pos.line, 0, f->gaps);
	if (s->kind == S_IF || s->kind == S_WHILE)
		f->out->items[f->out->n - 1].after = prev->pos.line;
}

/*
 * Fences go between two statements of a process body, on lines of their
 * own: the general ones anywhere, the smp_mb__*() ones where the kernel
 * puts them (after a lock; before or after a value-less RMW).
 */
static void find_gaps(struct finder *f, const struct stmt *body)
{
	const struct stmt *prev = NULL;
	int i;

	if (!body || body->kind != S_BLOCK)
		return;
	for (i = 0; i < body->nbody; i++) {
		const struct stmt *s = body->body[i];

		if (s->kind == S_DECL)
			continue;
		if (prev && prev->pos.line < s->pos.line) {
			add_fence(f, ADD_RMB, prev, s);
			add_fence(f, ADD_WMB, prev, s);
			add_fence(f, ADD_MB, prev, s);
			if (statement_does(prev, f->macros, S_LOCK)) {
				add_fence(f, ADD_AFTER_UNLOCK_LOCK, prev, s);
				add_fence(f, ADD_AFTER_SPINLOCK, prev, s);
			}
			if (statement_does(prev, f->macros, S_ATOMIC_OP))
				add_fence(f, ADD_AFTER_ATOMIC, prev, s);
			if (statement_does(s, f->macros, S_ATOMIC_OP))
				add_fence(f, ADD_BEFORE_ATOMIC, prev, s);
			f->gaps++;
		}
		prev = s;
	}
}

/*
 * smp_mb() before every statement on a line of its own that follows
 * another, at any depth (in a branch too, after the condition that
 * chose it): what makes each CPU's accesses take effect in order.
 */
static void find_sc_fences(const struct stmt *s, int proc, int *prev_line, struct edits *out)
{
	int i;

	if (!s || s->kind == S_DECL)
		return;
	if (s->kind != S_BLOCK) {
		if (*prev_line && s->pos.line > *prev_line)
			add_edit(out, ADD_MB, proc, s->pos.line, 0, -1);
		*prev_line = s->pos.line;
	}
	for (i = 0; i < s->nbody; i++)
		find_sc_fences(s->body[i], proc, prev_line, out);
}

static struct edits find_edits(const struct litmus *t, bool weaken,
			       const struct macro_table *macros)
{
	struct edits out = { 0 };
	struct finder f = { t, macros, weaken, 0, 0, &out };

	for (f.proc = 0; f.proc < t->nprocs; f.proc++) {
		find_statement_edits(&f, t->procs[f.proc].body);
		if (!weaken)
			find_gaps(&f, t->procs[f.proc].body);
	}
	return out;
}

static struct lines split_lines(const char *text)
{
	struct lines l = { 0 };
	const char *p = text;

	while (*p) {
		size_t len = strcspn(p, "\n");

		l.text = xrealloc(l.text, (l.n + 1) * sizeof(*l.text));
		l.text[l.n++] = xstrndup(p, len);
		p += len + (p[len] == '\n');
	}
	l.before = xcalloc(l.n + 1, sizeof(*l.before));
	l.dropped = xcalloc(l.n + 1, sizeof(*l.dropped));
	return l;
}

static void free_lines(struct lines *l)
{
	int i;

	for (i = 0; i < l->n; i++) {
		free(l->text[i]);
		free(l->before[i]);
	}
	free(l->text);
	free(l->before);
	free(l->dropped);
}

/* Line `line` of l without its indentation: the code a sentence quotes. */
static const char *code_at(const struct lines *l, int line)
{
	return l->text[line - 1] + strspn(l->text[line - 1], " \t");
}

/* The end of the parenthesised arguments starting at open, or NULL. */
static const char *closing_paren(const char *open)
{
	int depth = 0;
	const char *p;

	for (p = open; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth == 0)
			return p;
	}
	return NULL;
}

/* "*x" is the address x; anything else, e.g. "p->f", is "&p->f". */
static void add_address(struct strbuf *sb, const char *arg, size_t len)
{
	while (len && (*arg == ' ' || *arg == '\t'))
		arg++, len--;
	while (len && (arg[len - 1] == ' ' || arg[len - 1] == '\t'))
		len--;
	if (len && *arg == '*')
		sb_addf(sb, "%.*s", (int)len - 1, arg + 1);
	else
		sb_addf(sb, "&%.*s", (int)len, arg);
}

/* The first top-level comma of args (between open and close), or NULL. */
static const char *first_comma(const char *open, const char *close)
{
	int depth = 0;
	const char *p;

	for (p = open + 1; p < close; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (*p == ',' && !depth)
			return p;
	}
	return NULL;
}

/* A call at col of line rewritten: NEW(address of arg 1, the rest). */
static bool rewrite_call(char **line, int col, const char *name, bool to_marked_access)
{
	char *at = *line + col - 1, *open = strchr(at, '(');
	const char *close = open ? closing_paren(open) : NULL, *comma;
	struct strbuf sb = { 0 };

	if (!close)
		return false;
	comma = first_comma(open, close);
	sb_addf(&sb, "%.*s%s(", (int)(at - *line), *line, name);
	if (!to_marked_access) {
		add_address(&sb, open + 1, (comma ? comma : close) - open - 1);
	} else {
		/* smp_load_acquire(x) back to READ_ONCE(*x) */
		const char *arg = open + 1;
		size_t len = (comma ? comma : close) - arg;

		while (len && *arg == ' ')
			arg++, len--;
		if (len && *arg == '&')
			sb_addf(&sb, "%.*s", (int)len - 1, arg + 1);
		else
			sb_addf(&sb, "*%.*s", (int)len, arg);
	}
	sb_addf(&sb, "%s", comma ? comma : close);
	free(*line);
	*line = sb.buf;
	return true;
}

/* The fence call ("smp_mb()") as a statement, indented as line: a line to insert. */
static char *fence_statement(const char *line, const char *call)
{
	struct strbuf sb = { 0 };

	sb_addf(&sb, "%.*s%s;", (int)strspn(line, " \t"), line, call);
	return sb.buf;
}

/* The end of the plain load "*x" or "*(expr)" at p, or NULL. */
static const char *plain_load_end(const char *p)
{
	p += 1 + strspn(p + 1, " \t");
	if (*p == '*')
		return plain_load_end(p);
	if (*p == '(') {
		p = closing_paren(p);
		return p ? p + 1 : NULL;
	}
	if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return NULL;
	while (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
	       (*p >= '0' && *p <= '9'))
		p++;
	return p;
}

/* The plain load at col of line marked: "*x" becomes "READ_ONCE(*x)". */
static bool mark_load(char **line, int col)
{
	char *at = *line + col - 1;
	const char *end = plain_load_end(at);
	struct strbuf sb = { 0 };

	if (!end)
		return false;
	sb_addf(&sb, "%.*sREAD_ONCE(%.*s)%s", (int)(at - *line), *line, (int)(end - at), at, end);
	free(*line);
	*line = sb.buf;
	return true;
}

/* The plain load at col of line as a call taking its address: "*x" becomes "smp_load_acquire(x)". */
static bool plain_to_call(char **line, int col, const char *name)
{
	char *at = *line + col - 1;
	const char *end = plain_load_end(at);
	struct strbuf sb = { 0 };

	if (!end || *at != '*')
		return false;
	sb_addf(&sb, "%.*s%s(%.*s)%s", (int)(at - *line), *line, name, (int)(end - at - 1), at + 1,
		end);
	free(*line);
	*line = sb.buf;
	return true;
}

/* The plain store at col of line as a call: "*x = v;" becomes "smp_store_release(x, v);". */
static bool plain_store_to_call(char **line, int col, const char *name)
{
	char *at = *line + col - 1, *assign = strchr(at, '='), *semi;
	struct strbuf sb = { 0 };
	size_t lhs;

	if (*at != '*' || !assign || assign[1] == '=' || !(semi = strrchr(assign, ';')))
		return false;
	for (lhs = assign - at; lhs && (at[lhs - 1] == ' ' || at[lhs - 1] == '\t'); lhs--)
		;
	assign += 1 + strspn(assign + 1, " \t");
	sb_addf(&sb, "%.*s%s(%.*s, %.*s)%s", (int)(at - *line), *line, name, (int)lhs - 1, at + 1,
		(int)(semi - assign), assign, semi);
	free(*line);
	*line = sb.buf;
	return true;
}

/* The plain store at col of line marked: "*x = v;" becomes "WRITE_ONCE(*x, v);". */
static bool mark_store(char **line, int col)
{
	char *at = *line + col - 1, *assign = strchr(at, '='), *semi;
	struct strbuf sb = { 0 };
	size_t lhs;

	if (!assign || assign[1] == '=' || !(semi = strrchr(assign, ';')))
		return false;
	for (lhs = assign - at; lhs && (at[lhs - 1] == ' ' || at[lhs - 1] == '\t'); lhs--)
		;
	assign += 1 + strspn(assign + 1, " \t");
	sb_addf(&sb, "%.*sWRITE_ONCE(%.*s, %.*s)%s", (int)(at - *line), *line, (int)lhs, at,
		(int)(semi - assign), assign, semi);
	free(*line);
	*line = sb.buf;
	return true;
}


static bool edit_after(const struct edit *a, const struct edit *b)
{
	return a->line > b->line || (a->line == b->line && a->col > b->col);
}

/* The call at col of line renamed to `to`, its arguments as they are. */
static void rename_call(char **line, int col, const char *to)
{
	char *at = *line + col - 1;
	struct strbuf sb = { 0 };

	sb_addf(&sb, "%.*s%s%s", (int)(at - *line), *line, to, at + strcspn(at, "( \t"));
	free(*line);
	*line = sb.buf;
}

/* Apply the edits in set (indexes into all) to a fresh copy of text's lines. */
static bool apply(const char *text, const struct edits *all, const int *set, int n,
		  struct lines *l)
{
	int order[n + 1], i, j;

	*l = split_lines(text);
	/* Last first: a rewrite leaves the columns of the calls left of it. */
	memcpy(order, set, n * sizeof(*order));
	for (i = 1; i < n; i++) {
		for (j = i; j > 0 && edit_after(&all->items[order[j - 1]], &all->items[order[j]]);
		     j--) {
			int swap = order[j];

			order[j] = order[j - 1];
			order[j - 1] = swap;
		}
	}
	for (i = n - 1; i >= 0; i--) {
		const struct edit *e = &all->items[order[i]];
		char **line = &l->text[e->line - 1];

		switch (e->kind) {
		case ADD_ACQUIRE:
			if (!strcmp(e->from, PLAIN) ? !plain_to_call(line, e->col, "smp_load_acquire")
						    : !rewrite_call(line, e->col, "smp_load_acquire", false))
				return false;
			break;
		case ADD_RELEASE:
			if (!strcmp(e->from, PLAIN) ? !plain_store_to_call(line, e->col, "smp_store_release")
						    : !rewrite_call(line, e->col, "smp_store_release", false))
				return false;
			break;
		case DROP_ACQUIRE:
			if (!rewrite_call(line, e->col, "READ_ONCE", true))
				return false;
			break;
		case DROP_RELEASE:
			if (!rewrite_call(line, e->col, "WRITE_ONCE", true))
				return false;
			break;
		case DROP_FENCE:
			l->dropped[e->line - 1] = true;
			break;
		case ORDER_CALL:
		case FULLY_ORDER_CALL:
		case WEAKEN_CALL:
		case ASSIGN_POINTER:
		case PARTLY_WEAKEN:
			rename_call(line, e->col, e->to);
			break;
		case MARK_LOAD:
			if (!mark_load(line, e->col))
				return false;
			break;
		case MARK_STORE:
			if (!mark_store(line, e->col))
				return false;
			break;
		default:
			free(l->before[e->line - 1]);
			l->before[e->line - 1] = fence_statement(*line, edit_kinds[e->kind].what);
			break;
		}
	}
	return true;
}

static char *join_lines(const struct lines *l)
{
	struct strbuf sb = { 0 };
	int i;

	for (i = 0; i < l->n; i++) {
		if (l->before[i])
			sb_addf(&sb, "%s\n", l->before[i]);
		if (!l->dropped[i])
			sb_addf(&sb, "%s\n", l->text[i]);
	}
	return sb.buf;
}

/* One line of a diff: ' ', '-' or '+', and its text. */
struct diff_line {
	char op;
	const char *text;
};

/* A unified diff of the edited lines against the original, three lines of context. */
static void unified_diff(const char *path, const char *text, const struct lines *edited,
			 struct strbuf *out)
{
	struct lines orig = split_lines(text);
	struct diff_line *d = xcalloc(3 * orig.n + 1, sizeof(*d));
	int n = 0, i, start, old_line = 1, new_line = 1;

	for (i = 0; i < orig.n; i++) {
		if (edited->before[i])
			d[n++] = (struct diff_line){ '+', edited->before[i] };
		if (edited->dropped[i]) {
			d[n++] = (struct diff_line){ '-', orig.text[i] };
		} else if (strcmp(orig.text[i], edited->text[i])) {
			d[n++] = (struct diff_line){ '-', orig.text[i] };
			d[n++] = (struct diff_line){ '+', edited->text[i] };
		} else {
			d[n++] = (struct diff_line){ ' ', orig.text[i] };
		}
	}
	/*
	 * A changed line's "-" is followed by its "+", even beside a line
	 * dropped: lkmm code maps each such pair onto the kernel's text.
	 */
	sb_addf(out, "    --- %s\n    +++ %s\n", path, path);
	for (i = 0; i < n; ) {
		int end, olds = 0, news = 0, j, k;

		if (d[i].op == ' ') {
			old_line++;
			new_line++;
			i++;
			continue;
		}
		/* A hunk: back three lines of context, on to three after the last change. */
		start = i - 3 < 0 ? 0 : i - 3;
		for (k = start; k < i; k++) {
			old_line--;
			new_line--;
		}
		for (end = i; end < n; end++) {
			if (d[end].op != ' ')
				continue;
			for (j = end; j < n && j < end + 7 && d[j].op == ' '; j++)
				;
			if (j == n || j == end + 7)
				break;
		}
		end = end + 3 > n ? n : end + 3;
		for (k = start; k < end; k++) {
			olds += d[k].op != '+';
			news += d[k].op != '-';
		}
		sb_addf(out, "    @@ -%d,%d +%d,%d @@\n", old_line, olds, new_line, news);
		for (k = start; k < end; k++)
			sb_addf(out, "    %c%s\n", d[k].op, d[k].text);
		old_line += olds;
		new_line += news;
		i = end;
	}
	free(d);
	free_lines(&orig);
}

/* The edits of set in the test's order, by process then place, into sorted[n]. */
static void sort_set(const struct edits *all, const int *set, int n, const struct edit **sorted)
{
	int i, j;

	for (i = 0; i < n; i++) {
		const struct edit *e = &all->items[set[i]];

		for (j = i; j > 0 && (sorted[j - 1]->proc > e->proc ||
				      (sorted[j - 1]->proc == e->proc && edit_after(sorted[j - 1], e)));
		     j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = e;
	}
}

/* " at P0 line 21", " before P1 line 24", " after P0 line 21": where an edit goes. */
static void edit_place(const struct edit *e, struct strbuf *out)
{
	if (e->after)
		sb_addf(out, " after P%d line %d", e->proc, e->after);
	else
		sb_addf(out, " %s P%d line %d", is_fence_insertion(e->kind) ? "before" : "at",
			e->proc, e->line);
}

/* A set of edits in words, in the test's order: "smp_store_release() at P0 line 16". */
static void describe_set(const struct edits *all, const int *set, int n, struct strbuf *out)
{
	const struct edit *sorted[n + 1];
	int i;

	sort_set(all, set, n, sorted);
	for (i = 0; i < n; i++) {
		sb_addf(out, "%s", i ? ", " : "");
		edit_what(sorted[i], out);
		edit_place(sorted[i], out);
	}
}

/*
 * Why a fence's price is not that of the barrier it is on arm64 and
 * PowerPC: it is free where the lock or RMW before it orders already
 * (x86), and the price ranks it below smp_mb(), which x86 pays for too.
 */
static const char *price_note(enum edit_kind kind)
{
	switch (kind) {
	case ADD_AFTER_UNLOCK_LOCK:
		return " (a full barrier on PowerPC alone)";
	case ADD_BEFORE_ATOMIC:
	case ADD_AFTER_ATOMIC:
	case ADD_AFTER_SPINLOCK:
		return " (a full barrier's price on arm64 and PowerPC, but free on x86, whose "
			"locks and atomic RMWs are full barriers already)";
	default:
		return "";
	}
}

/* The name an edit's price goes by: what it adds, or the call it makes. */
static const char *priced_name(const struct edit *e)
{
	return edit_kinds[e->kind].what ? edit_kinds[e->kind].what : e->to;
}

/* What the prices are, before and after their list, wherever they are said. */
#define PRICE_BASIS "each edit's rough relative price, weighing arm64 and PowerPC, where " \
	"ordering costs most, and x86"
#define PRICE_X86 "on x86 only smp_mb() costs anything: x86 keeps every order but a store " \
	"before a later load"

/* The price of an edit of kind, by its name, as ", name N", unless prices has it. */
static void add_price(const char *name, enum edit_kind kind, struct strbuf *prices)
{
	char entry[64];

	snprintf(entry, sizeof(entry), ", %s ", name);
	if (!prices->buf || !strstr(prices->buf, entry))
		sb_addf(prices, "%s%d%s", entry, edit_kinds[kind].cost, price_note(kind));
}

/*
 * The price of each edit of set not yet in prices, as ", name N": what a
 * fix list's costs are made of, said beside it.
 */
static void add_prices(const struct edits *all, const int *set, int n, struct strbuf *prices)
{
	char name[56];
	int i;

	for (i = 0; i < n; i++) {
		const struct edit *e = &all->items[set[i]];

		snprintf(name, sizeof(name), "%s%s", priced_name(e),
			 edit_kinds[e->kind].what ? "" : "()");
		add_price(name, e->kind, prices);
	}
}

/*
 * Whether edit e orders the program-order pair a, b of the witness: by
 * where it stands, and what a fence orders (smp_rmb() loads, smp_wmb()
 * stores).  The fix is verified by the checker; this only says which of
 * its edits does what, for the reader.
 */
static bool orders_pair(const struct edit *e, const struct event *a, const struct event *b)
{
	bool loads = a->kind == EV_READ && b->kind == EV_READ;
	bool stores = a->kind == EV_WRITE && b->kind == EV_WRITE;
	size_t len = strlen(e->to);

	if (e->proc != a->proc)
		return false;
	if (is_fence_insertion(e->kind))
		return a->line < e->line && e->line <= b->line &&
		       (e->kind != ADD_RMB || loads) && (e->kind != ADD_WMB || stores);
	switch (e->kind) {
	case ADD_ACQUIRE:
		return e->line == a->line;
	case ADD_RELEASE:
	case ASSIGN_POINTER:
		return e->line == b->line;
	case FULLY_ORDER_CALL:
		return e->line == a->line || e->line == b->line;
	case ORDER_CALL:
		return (e->line == a->line && len > 8 && !strcmp(e->to + len - 8, "_acquire")) ||
		       (e->line == b->line && len > 8 && !strcmp(e->to + len - 8, "_release"));
	default:
		return false;
	}
}

/*
 * Why the cheapest fix works, in the explanation's terms: each pair the
 * outcome needs out of order and the edit that keeps it in order; the
 * edits that order none of them serve the twins' swapped parts or the
 * other executions that reach the outcome.
 */
static bool tell_why_fix(const struct snapshot *witness, const struct edits *all, const int *set,
			 int n, bool twins, struct strbuf *out)
{
	int pairs[2 * 32], npairs = witness ? unordered_pairs(witness, pairs, 32) : -1;
	bool used[n + 1];
	int i, j, told = 0, spare[n + 1], nspare = 0, released = -1, acquired = -1;

	memset(used, 0, sizeof(used));

	for (i = 0; i < npairs; i++) {
		const struct event *a = &witness->events[pairs[2 * i]];
		const struct event *b = &witness->events[pairs[2 * i + 1]];

		for (j = 0; j < n && !orders_pair(&all->items[set[j]], a, b); j++)
			;
		if (j == n)
			continue;
		if (!told++)
			sb_addf(out, "  Why it works: each pair of accesses the outcome needs "
				"out of order is kept in order:\n");
		sb_addf(out, "    P%d line %d then line %d: by ", a->proc, a->line, b->line);
		describe_set(all, &set[j], 1, out);
		sb_addf(out, "\n");
		used[j] = true;
		if (all->items[set[j]].kind == ADD_RELEASE && b->kind == EV_WRITE)
			released = b->loc;
		else if (all->items[set[j]].kind == ADD_ACQUIRE && a->kind == EV_READ)
			acquired = a->loc;
	}
	for (j = 0; j < n; j++)
		if (!used[j])
			spare[nspare++] = set[j];
	if (told && nspare) {
		sb_addf(out, "    and ");
		describe_set(all, spare, nspare, out);
		sb_addf(out, twins ? ": the same edits in the other processes that run this "
			"code (each can play either part)\n" :
			": for the other executions that reach it\n");
	}
	/* Message passing's own fix, which a reviewer names at once. */
	if (released >= 0 && released == acquired)
		sb_addf(out, "    This is the usual way to publish data: a release on the store "
			"that publishes it, an acquire on the load that checks for it.\n");
	return released >= 0 && released == acquired;
}

/* Whether the edits of set can stand together: one fence a gap, one edit a call. */
static bool compatible(const struct edits *all, const int *set, int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++) {
			const struct edit *a = &all->items[set[i]], *b = &all->items[set[j]];

			if ((a->gap >= 0 && a->gap == b->gap) ||
			    (a->gap < 0 && b->gap < 0 && a->line == b->line && a->col == b->col))
				return false;
		}
	}
	return true;
}

/*
 * Whether the outcome is reachable once the edits of set are made; *ok
 * false if untestable.  witness as for struct checker's reachable().
 */
static bool reachable_with(const struct checker *c, const char *path, const char *text,
			   const struct edits *all, const int *set, int n, bool *ok,
			   struct lines *edited, struct snapshot **witness)
{
	char *variant;
	bool reachable;

	if (!apply(text, all, set, n, edited)) {
		*ok = false;
		return true;
	}
	variant = join_lines(edited);
	reachable = c->reachable(c, path, variant, ok, witness);
	free(variant);
	return reachable;
}

enum { MAX_SHOWN = 6, COST_SPREAD = 2 };

/* The next set of size k of indexes below n, in lexicographic order; false after the last. */
static bool next_set(int *set, int k, int n)
{
	int i = k - 1;

	while (i >= 0 && set[i] == n - k + i)
		i--;
	if (i < 0)
		return false;
	set[i]++;
	for (i++; i < k; i++)
		set[i] = set[i - 1] + 1;
	return true;
}

/* Whether set (of k) holds every edit of a set already found to work. */
static bool holds_found(const int *set, int k, const struct vec *found)
{
	int f, i, j;

	for (f = 0; f < found->len; f++) {
		const int *g = found->items[f];
		int matched = 0;

		for (i = 1; i <= g[0]; i++)
			for (j = 0; j < k; j++)
				matched += set[j] == g[i];
		if (matched == g[0])
			return true;
	}
	return false;
}

/*
 * Whether set (of k) is a fix already found with some of its fences made
 * dearer at the same places (smp_mb() where smp_rmb() did): another price
 * for the same fix, not another way to fix it.
 */
static bool strengthens_found(const struct edits *all, const int *set, int k,
			      const struct vec *found)
{
	int f, i, j;

	for (f = 0; f < found->len; f++) {
		const int *g = found->items[f];
		int matched = 0;

		if (g[0] != k)
			continue;
		for (i = 0; i < k; i++) {
			const struct edit *e = &all->items[set[i]];

			for (j = 1; j <= k; j++) {
				const struct edit *d = &all->items[g[j]];

				if (set[i] == g[j] ||
				    (is_fence_insertion(e->kind) && is_fence_insertion(d->kind) &&
				     e->gap == d->gap &&
				     edit_kinds[d->kind].cost < edit_kinds[e->kind].cost))
					break;
			}
			matched += j <= k;
		}
		if (matched == k)
			return true;
	}
	return false;
}

/* Whether the search has had its budget: --suggest-max tests, --suggest-timeout seconds. */
static bool over_budget(const struct check_options *opts, long tried, double start)
{
	return (opts->max_variants && tried > opts->max_variants) ||
	       (opts->suggest_timeout > 0 && monotonic_seconds() - start > opts->suggest_timeout);
}

/*
 * Whether the witness has an access on line that another CPU's access
 * reads from, overwrites or is read by: where an ordering is missing.
 */
static bool communicates(const struct snapshot *w, int proc, int line)
{
	int a, b;

	for (a = 0; a < w->nevents; a++) {
		if (w->events[a].proc != proc || w->events[a].line != line)
			continue;
		for (b = 0; b < w->nevents; b++)
			if (w->events[b].proc >= 0 && w->events[b].proc != proc &&
			    (sc_before(w, a, b) || sc_before(w, b, a)))
				return true;
	}
	return false;
}

/*
 * The edits at the lines where the execution that reaches the outcome
 * communicates between CPUs first, where the orderings it lacks are, so
 * that a search cut short by its budget has tried the likely fixes.  The
 * order is stable otherwise: the sets of one cost stay in text order.
 */
static void likely_first(const struct checker *c, const char *path, const char *text,
			 struct edits *all)
{
	struct snapshot *witness = NULL;
	struct edit *sorted;
	bool ok;
	int i, pass, n = 0;

	if (!c->reachable(c, path, text, &ok, &witness) || !ok || !witness) {
		snapshot_free(witness);
		return;
	}
	sorted = xmalloc((all->n + 1) * sizeof(*sorted));
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < all->n; i++)
			if (communicates(witness, all->items[i].proc, all->items[i].line) == !pass)
				sorted[n++] = all->items[i];
	free(all->items);
	all->items = sorted;
	snapshot_free(witness);
}

/* The line of process proc, the same code as e's, where e's line stands. */
static int twin_line(const struct litmus *t, const struct edit *e, int proc)
{
	return e->line + t->procs[proc].pos.line - t->procs[e->proc].pos.line;
}

/* Whether set holds an edit like e (the same change at the same place) in process proc. */
static bool has_twin_edit(const struct litmus *t, const struct edits *all, const int *set, int n,
			  const struct edit *e, int proc)
{
	int i;

	for (i = 0; i < n; i++) {
		const struct edit *f = &all->items[set[i]];

		if (f->proc == proc && f->kind == e->kind && f->line == twin_line(t, e, proc) &&
		    f->col == e->col && !strcmp(f->to, e->to))
			return true;
	}
	return false;
}

/*
 * Whether set changes processes that are the same code alike: in the
 * kernel they are one function, and a fix that edits one copy is not
 * one a developer can write.
 */
static bool alike_in_twins(const struct litmus *t, const struct edits *all, const int *set, int n)
{
	int i, q;

	for (i = 0; i < n; i++) {
		const struct edit *e = &all->items[set[i]];

		for (q = 0; q < t->nprocs; q++)
			if (q != e->proc && same_code(t, e->proc, q) &&
			    !has_twin_edit(t, all, set, n, e, q))
				return false;
	}
	return true;
}

/*
 * Whether set holds the same edit as e in an earlier process of the same
 * code: in the kernel the two are one edit of one function, counted and
 * quoted at the first process only.
 */
static bool has_earlier_twin(const struct litmus *t, const struct edits *all, const int *set,
			     int n, const struct edit *e)
{
	int q;

	for (q = 0; q < e->proc; q++)
		if (same_code(t, e->proc, q) && has_twin_edit(t, all, set, n, e, q))
			return true;
	return false;
}

/*
 * describe_set() with an edit made alike in processes that are the same
 * code said once, with each line it goes to: "smp_store_release() at P0
 * line 27 and P1 line 46" (readers of "(and the same in P1)" looked for
 * P1's edit in P0).
 */
static void describe_once(const struct litmus *t, const struct edits *all, const int *set, int n,
			  const struct lines *orig, struct strbuf *out)
{
	const struct edit *sorted[n + 1];
	int i, q, told = 0;

	sort_set(all, set, n, sorted);
	for (i = 0; i < n; i++) {
		const struct edit *e = sorted[i];

		if (has_earlier_twin(t, all, set, n, e))
			continue;
		sb_addf(out, "%s", told++ ? ", " : "");
		edit_what(e, out);
		edit_place(e, out);
		for (q = e->proc + 1; q < t->nprocs; q++)
			if (same_code(t, e->proc, q) && has_twin_edit(t, all, set, n, e, q))
				sb_addf(out, " and P%d line %d", q, twin_line(t, e, q) - e->line +
					(e->after ? e->after : e->line));
		/* The statement, as readers asked of a bare line number. */
		sb_addf(out, " (`%s`)", code_at(orig, e->after ? e->after : e->line));
	}
}

/* What the edits of set cost: the sum of their prices, twins' edits counted once. */
static int set_cost(const struct litmus *t, const struct edits *all, const int *set, int n)
{
	int i, cost = 0;

	for (i = 0; i < n; i++)
		if (!has_earlier_twin(t, all, set, n, &all->items[set[i]]))
			cost += edit_kinds[all->items[set[i]].kind].cost;
	return cost;
}

/*
 * The prices of the acquires, releases and fences, as the costs in said
 * use them: the common ones, and any other fence said is about.
 */
static void price_list(const char *said, struct strbuf *out)
{
	static const enum edit_kind common[] = { ADD_ACQUIRE, ADD_RELEASE, ADD_RMB, ADD_WMB,
						 ADD_MB };
	struct strbuf prices = { 0 };
	size_t i;
	int k;

	for (i = 0; i < sizeof(common) / sizeof(*common); i++)
		add_price(edit_kinds[common[i]].what, common[i], &prices);
	for (k = 0; k < (int)(sizeof(edit_kinds) / sizeof(*edit_kinds)); k++)
		if (is_fence_insertion(k) && strstr(said, edit_kinds[k].what))
			add_price(edit_kinds[k].what, k, &prices);
	sb_addf(out, "  Cost: " PRICE_BASIS " (%s; " PRICE_X86 ").\n", prices.buf + 2);
	sb_free(&prices);
}

/*
 * A change's cost as its sum, "3: smp_store_release() 1 + smp_rmb() 2",
 * in the order the change names its edits: readers asked what "cost 3"
 * was made of.  An edit that repeats one in an earlier process of the
 * same code is not counted (set_cost()).
 */
static void cost_sum(const struct litmus *t, const struct edits *all, const int *set, int n,
		     struct strbuf *out)
{
	const struct edit *sorted[n + 1];
	int i, terms = 0;

	sb_addf(out, "%d", set_cost(t, all, set, n));
	for (i = 0; i < n; i++)
		terms += !has_earlier_twin(t, all, set, n, &all->items[set[i]]);
	/* One edit's price is the heading's: no sum to show. */
	if (terms < 2)
		return;
	sort_set(all, set, n, sorted);
	for (i = 0, terms = 0; i < n; i++)
		if (!has_earlier_twin(t, all, set, n, sorted[i]))
			sb_addf(out, "%s %s%s %d", terms++ ? " +" : ":", priced_name(sorted[i]),
				edit_kinds[sorted[i]->kind].what ? "" : "()",
				edit_kinds[sorted[i]->kind].cost);
}

/* Whether the set of n edits holds edit index e. */
static bool in_set(const int *set, int n, int e)
{
	int i;

	for (i = 0; i < n; i++)
		if (set[i] == e)
			return true;
	return false;
}

/*
 * Whether set differs from the fix before it (both n edits) only in
 * where fences of one kind stand, in the same processes: DCL's smp_rmb()
 * after the first check or before the last load is one fix, and readers
 * asked for it once.  The edits of set that differ go to moved[].
 */
static bool moved_fence(const struct edits *all, const int *before, const int *set, int n,
			int *moved, int *nmoved)
{
	int i, j, kind = -1, balance;

	*nmoved = 0;
	for (i = 0; i < n; i++) {
		const struct edit *e = &all->items[set[i]], *o = &all->items[before[i]];

		if (!in_set(before, n, set[i])) {
			if (!is_fence_insertion(e->kind) || (kind >= 0 && (int)e->kind != kind))
				return false;
			kind = e->kind;
			moved[(*nmoved)++] = set[i];
		}
		if (!in_set(set, n, before[i]) &&
		    (!is_fence_insertion(o->kind) || (kind >= 0 && (int)o->kind != kind)))
			return false;
	}
	/* As many fences leave each process as come to it. */
	for (i = 0; i < *nmoved; i++) {
		int proc = all->items[moved[i]].proc;

		for (balance = 0, j = 0; j < n; j++) {
			balance += !in_set(before, n, set[j]) && all->items[set[j]].proc == proc;
			balance -= !in_set(set, n, before[j]) && all->items[before[j]].proc == proc;
		}
		if (balance)
			return false;
	}
	return *nmoved > 0;
}

/* How many edits of set repeat one in an earlier process of the same code. */
static int repeats(const struct litmus *t, const struct edits *all, const int *set, int n)
{
	int i, count = 0;

	for (i = 0; i < n; i++)
		count += has_earlier_twin(t, all, set, n, &all->items[set[i]]);
	return count;
}

/*
 * The lines a set of edits changes, as they would read: a dearer
 * alternative shown as code without a whole diff.  "P1 line 24:
 * `smp_rmb();` inserted before `r1 = READ_ONCE(*buf);`" for a fence put
 * before it, "P0 line 16: `smp_store_release(flag, 1);` in place of
 * `WRITE_ONCE(*flag, 1);`" for a line changed (readers of "`smp_rmb();`
 * then `if (...) {`" took it for a riddle); a line of processes that are
 * the same code once, "P0 line 27 and P1 line 46: ...".
 */
static void quote_set(const struct litmus *t, const struct edits *all, const int *set, int n,
		      const struct lines *orig, const struct lines *edited, struct strbuf *out)
{
	const struct edit *sorted[n + 1];
	int i, q;

	sort_set(all, set, n, sorted);
	for (i = 0; i < n; i++) {
		const struct edit *e = sorted[i];
		const char *before = edited->before[e->line - 1];

		/* Two edits of one line: the line once, with both. */
		if ((i && sorted[i - 1]->proc == e->proc && sorted[i - 1]->line == e->line) ||
		    has_earlier_twin(t, all, set, n, e))
			continue;
		/* A fence before a branch goes by the statement before it, as edit_place() says. */
		sb_addf(out, "    P%d line %d", e->proc, e->after ? e->after : e->line);
		for (q = e->proc + 1; q < t->nprocs; q++)
			if (same_code(t, e->proc, q) && has_twin_edit(t, all, set, n, e, q))
				sb_addf(out, " and P%d line %d", q, twin_line(t, e, q) - e->line +
					(e->after ? e->after : e->line));
		sb_addf(out, ": ");
		if (before && e->after && !strcmp(code_at(edited, e->line), code_at(orig, e->line)))
			/* Named as the fix list names it: "smp_rmb() after P0 line 21". */
			sb_addf(out, "`%s` inserted after `%s`\n", before + strspn(before, " \t"),
				code_at(orig, e->after));
		else if (before && !strcmp(code_at(edited, e->line), code_at(orig, e->line)))
			sb_addf(out, "`%s` inserted before `%s`\n", before + strspn(before, " \t"),
				code_at(orig, e->line));
		else if (before)
			sb_addf(out, "`%s` inserted before `%s`, which becomes `%s`\n",
				before + strspn(before, " \t"), code_at(orig, e->line),
				code_at(edited, e->line));
		else
			sb_addf(out, "`%s` in place of `%s`\n", code_at(edited, e->line),
				code_at(orig, e->line));
	}
}

/*
 * Whether line i + 1 of l is a WRITE_ONCE() alone, its arguments then
 * from *args (up to the closing parenthesis) on.
 */
static bool lone_write_once(const struct lines *l, int i, const char **args)
{
	const char *code = code_at(l, i + 1), *close;

	if (strncmp(code, "WRITE_ONCE(", strlen("WRITE_ONCE(")))
		return false;
	close = closing_paren(code + strlen("WRITE_ONCE"));
	if (!close || strcmp(close, ");"))
		return false;
	*args = code + strlen("WRITE_ONCE");
	return true;
}

/* Whether the fence edited puts before line i + 1 is a smp_mb(). */
static bool mb_before(const struct lines *edited, int i)
{
	const char *fence = edited->before[i];

	return fence && !strcmp(fence + strspn(fence, " \t"), "smp_mb();");
}

/*
 * The fix in edited with each smp_mb() put right after a WRITE_ONCE()
 * made one smp_store_mb() (the .def defines it as the two), as a test's
 * text; NULL if no smp_mb() is so placed.
 */
static char *store_mb_text(const struct lines *edited)
{
	struct strbuf sb = { 0 };
	bool merged = false, merge_next = false;
	int i;

	for (i = 0; i < edited->n; i++) {
		const char *args;
		bool merge = i + 1 < edited->n && mb_before(edited, i + 1) &&
			     !edited->dropped[i] && lone_write_once(edited, i, &args);

		if (edited->before[i] && !merge_next)
			sb_addf(&sb, "%s\n", edited->before[i]);
		merge_next = merge;
		if (edited->dropped[i])
			continue;
		if (merge)
			sb_addf(&sb, "%.*ssmp_store_mb%s\n",
				(int)strspn(edited->text[i], " \t"), edited->text[i], args);
		else
			sb_addf(&sb, "%s\n", edited->text[i]);
		merged |= merge;
	}
	if (!merged) {
		sb_free(&sb);
		return NULL;
	}
	return sb.buf;
}

/*
 * "or the same with smp_store_mb() ...": readers of a fix that puts
 * smp_mb() after a store asked for the one call the kernel writes
 * there; said once the checker has the merged text forbid the outcome
 * too.
 */
static void store_mb_form(const struct checker *c, const char *path, const struct edits *all,
			  const int *set, int n, const struct lines *edited, struct strbuf *out)
{
	char *variant = store_mb_text(edited);
	const char *args;
	bool ok;
	int i;

	if (!variant)
		return;
	if (!c->reachable(c, path, variant, &ok, NULL) && ok) {
		sb_addf(out, "    or the same with smp_store_mb(), a store and smp_mb() in one "
			"call:\n");
		for (i = 0; i < n; i++) {
			const struct edit *e = &all->items[set[i]];

			if (e->kind != ADD_MB || e->line < 2 || edited->dropped[e->line - 2] ||
			    !lone_write_once(edited, e->line - 2, &args))
				continue;
			sb_addf(out, "    P%d line %d: `smp_store_mb%s` in place of `%s` and the "
				"smp_mb() after it\n", e->proc, e->line - 1, args,
				code_at(edited, e->line - 1));
		}
	}
	free(variant);
}

/*
 * "smp_store_release(), smp_load_acquire() wherever they fit, and ": the
 * kinds of edit cheaper than a full barrier among the candidates, each
 * once, for a reader who asks whether an acquire or a release would have
 * done.
 */
static void tried_cheaper(const struct edits *all, struct strbuf *out)
{
	bool named[sizeof(edit_kinds) / sizeof(edit_kinds[0])] = { false };
	int i, told = 0;

	for (i = 0; i < all->n; i++) {
		enum edit_kind k = all->items[i].kind;

		if (edit_kinds[k].what && edit_kinds[k].cost > 0 &&
		    edit_kinds[k].cost < edit_kinds[ADD_MB].cost && !named[k])
			sb_addf(out, "%s%s", told++ ? ", " : "", edit_kinds[k].what);
		named[k] = true;
	}
	if (told)
		sb_addf(out, " wherever they fit, and ");
}

/*
 * ".  P0 and P1 are one function, so that is 2 edits to it", for "In
 * short", of the first process that has twins.
 */
static void twin_note(const struct litmus *t, int edits, struct strbuf *out)
{
	int a, b;

	for (a = 0; a < t->nprocs; a++) {
		bool twinned = false;

		for (b = a + 1; b < t->nprocs; b++)
			if (same_code(t, a, b)) {
				if (!twinned)
					sb_addf(out, ".  P%d", a);
				sb_addf(out, " and P%d", b);
				twinned = true;
			}
		if (twinned) {
			sb_addf(out, " are one function, so that is %d edits to it", edits);
			return;
		}
	}
}

/* Whether some two processes of t are the same code. */
static bool has_twins(const struct litmus *t)
{
	int a, b;

	for (a = 0; a < t->nprocs; a++)
		for (b = a + 1; b < t->nprocs; b++)
			if (same_code(t, a, b))
				return true;
	return false;
}

/*
 * A fix found without the cheapest-first search: smp_mb() before every
 * statement, then each taken away in turn that the outcome does not
 * need.  As many checks as the test has statements, so it is done first
 * and told when the search finds nothing cheaper in its time; its checks
 * count in the search's budget (*tried since start).  Its set of fences
 * (indexes into fences) in *set, *n of them; false if full fencing does
 * not forbid the outcome or the budget ends first.
 */
static bool strip_fences(const struct checker *c, const char *path, const char *text,
			 const struct litmus *t, long *tried, double start, struct edits *fences,
			 int **set, int *n)
{
	struct lines edited;
	int *without, i, j, prev_line;
	bool ok, reachable;

	for (i = 0; i < t->nprocs; i++) {
		prev_line = 0;
		find_sc_fences(t->procs[i].body, i, &prev_line, fences);
	}
	*set = xmalloc((fences->n + 1) * sizeof(**set));
	without = xmalloc((fences->n + 1) * sizeof(*without));
	for (*n = 0; *n < fences->n; (*n)++)
		(*set)[*n] = *n;
	if (over_budget(c->opts, ++*tried, start))
		goto out_of_budget;
	reachable = reachable_with(c, path, text, fences, *set, *n, &ok, &edited, NULL);
	free_lines(&edited);
	if (reachable || !ok) {
		free(without);
		return false;
	}
	for (i = 0; i < *n;) {
		if (over_budget(c->opts, ++*tried, start))
			goto out_of_budget;
		for (j = 0; j < *n - 1; j++)
			without[j] = (*set)[j < i ? j : j + 1];
		reachable = reachable_with(c, path, text, fences, without, *n - 1, &ok, &edited,
					   NULL);
		free_lines(&edited);
		if (!reachable && ok)
			memcpy(*set, without, --*n * sizeof(**set));
		else
			i++;
	}
	free(without);
	return true;
out_of_budget:
	--*tried;
	free(without);
	return false;
}

/* The fences strip_fences() kept, told as the one fix when the search found none. */
static void tell_stripped(const char *path, const char *text, const struct litmus *t,
			  const struct edits *fences, const int *set, int n, struct strbuf *out)
{
	struct lines edited;

	sb_addf(out, "  A fix found by putting smp_mb() before every statement and taking "
		"away each one the outcome does not need (the search for cheaper ones ran "
		"out of time):\n  1. (cost ");
	cost_sum(t, fences, set, n, out);
	sb_addf(out, ") ");
	describe_set(fences, set, n, out);
	sb_addf(out, ":\n");
	if (apply(text, fences, set, n, &edited))
		unified_diff(path, text, &edited, out);
	free_lines(&edited);
}

/* How many items, one a line, items holds. */
static int count_items(const char *items)
{
	int n = 0;

	for (const char *p = items; p && *p; p = strchr(p, '\n') + 1)
		n++;
	return n;
}

/* Items one a line, as a list in words: "A", "A and B", "A, B and C" (or "nor"). */
static void join_items_with(const char *items, const char *last, struct strbuf *out)
{
	int n = count_items(items), i = 0;
	const char *p;

	for (p = items; p && *p; p = strchr(p, '\n') + 1, i++)
		sb_addf(out, "%s%.*s", !i ? "" : i == n - 1 ? last : ", ", (int)strcspn(p, "\n"), p);
}

static void join_items(const char *items, struct strbuf *out)
{
	join_items_with(items, " and ", out);
}

/* The line of the character at `at` in text. */
static int line_of(const char *text, const char *at)
{
	int line = 1;

	for (const char *p = text; p < at; p++)
		line += *p == '\n';
	return line;
}

/* The '}' closing the '{' at open, comments skipped; NULL if none. */
static const char *closing_brace(const char *open)
{
	int depth = 0;

	for (const char *p = open; *p; p++) {
		if (p[0] == '/' && p[1] == '*') {
			p = strstr(p + 2, "*/");
			if (!p)
				return NULL;
			p++;
		} else if (p[0] == '/' && p[1] == '/') {
			p += strcspn(p, "\n");
			if (!*p)
				return NULL;
		} else if (*p == '{') {
			depth++;
		} else if (*p == '}' && !--depth) {
			return p;
		}
	}
	return NULL;
}

/*
 * Process proc's body made one critical section of lock, in l: the lock
 * taken before its first statement that is not a declaration, released
 * before its closing brace, and the lock among its parameters.  False
 * where the layout has no line of its own for each.
 */
static bool lock_body(const char *text, const struct process *pr, const char *lock,
		      struct lines *l)
{
	const struct stmt *body = pr->body;
	const char *close = closing_brace(pr->body_text), *params = pr->body_text;
	int open_line = line_of(text, pr->body_text), first = 0, last = 0, end, i;
	struct strbuf with_lock = { 0 }, call = { 0 };
	char *header;

	for (i = 0; i < body->nbody; i++) {
		if (!first && body->body[i]->kind != S_DECL)
			first = body->body[i]->pos.line;
		last = body->body[i]->pos.line;
	}
	while (params > text && params[-1] != ')')
		params--;
	if (!close || !first || params == text || first <= open_line ||
	    (end = line_of(text, close)) <= last || l->before[first - 1] || l->before[end - 1])
		return false;
	i = line_of(text, params - 1) - 1;
	header = l->text[i];
	params = strrchr(header, ')');
	sb_addf(&with_lock, "%.*s%sspinlock_t *%s%s", (int)(params - header), header,
		pr->nparams ? ", " : "", lock, params);
	l->text[i] = with_lock.buf;
	free(header);
	sb_addf(&call, "spin_lock(%s)", lock);
	l->before[first - 1] = fence_statement(l->text[first - 1], call.buf);
	call.len = 0;
	sb_addf(&call, "spin_unlock(%s)", lock);
	l->before[end - 1] = fence_statement(l->text[first - 1], call.buf);
	sb_free(&call);
	return true;
}

/*
 * A driver writer's first fix is often a lock both sides take: each
 * process's body made one critical section of one new lock, and the test
 * checked again (readers asked whether a lock would do, for SB).  Not
 * where a process sleeps (synchronize_rcu() under a spinlock is a bug)
 * or takes a lock already, nor where the name is in use.
 */
static void one_lock_trial(const struct checker *c, const char *path, const char *text,
			   const struct litmus *t, struct strbuf *out)
{
	static const char lock[] = "shared_lock";
	struct lines l;
	struct strbuf procs = { 0 };
	bool ok = true, reachable;
	char *variant;
	int i;

	if (t->nprocs < 2 || strstr(text, lock) || strstr(text, "synchronize_") ||
	    strstr(text, "spin_lock") || strstr(text, "mutex_lock"))
		return;
	l = split_lines(text);
	for (i = 0; i < t->nprocs && ok; i++) {
		ok = lock_body(text, &t->procs[i], lock, &l);
		sb_addf(&procs, "P%d\n", t->procs[i].id);
	}
	if (!ok)
		goto out;
	variant = join_lines(&l);
	reachable = c->reachable(c, path, variant, &ok, NULL);
	free(variant);
	if (!ok)
		goto out;
	sb_addf(out, "  Or one lock on every side: with each process's statements between "
		"spin_lock(%s) and spin_unlock(%s) (", lock, lock);
	join_items(procs.buf, out);
	if (reachable) {
		sb_addf(out, "), the outcome is still possible (checked).\n");
		goto out;
	}
	sb_addf(out, "), it is forbidden too (checked): the critical sections run one at a "
		"time, each seeing everything the one before it did.  A lock costs more than "
		"the barriers above (an atomic RMW and a release on each CPU, and a CPU waits "
		"while another holds it); where %s already take one lock around these "
		"accesses, they need no barrier for them.\n",
		t->nprocs == 2 ? "both sides" : "all sides");
out:
	sb_free(&procs);
	free_lines(&l);
}

/*
 * Sets of up to --suggest-edits edits, cheapest first, from the cheapest
 * that works to COST_SPREAD above it: the cheapest fix, and the other
 * ways (fences rather than acquire and release) that hold no cheaper fix.
 * By default a set has an edit for each process and two more: a process
 * may need both an acquire and a release (double-checked locking does, on
 * each CPU that runs it).  Where processes are the same code, only the
 * sets that change them alike are fixes.
 */
static void suggest_fixes(const struct checker *c, const char *path, const char *text,
			  const struct litmus *t, const struct edits *all,
			  const struct snapshot *witness, struct strbuf *in_short,
			  struct strbuf *out)
{
	int max_set = c->opts->suggest_edits ? c->opts->suggest_edits : t->nprocs + 2;
	int cost, k, shown = 0, entries = 0, fixes = 0, cheapest = 0, last_k = 0, nmoved;
	int *set = xmalloc(max_set * sizeof(*set)), *last = xmalloc(max_set * sizeof(*last));
	int *moved = xmalloc(max_set * sizeof(*moved));
	bool twins = has_twins(t), cheapest_full = true;
	struct vec found = { 0 };
	long tried = 0;
	bool stop = false;
	double start = monotonic_seconds();
	struct edits fences = { 0 };
	int *stripped = NULL, nstripped = 0;
	bool has_stripped = strip_fences(c, path, text, t, &tried, start, &fences, &stripped,
					 &nstripped);
	struct strbuf list = { 0 }, prices = { 0 };
	struct lines orig = split_lines(text);

	if (twins)
		sb_addf(out, "  (Processes that are the same code are changed alike: in the "
			"kernel they are one function, so an edit made in each counts once in a "
			"change's cost.)\n");

	for (cost = 1; cost <= 3 * max_set && !stop && (!cheapest || cost <= cheapest + COST_SPREAD);
	     cost++) {
		for (k = 1; k <= max_set && k <= all->n && !stop; k++) {
			int i;

			for (i = 0; i < k; i++)
				set[i] = i;
			do {
				struct lines edited;
				bool ok, reachable;
				int *copy;

				if (set_cost(t, all, set, k) != cost || !compatible(all, set, k) ||
				    holds_found(set, k, &found) ||
				    strengthens_found(all, set, k, &found))
					continue;
				if (over_budget(c->opts, ++tried, start)) {
					stop = true;
					tried--;
					break;
				}
				reachable = reachable_with(c, path, text, all, set, k, &ok, &edited,
							   NULL);
				/* A superset of any set that works is no other way. */
				if (ok && !reachable) {
					copy = xmalloc((k + 1) * sizeof(*copy));
					copy[0] = k;
					memcpy(copy + 1, set, k * sizeof(*set));
					vec_push(&found, copy);
				}
				if (ok && !reachable && (!twins || alike_in_twins(t, all, set, k))) {
					fixes++;
					if (!cheapest)
						cheapest = cost;
					for (i = 0; cost == cheapest && i < k; i++)
						cheapest_full &= all->items[set[i]].kind == ADD_MB ||
								 all->items[set[i]].kind == FULLY_ORDER_CALL;
				}
				if (ok && !reachable && fixes > shown && shown < MAX_SHOWN &&
				    cost != cheapest && k == last_k &&
				    moved_fence(all, last, set, k, moved, &nmoved)) {
					/* One fix whose fence may stand in either place: said once. */
					shown++;
					/* Readers could not tell what "instead" replaced. */
					sb_addf(&list, "    or the same change with its fence%s moved: ",
						nmoved > 1 ? "s" : "");
					describe_set(all, moved, nmoved, &list);
					sb_addf(&list, " instead (the rest as above):\n");
					quote_set(t, all, moved, nmoved, &orig, &edited, &list);
				} else if (ok && !reachable && fixes > shown && shown < MAX_SHOWN) {
					int repeated = repeats(t, all, set, k);

					shown++;
					sb_addf(&list, "  %d. (cost ", ++entries);
					cost_sum(t, all, set, k, &list);
					memcpy(last, set, k * sizeof(*set));
					last_k = k;
					if (entries == 1 && repeated)
						sb_addf(&list, "; the same %d edits in each of "
							"the processes that share this code",
							k - repeated);
					sb_addf(&list, ") ");
					describe_set(all, set, k, &list);
					sb_addf(&list, ":\n");
					/* The dearer ones are alternatives: their lines are enough. */
					if (cost == cheapest)
						unified_diff(path, text, &edited, &list);
					else
						quote_set(t, all, set, k, &orig, &edited, &list);
					store_mb_form(c, path, all, set, k, &edited, &list);
					if (entries == 1) {
						bool usual = tell_why_fix(witness, all, set, k,
									  twins, &list);

						sb_addf(in_short, "to forbid it, use ");
						describe_once(t, all, set, k, &orig, in_short);
						sb_addf(in_short, "%s (change 1 below)",
							usual ? ", the usual way to publish "
							"data" : "");
						if (repeated)
							twin_note(t, k - repeated, in_short);
					}
					add_prices(all, set, k, &prices);
				}
				free_lines(&edited);
			} while (next_set(set, k, all->n));
		}
	}
	/* The prices where the first cost is read: readers met "cost 2" with no unit. */
	if (shown)
		sb_addf(out, "  Changes that forbid it, cheapest first (cost: " PRICE_BASIS ", %s; "
			PRICE_X86 "):\n%s", prices.buf + 2, list.buf);
	if (prices.buf && strstr(prices.buf, ", smp_mb__after_unlock_lock() "))
		sb_addf(out, "  (%s.)\n", AFTER_UNLOCK_LOCK_NOTE);
	sb_free(&list);
	if (fixes > shown)
		sb_addf(out, "  (%d sets of edits forbid it; the %d cheapest are shown.)\n", fixes,
			shown);
	if (fixes && cheapest_full) {
		/* The classic mistake is one barrier, or a cheaper one: said up front too. */
		sb_addf(in_short, "; nothing cheaper and no fewer barriers forbid it");
		sb_addf(out, "  Nothing cheaper forbids it (every cheaper set was tried: ");
		tried_cheaper(all, out);
		sb_addf(out, "smp_mb() in fewer places): it needs "
			"a full barrier, the one ordering that keeps a store before a later load "
			"and waits until the stores its CPU has seen have reached every CPU "
			"(smp_store_mb() is a store "
			"and smp_mb() in one; a fully ordered RMW such as xchg() orders like "
			"smp_mb() on both sides of it).\n");
	}
	if (stop && fixes)
		sb_addf(out, "  (Every cheaper change was tried; dearer alternatives were still "
			"being searched when the %.1f s limit came: see --suggest-timeout.)\n",
			monotonic_seconds() - start);
	else if (stop)
		sb_addf(out, "  (stopped after %ld variants in %.1f s: raise --suggest-timeout or "
			"--suggest-max)\n", tried, monotonic_seconds() - start);
	if (!fixes && stop && has_stripped) {
		tell_stripped(path, text, t, &fences, stripped, nstripped, out);
		sb_addf(in_short, "to forbid it, the smp_mb() fences below");
		fixes = 1;
	}
	free(fences.items);
	free(stripped);
	if (!fixes && !stop)
		sb_addf(out, "  No set of up to %d acquire, release or fence edits forbids it "
			"(--suggest-edits %d tries larger sets).\n", max_set, max_set + 1);
	if (!fixes)
		sb_addf(in_short, stop ? "no change that forbids it was found in the time given "
			"(below)" : "no set of up to %d edits forbids it (below)", max_set);
	sb_free(&prices);
	one_lock_trial(c, path, text, t, out);
	if (fixes)
		sb_addf(out, "Suggestion: fixed %d\n", fixes);
	else if (stop)
		sb_addf(out, "Suggestion: budget after %ld candidates\n", tried);
	else
		sb_addf(out, "Suggestion: none within %d edits\n", max_set);
	for (k = 0; k < found.len; k++)
		free(found.items[k]);
	vec_free(&found);
	free(set);
	free(last);
	free(moved);
	free_lines(&orig);
}

/*
 * Edited line numbers back to the test's: edited_to_line[L] is the line
 * of the test that edited line L is (0 for a line the edits added).
 */
static int *edited_line_map(const struct lines *l, int *nlines)
{
	int *map = xcalloc(2 * l->n + 2, sizeof(*map));
	int i, at = 1;

	for (i = 0; i < l->n; i++) {
		if (l->before[i])
			map[at++] = 0;
		if (!l->dropped[i])
			map[at++] = i + 1;
	}
	*nlines = at;
	return map;
}

/*
 * The next event of an order that puts every edge of po, rf, co and fr
 * first: among those whose predecessors are all placed, one of the CPU
 * placed last if it can go on, so that the order reads as few switches
 * of CPU as the execution allows.  -1 when none can go: the execution
 * is not sequentially consistent (a cycle), or every event is placed.
 */
static int next_in_order(const struct snapshot *s, const bool *placed, int last_proc)
{
	int e, p, best = -1;

	for (e = 0; e < s->nevents; e++) {
		bool ready = !placed[e];

		for (p = 0; p < s->nevents && ready; p++)
			if (!placed[p] && p != e && sc_before(s, p, e))
				ready = false;
		if (ready && (best < 0 || (s->events[e].proc == last_proc &&
					   s->events[best].proc != last_proc)))
			best = e;
	}
	return best;
}

/*
 * The accesses of the witness in one order every CPU agrees with, each
 * its statement; false, with nothing written, when there is no such
 * order.
 */
static bool print_interleaving(const struct snapshot *s, const struct lines *edited,
			       struct strbuf *out)
{
	struct strbuf steps = { 0 };
	bool consistent;
	bool *placed = xcalloc(s->nevents, sizeof(*placed));
	int nlines, *map = edited_line_map(edited, &nlines), last_proc = -2, last_line = -1;
	int step = 0, e, i;
	char *text = join_lines(edited);
	struct lines joined = split_lines(text);

	for (i = 0; i < s->nevents; i++)
		placed[i] = s->events[i].proc < 0;	/* the initial values come first */
	while ((e = next_in_order(s, placed, last_proc)) >= 0) {
		const struct event *ev = &s->events[e];
		const char *line;

		placed[e] = true;
		if (ev->kind == EV_FENCE || ev->line <= 0 || ev->line >= nlines || !map[ev->line] ||
		    (ev->proc == last_proc && ev->line == last_line))
			continue;
		line = joined.text[ev->line - 1];
		sb_addf(&steps, "    %d. P%d line %d `%s`\n", ++step, ev->proc, map[ev->line],
			line + strspn(line, " \t"));
		last_proc = ev->proc;
		last_line = ev->line;
	}
	for (consistent = true, i = 0; i < s->nevents; i++)
		consistent &= placed[i];
	if (consistent)
		sb_addf(out, "%s", steps.buf ? steps.buf : "");
	sb_free(&steps);
	free_lines(&joined);
	free(text);
	free(map);
	free(placed);
	return consistent;
}

/*
 * Whether the outcome is reachable with smp_mb() between every two
 * statements of every process: each CPU's accesses then take effect in
 * program order (sequential consistency), so the processes' own logic
 * reaches the outcome and no barrier, acquire or release can forbid it.
 * The model decides, on the test so edited, and the execution it finds
 * must be one that a single order of all accesses gives (shown as the
 * interleaving): a fence the edits cannot place (two accesses in one
 * statement, a loop's way back) leaves the answer to the search of fixes.
 */
static bool sc_reachable(const struct checker *c, const char *path, const char *text,
			 const struct litmus *t, struct strbuf *out)
{
	struct edits fences = { 0 };
	struct snapshot *witness = NULL;
	struct strbuf interleaving = { 0 };
	struct lines edited;
	bool ok, reachable, shown = false;
	int *set, i;

	if (t->quantifier == Q_FORALL)	/* its witness is not of the outcome asked about */
		return false;
	for (i = 0; i < t->nprocs; i++) {
		int prev_line = 0;

		find_sc_fences(t->procs[i].body, i, &prev_line, &fences);
	}
	set = xmalloc((fences.n + 1) * sizeof(*set));
	for (i = 0; i < fences.n; i++)
		set[i] = i;
	reachable = reachable_with(c, path, text, &fences, set, fences.n, &ok, &edited, &witness);
	if (ok && reachable && witness)
		shown = print_interleaving(witness, &edited, &interleaving);
	if (shown)
		sb_addf(out, "  No ordering can forbid it: the outcome is reachable even with "
			"smp_mb() between every two statements, where each CPU's accesses take "
			"effect in program order (sequential consistency).  The processes' own "
			"logic allows it, in this interleaving:\n%s"
			"  To rule it out, change what the processes do (or the condition), "
			"not their ordering.\n", interleaving.buf);
	sb_free(&interleaving);
	snapshot_free(witness);
	free_lines(&edited);
	free(fences.items);
	free(set);
	return shown;
}

/*
 * A link of the explanation's chains that the edits here leave as it
 * is: a lock handed from an unlock (a) to the lock that takes it (b),
 * or a dependency of access b on load a.
 */
struct link {
	const char *kind;		/* kept_link()'s: "lock", "addr", "data", "ctrl" */
	const struct event *a, *b;
};

enum { MAX_LINKS = 16 };

/* The kept links of s's cycle not in links[] yet, after them; how many in all. */
static int add_links(const struct snapshot *s, struct link *links, int n)
{
	int i, j;

	for (i = 0; i < s->nsteps && n < MAX_LINKS; i++) {
		const char *kind = kept_link(s, &s->steps[i]);
		const struct event *a = &s->events[s->steps[i].from];
		const struct event *b = &s->events[s->steps[i].to];

		for (j = 0; kind && j < n; j++)
			if (!strcmp(links[j].kind, kind) && links[j].a->proc == a->proc &&
			    links[j].a->line == a->line && links[j].b->proc == b->proc &&
			    links[j].b->line == b->line)
				break;
		if (kind && j == n)
			links[n++] = (struct link){ kind, a, b };
	}
	return n;
}

/* "P0 line 17 `spin_unlock(mylock);` to P1 line 24 `spin_lock(mylock);`", joined by word. */
static void tell_ends(const struct lines *orig, const struct event *a, const char *word,
		      const struct event *b, struct strbuf *out)
{
	sb_addf(out, "P%d line %d `%s` %s P%d line %d `%s`", a->proc, a->line,
		code_at(orig, a->line), word, b->proc, b->line, code_at(orig, b->line));
}

/*
 * The links in words, one a line of items: a lock's hand-offs together
 * ("the lock hand-off from A to B (and, had B's CPU taken the lock first,
 * the one back from B' to A')"), "the address dependency of B on A".
 */
static void tell_links(const struct lines *orig, const struct link *links, int n,
		       struct strbuf *items)
{
	int i, j;

	for (i = 0; i < n; i++) {
		const struct link *l = &links[i];

		if (strcmp(l->kind, "lock")) {
			sb_addf(items, "the %s dependency of ", !strcmp(l->kind, "addr") ? "address" :
				!strcmp(l->kind, "data") ? "data" : "control");
			tell_ends(orig, l->b, "on", l->a, items);
			sb_addf(items, "\n");
			continue;
		}
		for (j = 0; j < i && (strcmp(links[j].kind, "lock") || links[j].a->loc != l->a->loc);
		     j++)
			;
		if (j < i)	/* told with the lock's first hand-off */
			continue;
		sb_addf(items, "the lock hand-off from ");
		tell_ends(orig, l->a, "to", l->b, items);
		for (j = i + 1; j < n; j++) {
			const struct link *m = &links[j];

			if (strcmp(m->kind, "lock") || m->a->loc != l->a->loc)
				continue;
			if (m->a->proc == l->b->proc && m->b->proc == l->a->proc)
				sb_addf(items, " (and, had P%d taken the lock first, the one back from ",
					m->a->proc);
			else
				sb_addf(items, " (or from ");
			tell_ends(orig, m->a, "to", m->b, items);
			sb_addf(items, ")");
		}
		sb_addf(items, "\n");
	}
}

/*
 * The accesses of s's cycle on process proc nearest line: the last at
 * or before it in *a, the first at or after it in *b (-1 for none).
 */
static void chain_around(const struct snapshot *s, int proc, int line, int *a, int *b)
{
	int i, k;

	*a = *b = -1;
	for (i = 0; i < s->nsteps; i++) {
		for (k = 0; k < 2; k++) {
			int id = k ? s->steps[i].to : s->steps[i].from;
			const struct event *e = &s->events[id];

			if (e->proc != proc || (e->kind != EV_READ && e->kind != EV_WRITE))
				continue;
			if (e->line <= line && (*a < 0 || s->events[*a].line < e->line))
				*a = id;
			if (e->line >= line && (*b < 0 || s->events[*b].line > e->line))
				*b = id;
		}
	}
}

/* What --suggest found of a forbidden outcome's orderings, for telling why a weakening is safe. */
struct findings {
	const struct outcomes *o;	/* the rejected candidates: the explanation's chains */
	const struct edits *all;
	const bool *needed;		/* all's edits whose removal lets the outcome happen */
	const struct lines *orig;
	const char *path, *text;	/* the test, for a cheaper form's diff */
};

/*
 * Why a fence weakened to weaker[w] still forbids the outcome, from the
 * explanation's chains: on one of them it stands between two accesses
 * of the kind the weaker fence keeps in order, and the rest of that
 * chain holds by the test's other needed orderings on it and its kept
 * links, where a chain shows it.
 */
static void tell_safe(const struct findings *f, const struct edit *e, int w, struct strbuf *out)
{
	int k, i, a, b, x, y;

	for (k = 0; k < f->o->ncounterexamples; k++) {
		const struct snapshot *s = f->o->counterexamples[k];
		struct link links[MAX_LINKS];
		struct strbuf rest = { 0 };
		const struct edit *last = NULL;

		chain_around(s, e->proc, e->line, &a, &b);
		if (a < 0 || b < 0 || s->events[a].line == e->line || s->events[a].kind != weaker[w].pair ||
		    s->events[b].kind != weaker[w].pair)
			continue;
		sb_addf(out, " (on the explanation's chain it stands between %s, "
			"P%d line %d `%s` and line %d `%s`, which %s() keeps in order", weaker[w].pair_name,
			e->proc, s->events[a].line, code_at(f->orig, s->events[a].line),
			s->events[b].line, code_at(f->orig, s->events[b].line), e->to);
		for (i = 0; i < f->all->n; i++) {
			const struct edit *g = &f->all->items[i];

			if (!f->needed[i] || (g->proc == e->proc && g->line == e->line) ||
			    (last && g->proc == last->proc && g->line == last->line))
				continue;
			chain_around(s, g->proc, g->line, &x, &y);
			if (x < 0 || y < 0)
				continue;
			sb_addf(&rest, "P%d line %d `%s`\n", g->proc, g->line, code_at(f->orig, g->line));
			last = g;
		}
		tell_links(f->orig, links, add_links(s, links, 0), &rest);
		if (rest.buf) {
			sb_addf(out, "; the rest of that chain holds by ");
			join_items(rest.buf, out);
		}
		sb_addf(out, ")");
		sb_free(&rest);
		return;
	}
}

/*
 * "; on the explanation's chain it stands between a store, P2 line 37
 * ..., and a load, line 39 ...": what the fence e must order, for a
 * weaker one found not enough.
 */
static void tell_pair_kinds(const struct findings *f, const struct edit *e, struct strbuf *out)
{
	const struct snapshot *s;
	int a, b;

	if (!f->o->ncounterexamples)
		return;
	s = f->o->counterexamples[0];
	chain_around(s, e->proc, e->line, &a, &b);
	if (a < 0 || b < 0 || s->events[a].line == e->line ||
	    (s->events[a].kind != EV_READ && s->events[a].kind != EV_WRITE) ||
	    (s->events[b].kind != EV_READ && s->events[b].kind != EV_WRITE))
		return;
	sb_addf(out, "; on the explanation's chain it stands between a %s, P%d line %d `%s`, and "
		"a %s, line %d `%s`", s->events[a].kind == EV_WRITE ? "store" : "load", e->proc,
		s->events[a].line, code_at(f->orig, s->events[a].line),
		s->events[b].kind == EV_WRITE ? "store" : "load", s->events[b].line,
		code_at(f->orig, s->events[b].line));
}

/*
 * The cheapest form found to do a needed ordering's work, for the
 * closing "In short" line: a reader given two alternatives asks which
 * one to write.
 */
enum { MAX_CHEAPER = 4 };

struct cheaper {
	struct strbuf statement;	/* the needed one, quoted; empty if not needed */
	int n;				/* replacements found, cheapest first */
	int cost[MAX_CHEAPER];
	struct strbuf what[MAX_CHEAPER];	/* "smp_rmb()", "smp_load_acquire() at line 35" */
	bool removable;			/* removing it lets the outcome happen */
	bool told_removal;		/* an item before said so: later ones say "needed too" */
	struct strbuf short_of;		/* "smp_rmb()\nsmp_wmb()\n": what cannot replace it */
	struct strbuf diff;		/* the cheapest replacement, as a diff of the test */
};

static void offer_cheaper(struct cheaper *c, int cost, struct strbuf *diff, const char *fmt,
			  ...) __attribute__((format(printf, 4, 5)));

/*
 * Each replacement found, in order of cost: readers asked for all of
 * them, not the cheapest.  The cheapest's diff, if given, is taken.
 */
static void offer_cheaper(struct cheaper *c, int cost, struct strbuf *diff, const char *fmt, ...)
{
	va_list ap;
	int i;

	if (!cost || c->n == MAX_CHEAPER)
		return;
	for (i = c->n; i > 0 && c->cost[i - 1] > cost; i--) {
		c->cost[i] = c->cost[i - 1];
		c->what[i] = c->what[i - 1];
	}
	/* The diff shown is the cheapest's, or none. */
	if (i == 0) {
		sb_free(&c->diff);
		if (diff) {
			c->diff = *diff;
			*diff = (struct strbuf){ 0 };
		}
	}
	c->cost[i] = cost;
	c->what[i] = (struct strbuf){ 0 };
	c->n++;
	va_start(ap, fmt);
	sb_vaddf(&c->what[i], fmt, ap);
	va_end(ap);
}

/*
 * The item of "In short" for the statement c was about, into advice (it
 * must stay, in a cheaper form where one would do, counted in *cheaper);
 * c is then reset.
 */
static void advise(struct cheaper *c, struct strbuf *advice, int *cheaper, struct strbuf *diffs)
{
	struct strbuf short_of = { 0 };
	int i;

	if (c->statement.buf && c->n) {
		/*
		 * Kept too, the cheapest form named: readers of a forbidden
		 * outcome came to learn what must stay, and took "is more than
		 * these accesses need" for leave to weaken.  Counted apart.
		 */
		(*cheaper)++;
		sb_addf(advice, "%s, or the cheaper %s in its place", c->statement.buf,
			c->what[0].buf);
		for (i = 1; i < c->n; i++)
			sb_addf(advice, "%s%s", i == 1 ? " (" : i + 1 < c->n ? ", " : " and ",
				c->what[i].buf);
		if (c->n > 1)
			sb_addf(advice, " %s enough too)", c->n > 2 ? "are" : "is");
		sb_addf(advice, "\n");
		/*
		 * As a diff too: readers wanted to see the line the fence leaves;
		 * with what a full barrier alone does, the one reason to keep it
		 * that holds for every cheaper replacement.
		 */
		if (c->diff.buf)
			sb_addf(diffs, "  The cheapest replacement of %s, %s, as a diff (%s):\n%s",
				c->statement.buf, c->what[0].buf,
				strstr(c->statement.buf, "`smp_mb();`") ? "enough for these "
				"accesses; keep smp_mb() if code around it also needs a store before "
				"it ordered before a load after it, which only a full barrier does" :
				"enough for these accesses; other code around it may need more",
				c->diff.buf);
	} else if (c->statement.buf) {
		int n = count_items(c->short_of.buf);

		join_items_with(c->short_of.buf, n == 2 ? " nor " : " and ", &short_of);
		/* Said once: the items after the first that can be removed need it too. */
		sb_addf(advice, "%s as it is (%s%s", c->statement.buf,
			!c->removable ? "" : c->told_removal ? "needed too" :
			"removing it would let it happen", c->removable && n ? "; " : "");
		c->told_removal |= c->removable;
		if (n)
			sb_addf(advice, "%s%s %s replace it", n == 1 ? "" : n == 2 ? "neither " :
				"none of ", short_of.buf, n == 1 ? "cannot" : "can");
		sb_addf(advice, ")\n");
	}
	sb_free(&short_of);
	sb_free(&c->statement);
	for (i = 0; i < c->n; i++)
		sb_free(&c->what[i]);
	sb_free(&c->short_of);
	sb_free(&c->diff);
	c->n = 0;
	c->removable = false;
}

/* The test with edit e of f alone made, as a diff. */
static void edit_diff(const struct findings *f, const struct edit *e, struct strbuf *diff)
{
	struct lines edited;
	int i = (int)(e - f->all->items);

	if (apply(f->text, f->all, &i, 1, &edited))
		unified_diff(f->path, f->text, &edited, diff);
	free_lines(&edited);
}

/*
 * What a weaker form of an ordering does to a forbidden outcome; one
 * that is enough and worth writing goes to *cheaper (struct cheaper).
 */
static void tell_weakening(const struct findings *f, const struct edit *e, bool reachable,
			   struct strbuf *out, struct cheaper *cheapest)
{
	int w = weakening(e->from, e->to), to_price = fence_price(e->to),
	    from_price = fence_price(e->from);
	struct strbuf diff = { 0 };

	if (to_price > from_price && reachable) {
		sb_addf(out, ": the outcome becomes possible: %s() cannot stand in for %s()\n",
			e->to, e->from);
		return;
	}
	if (to_price > from_price) {
		sb_addf(out, ": still forbidden, but dearer (cost %d against %d): the same full "
			"barrier on arm64 and PowerPC, but %s() costs on x86 too, where %s() is "
			"free; so keep %s()\n", to_price, from_price, e->to, e->from, e->from);
		return;
	}
	if (reachable) {
		sb_addf(out, ": the outcome becomes possible, so %s() is not enough", e->to);
		if (w >= 0 && weaker[w].orders) {
			sb_addf(out, " (%s", weaker[w].orders);
			tell_pair_kinds(f, e, out);
			sb_addf(out, ")");
		}
		sb_addf(out, "\n");
	} else {
		sb_addf(out, ": still forbidden, so %s() is enough, and cheaper", e->to);
		if (to_price && from_price)
			sb_addf(out, ", cost %d against %d", to_price, from_price);
		edit_diff(f, e, &diff);
		offer_cheaper(cheapest, to_price, &diff, "%s()", e->to);
		sb_free(&diff);
		if (w >= 0 && weaker[w].pair_name)
			tell_safe(f, e, w, out);
		sb_addf(out, "\n");
	}
}

/* What a line's first call is given, "mylock" of "spin_unlock(mylock);", into arg; false if none. */
static bool call_argument(const char *code, char arg[48])
{
	const char *open = strchr(code, '('), *close = open ? closing_paren(open) : NULL;

	if (!close || close - open - 1 >= 48)
		return false;
	snprintf(arg, 48, "%.*s", (int)(close - open - 1), open + 1);
	return true;
}

/*
 * "P0 and P1 both taking mylock", "P1 line 29 loading through the
 * pointer line 28 returned": what links keeps, for "In short", in the code's
 * terms (readers found "the lock hand-off" and "the address dependency"
 * gave them nothing to do), one a line into out: the lock hand-offs
 * where locks, else the dependencies.
 */
static void tell_kept_kinds(const struct lines *orig, const struct link *links, int n,
			    bool locks, struct strbuf *out)
{
	static const struct { const char *kind, *what; } kept[] = {
		{ "lock", NULL },
		{ "addr", "loading through the pointer" },
		{ "data", "storing a value computed from what" },
		{ "ctrl", "under the branch on what" },
	};
	struct strbuf items = { 0 }, said = { 0 };
	char lock[48];
	size_t k;
	int i;

	for (k = 0; k < sizeof(kept) / sizeof(*kept); k++)
		for (i = 0; i < n; i++) {
			const struct event *a = links[i].a, *b = links[i].b;

			if (strcmp(links[i].kind, kept[k].kind) || !kept[k].what != locks)
				continue;
			if (kept[k].what) {
				sb_addf(&items, "P%d line %d %s line %d %s\n", b->proc, b->line,
					kept[k].what, a->line,
					!strcmp(kept[k].kind, "addr") ? "returned" : "read");
				continue;
			}
			/* A lock once, whichever way its hand-offs go. */
			if (!call_argument(code_at(orig, a->line), lock))
				snprintf(lock, sizeof(lock), "the lock");
			sb_addf(&said, "P%d and P%d both %s %s\n", a->proc < b->proc ? a->proc :
				b->proc, a->proc < b->proc ? b->proc : a->proc,
				strstr(code_at(orig, b->line), "is_locked") ? "using" : "taking", lock);
			if (!strstr(items.buf ? items.buf : "", said.buf))
				sb_addf(&items, "%s", said.buf);
			said.len = 0;
		}
	if (items.buf)
		sb_addf(out, "%s", items.buf);
	sb_free(&items);
	sb_free(&said);
}

/*
 * What "In short" keeps, items one a line: in words up to two, and from
 * three on a list (readers lost the third item among the parentheses).
 */
static void tell_keep(const char *items, struct strbuf *out)
{
	const char *p;

	if (count_items(items) < 3) {
		join_items(items, out);
		return;
	}
	sb_addf(out, ":");
	for (p = items; *p; p = strchr(p, '\n') + 1)
		sb_addf(out, "\n    - %.*s%s", (int)strcspn(p, "\n"), p,
			strchr(p, '\n')[1] ? ";" : "");
}

/*
 * "; keep the dependency: ...": what keeps a dependency of links, which
 * is the code around it, not a barrier.
 */
static void tell_dependency(const struct lines *orig, const struct link *links, int n,
			    struct strbuf *out)
{
	const struct link *addr = NULL;
	bool dependency = false, control = false;
	int i;

	for (i = 0; i < n; i++) {
		dependency |= strcmp(links[i].kind, "lock") != 0;
		control |= !strcmp(links[i].kind, "ctrl");
		if (!strcmp(links[i].kind, "addr") && !addr)
			addr = &links[i];
	}
	if (dependency && !control) {
		/* In the test's own names where its line says "r0 = ...": readers asked. */
		const char *code = addr ? code_at(orig, addr->a->line) : "";
		int len = (int)assigned_register(code);
		const char *reg = len ? code : "ptr";

		if (reg == code)
			sb_addf(out, "; keep the dependency: use the loaded value itself, not one "
				"the compiler can know is equal to it: after `if (%.*s == &obj)`, it "
				"may load through &obj rather than %.*s, and that load no longer waits "
				"for line %d", len, reg, len, reg, addr->a->line);
		else
			sb_addf(out, "; keep the dependency: use the loaded value itself, not one "
				"the compiler can know is equal to it: after `if (ptr == &obj)`, it "
				"may load through &obj rather than ptr, and that load no longer waits "
				"for the one that read ptr");
	}
	else if (dependency)
		sb_addf(out, "; keep the dependency: the branch must test the loaded value, and "
			"the compiler must not be able to tell which way it goes");
}

/*
 * A needed fence e of a forbidden outcome, replaced by an acquire of the
 * nearest load before it or a release of the nearest store after it
 * (from adds, the edits a reachable outcome would be offered): a
 * reader's usual alternatives to smp_rmb(), smp_wmb() or smp_mb(), told
 * whether it keeps the outcome forbidden, and offered when it does.
 */
static void ordered_access_instead(const struct checker *c, const char *path, const char *text,
				   const struct edit *e, const struct edits *adds,
				   const struct lines *orig, enum edit_kind kind,
				   struct strbuf *out, struct cheaper *cheapest)
{
	const char *name = kind == ADD_ACQUIRE ? "smp_load_acquire" : "smp_store_release";
	const struct edit *access = NULL;
	struct strbuf diff = { 0 };
	struct edit pair[2];
	struct edits both = { 2, pair };
	struct lines edited;
	int i, set[2] = { 0, 1 }, price;
	bool ok, reachable;

	for (i = 0; i < adds->n; i++) {
		const struct edit *a = &adds->items[i];

		if (a->kind != kind || a->proc != e->proc)
			continue;
		if (kind == ADD_ACQUIRE ? a->line < e->line && (!access || a->line > access->line) :
		    a->line > e->line && (!access || a->line < access->line))
			access = a;
	}
	price = fence_price(code_at(orig, e->line) + strspn(code_at(orig, e->line), " \t"));
	if (!access || price <= edit_kinds[kind].cost)
		return;
	pair[0] = *e;
	pair[1] = *access;
	reachable = reachable_with(c, path, text, &both, set, 2, &ok, &edited, NULL);
	if (ok && !reachable)
		unified_diff(path, text, &edited, &diff);
	free_lines(&edited);
	if (ok && !reachable) {
		sb_addf(out, "  P%d line %d `%s`: replaced by %s() at line %d `%s`: still "
			"forbidden, so that is enough, and cheaper (cost %d against %d)\n",
			e->proc, e->line, code_at(orig, e->line), name, access->line,
			code_at(orig, access->line), edit_kinds[kind].cost, price);
		offer_cheaper(cheapest, edit_kinds[kind].cost, &diff, "%s() at line %d", name,
			      access->line);
	} else if (ok) {
		/* Said too, as tried: readers asked whether the cheaper one would do. */
		sb_addf(out, "  P%d line %d `%s`: replaced by %s() at line %d `%s`: the outcome "
			"becomes possible, so that is not enough\n", e->proc, e->line,
			code_at(orig, e->line), name, access->line, code_at(orig, access->line));
		sb_addf(&cheapest->short_of, "%s() at line %d\n", name, access->line);
	}
	sb_free(&diff);
}

/* The lock statements (S_CALL of a macro that locks or unlocks) of s's body, by line. */
struct lock_lines {
	int n, proc[16], line[16];
	bool more;		/* more than fit: the lock is not tried */
};

static void find_lock_lines(const struct stmt *s, int proc, const struct macro_table *macros,
			    const struct lines *orig, const char *arg, struct lock_lines *out)
{
	int i;
	char its[48];

	if (!s)
		return;
	if ((statement_does(s, macros, S_LOCK) || statement_does(s, macros, S_UNLOCK)) &&
	    call_argument(code_at(orig, s->pos.line), its) && !strcmp(its, arg)) {
		if (out->n == (int)(sizeof(out->line) / sizeof(*out->line))) {
			out->more = true;
			return;
		}
		out->proc[out->n] = proc;
		out->line[out->n++] = s->pos.line;
	}
	for (i = 0; i < s->nbody; i++)
		find_lock_lines(s->body[i], proc, macros, orig, arg, out);
}

/*
 * The add of kind in proc nearest to line on the side dir (-1 before,
 * +1 after) that no lock statement of locks in proc comes between; NULL
 * if none.
 */
static const struct edit *within_section(const struct edits *adds, enum edit_kind kind, int proc,
					 int line, int dir, const struct lock_lines *locks)
{
	const struct edit *best = NULL;
	int i, j;

	for (i = 0; i < adds->n; i++) {
		const struct edit *a = &adds->items[i];
		bool apart = false;

		if (a->kind != kind || a->proc != proc || (a->line - line) * dir <= 0 ||
		    (best && (a->line - best->line) * dir >= 0))
			continue;
		for (j = 0; j < locks->n; j++)
			apart |= locks->proc[j] == proc && (locks->line[j] - line) * dir > 0 &&
				 (a->line - locks->line[j]) * dir > 0;
		if (!apart)
			best = a;
	}
	return best;
}

/*
 * A reader's question on a forbidden outcome that rests on a lock's
 * hand-off: does it need the lock, or would a release and an acquire
 * do?  The lock l hands on is taken out of the two CPUs (when no other
 * takes it), the last store of the unlocker's critical section made a
 * release and the first load of the locker's an acquire, and the test
 * checked again, into out (nothing when it cannot be tried).  When the
 * outcome becomes possible, the locker's last store made a release too
 * is tried (a chain of releases).
 */
static void locks_instead(const struct checker *c, const char *path, const char *text,
			  const struct litmus *t, const struct link *l, const struct edits *all,
			  const struct edits *adds, const struct lines *orig, struct strbuf *out)
{
	struct lock_lines locks = { 0 };
	const struct edit *release, *acquire, *after_lock = NULL, *mb = NULL, *relay;
	struct edit items[21];
	struct edits edits = { 0, items };
	int set[21], proc, i, unlock_line = 0;
	char arg[48];
	bool ok, reachable, relay_enough = false;
	struct lines edited;

	if (!call_argument(code_at(orig, l->a->line), arg))
		return;
	for (proc = 0; proc < t->nprocs; proc++)
		find_lock_lines(t->procs[proc].body, proc, c->macros, orig, arg, &locks);
	if (locks.more)
		return;
	for (i = 0; i < locks.n; i++)
		if (locks.proc[i] != l->a->proc && locks.proc[i] != l->b->proc)
			return;
	release = within_section(adds, ADD_RELEASE, l->a->proc, l->a->line, -1, &locks);
	acquire = within_section(adds, ADD_ACQUIRE, l->b->proc, l->b->line, 1, &locks);
	if (!release || !acquire)
		return;
	/*
	 * A full barrier made of the lock (smp_mb__after_spinlock()) has no
	 * lock left to follow: smp_mb() after the acquire does its part.
	 */
	for (i = 0; i < all->n; i++) {
		const struct edit *e = &all->items[i];

		if (e->kind == DROP_FENCE && e->proc == acquire->proc && e->line > l->b->line &&
		    e->line < acquire->line &&
		    !strncmp(code_at(orig, e->line) + strspn(code_at(orig, e->line), " \t"),
			     "smp_mb__after_", 14))
			after_lock = e;
	}
	if (after_lock) {
		mb = within_section(adds, ADD_MB, acquire->proc, acquire->line, 1, &locks);
		if (!mb)
			return;
		items[edits.n++] = *after_lock;
		items[edits.n++] = *mb;
	}
	for (i = 0; i < locks.n; i++)
		items[edits.n++] = (struct edit){ DROP_FENCE, locks.proc[i], locks.line[i], 0, -1,
						  "", "", 0 };
	items[edits.n++] = *release;
	/* smp_mb() after the load orders it already: an acquire there would be paid for twice. */
	if (!after_lock)
		items[edits.n++] = *acquire;
	for (i = 0; i < edits.n; i++)
		set[i] = i;
	reachable = reachable_with(c, path, text, &edits, set, edits.n, &ok, &edited, NULL);
	free_lines(&edited);
	if (!ok)
		return;
	/*
	 * What the hand-off carried on to a third CPU through the locker's
	 * later stores, a release of the last of them carries: does it?
	 */
	for (i = 0; i < locks.n && !after_lock; i++)
		if (locks.proc[i] == acquire->proc && locks.line[i] > acquire->line &&
		    (!unlock_line || locks.line[i] < unlock_line))
			unlock_line = locks.line[i];
	relay = reachable && unlock_line ?
		within_section(adds, ADD_RELEASE, acquire->proc, unlock_line, -1, &locks) : NULL;
	if (relay && relay->line > acquire->line) {
		items[edits.n] = *relay;
		set[edits.n] = edits.n;
		relay_enough = !reachable_with(c, path, text, &edits, set, edits.n + 1, &ok,
					       &edited, NULL) && ok;
		free_lines(&edited);
	}
	/* In short sentences: readers found the one long sentence this was noise. */
	sb_addf(out, "  Without the lock (%s removed from P%d and P%d", arg, l->a->proc, l->b->proc);
	if (after_lock)
		sb_addf(out, ", and line %d `%s` with it", after_lock->line,
			code_at(orig, after_lock->line));
	sb_addf(out, "): smp_store_release() at P%d line %d and ", release->proc, release->line);
	if (after_lock)
		sb_addf(out, "smp_mb() after P%d line %d", acquire->proc, acquire->line);
	else
		sb_addf(out, "smp_load_acquire() at P%d line %d", acquire->proc, acquire->line);
	if (reachable) {
		sb_addf(out, " are not enough: the outcome becomes possible (after an acquire, a "
			"store that is not a release carries nothing on to a third CPU; a lock's "
			"hand-off does: LOCKING in explanation.txt)");
		if (relay_enough)
			sb_addf(out, ".  With smp_store_release() at P%d line %d too: still forbidden "
				"(cost %d), as a release passes on the stores its CPU has seen",
				relay->proc, relay->line,
				2 * edit_kinds[ADD_RELEASE].cost + edit_kinds[ADD_ACQUIRE].cost);
		sb_addf(out, ".\n");
		return;
	}
	/* What the lock gives, not a nudge to drop it: readers asked for a verdict. */
	sb_addf(out, ": still forbidden (cost %d: smp_store_release() %d + %s %d): that is the "
		"ordering the lock", edit_kinds[ADD_RELEASE].cost +
		(mb ? edit_kinds[ADD_MB].cost : edit_kinds[ADD_ACQUIRE].cost),
		edit_kinds[ADD_RELEASE].cost, mb ? "smp_mb()" : "smp_load_acquire()",
		mb ? edit_kinds[ADD_MB].cost : edit_kinds[ADD_ACQUIRE].cost);
	if (after_lock)
		sb_addf(out, " and line %d `%s`", after_lock->line, code_at(orig, after_lock->line));
	sb_addf(out, " give%s here.  The lock costs more (an atomic RMW and a release on each "
		"CPU), but it also keeps the critical sections apart: keep it wherever they must "
		"be.\n", after_lock ? "" : "s");
}

/*
 * Whether another, cheaper form of edit i's fence keeps the outcome
 * forbidden: then that i's form does not is noise (readers: "smp_wmb()
 * is not enough" beside "smp_rmb() is enough").
 */
static bool weaker_one_enough(const struct edits *all, const bool *ok, const bool *reachable,
			      int i)
{
	const struct edit *e = &all->items[i];
	int j;

	for (j = 0; j < all->n; j++) {
		const struct edit *o = &all->items[j];

		if (j != i && o->kind == PARTLY_WEAKEN && o->proc == e->proc &&
		    o->line == e->line && ok[j] && !reachable[j] &&
		    fence_price(o->to) < fence_price(o->from))
			return true;
	}
	return false;
}

/*
 * Each ordering of a test whose outcome is forbidden, removed in turn;
 * first what the outcome relies on: the orderings it needs, and the
 * lock hand-offs and dependencies of the explanation's chains, which
 * no edit here varies.
 */
static void needed_orderings(const struct checker *c, const char *path, const char *text,
			     const struct litmus *t, const struct edits *all,
			     const struct edits *adds, const struct outcomes *o,
			     struct strbuf *in_short, struct strbuf *out, struct strbuf *verdict)
{
	struct strbuf tried = { 0 }, needed = { 0 }, kept = { 0 }, chains = { 0 }, advice = { 0 },
		      keep = { 0 }, swaps = { 0 }, diffs = { 0 };
	int cheaper = 0;
	struct cheaper cheapest = { 0 };
	bool needs_it = false;
	struct lines orig = split_lines(text);
	struct link links[MAX_LINKS];
	bool *reachable = xcalloc(all->n + 1, sizeof(*reachable)), *ok = xcalloc(all->n + 1,
										  sizeof(*ok));
	bool *need = xcalloc(all->n + 1, sizeof(*need));
	struct findings f = { o, all, need, &orig, path, text };
	int i, nlinks = 0, last_line = 0, last_proc = -1;

	for (i = 0; i < o->ncounterexamples; i++)
		nlinks = add_links(o->counterexamples[i], links, nlinks);
	for (i = 0; i < nlinks; i++) {
		int j;

		/* Each lock once, from its first hand-off. */
		for (j = 0; j < i && (strcmp(links[j].kind, "lock") ||
				      links[j].a->loc != links[i].a->loc); j++)
			;
		if (strcmp(links[i].kind, "lock") || j < i)
			continue;
		locks_instead(c, path, text, t, &links[i], all, adds, &orig, &swaps);
	}
	tell_links(&orig, links, nlinks, &kept);
	if (kept.buf) {
		join_items(kept.buf, &chains);
		tell_dependency(&orig, links, nlinks, &chains);
	}
	if (!all->n) {
		sb_addf(out, "  The outcome is forbidden.  The test has no acquire, release, ordered "
			"RMW or fence to weaken.%s%s%s\n%s", chains.buf ? "  It relies on " : "",
			chains.buf ? chains.buf : "", chains.buf ? "." : "", swaps.buf ? swaps.buf : "");
		goto out;
	}
	for (i = 0; i < all->n; i++) {
		struct lines edited;

		reachable[i] = reachable_with(c, path, text, all, &i, 1, &ok[i], &edited, NULL);
		need[i] = ok[i] && reachable[i] && all->items[i].kind != PARTLY_WEAKEN;
		free_lines(&edited);
	}
	for (i = 0; i < all->n; i++) {
		const struct edit *e = &all->items[i];
		const char *code = code_at(&orig, e->line), *args;

		if (e->line != last_line || e->proc != last_proc) {
			advise(&cheapest, &advice, &cheaper, &diffs);
			needs_it = false;
		}
		if (e->kind == PARTLY_WEAKEN && ok[i] && reachable[i] &&
		    weaker_one_enough(all, ok, reachable, i))
			goto told;
		sb_addf(&tried, "  P%d line %d `%s`: ", e->proc, e->line, code);
		edit_what(e, &tried);
		if (!ok[i])
			sb_addf(&tried, ": cannot tell (the edited test does not check)\n");
		else if (e->kind == PARTLY_WEAKEN)
			tell_weakening(&f, e, reachable[i], &tried, &cheapest);
		else if (!reachable[i] && !strcmp(e->from, "rcu_dereference"))
			/* "Keep" first: readers skimming took "still forbidden" for leave to drop it. */
			sb_addf(&tried, ": still forbidden, but keep rcu_dereference() for an "
				"RCU-protected pointer, under rcu_read_lock(): lockdep and sparse check "
				"it.  (READ_ONCE() orders a load through the pointer it returns too, so "
				"the model sees no difference.)  rcu_read_lock() orders nothing here: it "
				"keeps the object alive while "
				"the updater waits for a grace period (synchronize_rcu(), kfree_rcu()) "
				"before freeing it.\n");
		else if (reachable[i] && !strcmp(e->from, "rcu_assign_pointer"))
			/* What readers asked: may smp_store_release() stand in for it? */
			sb_addf(&tried, ": the outcome becomes possible, so this ordering is "
				"needed.  rcu_assign_pointer() is a release store (the kernel "
				"defines it with smp_store_release()): keep it for an RCU-protected "
				"pointer, as sparse checks it.\n");
		else if (reachable[i] && e->kind == DROP_FENCE && !strcmp(code, "smp_mb();") &&
			 e->line >= 2 && lone_write_once(&orig, e->line - 2, &args))
			/* The call the kernel writes for the two: readers looked for it. */
			sb_addf(&tried, ": the outcome becomes possible, so this ordering is "
				"needed; together with the store before it, it may also be written "
				"`smp_store_mb%s`\n", args);
		else
			sb_addf(&tried, ": %s\n", reachable[i] ?
				"the outcome becomes possible, so this ordering is needed" :
				"still forbidden, so this ordering is not needed for this outcome");
told:
		if (ok[i] && reachable[i]) {
			if (e->kind == DROP_FENCE)
				cheapest.removable = true;
			else
				sb_addf(&cheapest.short_of, "%s()\n", e->kind == DROP_ACQUIRE ?
					"READ_ONCE" : e->kind == DROP_RELEASE ? "WRITE_ONCE" : e->to);
		}
		if (e->kind == DROP_FENCE && need[i]) {
			ordered_access_instead(c, path, text, e, adds, &orig, ADD_ACQUIRE, &tried,
					       &cheapest);
			ordered_access_instead(c, path, text, e, adds, &orig, ADD_RELEASE, &tried,
					       &cheapest);
		}
		/* A statement is needed once, whatever edit of it showed it. */
		if (need[i] && !needs_it) {
			sb_addf(&needed, "P%d line %d `%s`\n", e->proc, e->line, code);
			sb_addf(&cheapest.statement, "P%d line %d `%s`", e->proc, e->line, code);
			needs_it = true;
		}
		last_line = e->line;
		last_proc = e->proc;
	}
	advise(&cheapest, &advice, &cheaper, &diffs);
	if (needed.buf) {
		sb_addf(out, "  The outcome is forbidden.  It needs ");
		join_items(needed.buf, out);
		sb_addf(out, " (weaken or remove %s and it can happen: below).",
			count_items(needed.buf) > 1 ? "any one of them" : "it");
	} else {
		sb_addf(out, "  The outcome is forbidden, and no ordering of the test is needed "
			"alone (each can go while the others stay).");
	}
	if (chains.buf)
		sb_addf(out, "  It %srelies on %s.", needed.buf ? "also " : "", chains.buf);
	sb_addf(out, "\n");
	sb_addf(out, "  Each ordering of the test, removed or weakened in turn, the rest of the "
		"test as it is (what holds for these accesses only: other code around an "
		"ordering may still need it):\n%s%s",
		tried.buf, swaps.buf ? swaps.buf : "");
	if (diffs.buf)
		sb_addf(out, "%s", diffs.buf);
	/* The costs quoted above, said where a reader who wants their basis looks. */
	if (strstr(tried.buf, "cost ") || (swaps.buf && strstr(swaps.buf, "cost ")))
		price_list(out->buf, out);
	if (advice.buf) {
		struct strbuf items = { 0 };

		/* The lock first: what a reader of a lock test came to learn. */
		tell_kept_kinds(&orig, links, nlinks, true, &items);
		sb_addf(&items, "%s", advice.buf);
		tell_kept_kinds(&orig, links, nlinks, false, &items);
		tell_keep(items.buf, &keep);
		sb_free(&items);
		sb_addf(in_short, "to keep it forbidden, keep%s%s", keep.buf[0] == ':' ? "" : " ",
			keep.buf);
	}
out:
	/* For scripts, as a reachable outcome's answer ends. */
	sb_addf(verdict, "Suggestion: forbidden, needs %d, cheaper %d\n",
		needed.buf ? count_items(needed.buf) : 0, cheaper);
	sb_free(&diffs);
	sb_free(&keep);
	sb_free(&tried);
	sb_free(&needed);
	sb_free(&kept);
	sb_free(&chains);
	sb_free(&advice);
	sb_free(&swaps);
	free(reachable);
	free(ok);
	free(need);
	free_lines(&orig);
}

/* Plain loads in e; a call's first argument is the address it accesses itself. */
static void find_plain_loads(int proc, const struct expr *e, struct edits *out)
{
	int i;

	if (!e)
		return;
	if (e->kind == X_LOAD) {
		/* "**p" is marked as a whole or not at all */
		if (!e->annot.n)
			add_edit(out, MARK_LOAD, proc, e->pos.line, e->pos.col, -1);
		return;
	}
	for (i = e->kind == X_CALL; i < e->nargs; i++)
		find_plain_loads(proc, e->args[i], out);
}

/* The plain accesses of a process: "*x = v;" and "*x" as a value. */
static void find_plain_accesses(int proc, const struct stmt *s, struct edits *out)
{
	int i;

	if (!s)
		return;
	if (s->kind == S_STORE && !s->annot.n)
		add_edit(out, MARK_STORE, proc, s->pos.line, s->pos.col, -1);
	for (i = s->kind == S_CALL; i < s->nargs; i++)
		find_plain_loads(proc, s->args[i], out);
	for (i = 0; i < s->nbody; i++)
		find_plain_accesses(proc, s->body[i], out);
}

/* Whether flag is raised once the edits of set are made; *ok false if untestable. */
static bool flag_raised_with(const struct checker *c, const char *path, const char *text,
			     const struct edits *all, const int *set, int n, const char *flag,
			     bool *ok)
{
	struct lines edited;
	char *variant;
	bool raised = false;

	*ok = apply(text, all, set, n, &edited);
	if (*ok) {
		variant = join_lines(&edited);
		raised = c->raises_flag(c, path, variant, flag, ok);
		free(variant);
	}
	free_lines(&edited);
	return raised;
}

/*
 * A flag that plain accesses raise (the kernel model's data-race): mark
 * them all, and if the flag goes, give back in turn each marking it does
 * not need.  What stays marked are the accesses that race; marking costs
 * nothing on any CPU, it only keeps the compiler from tearing, fusing or
 * inventing them.  Each step is a check, so the time budget holds.
 */
static void mark_racing(const struct checker *c, const char *path, const char *text,
			const struct litmus *t, const char *flag, struct strbuf *out)
{
	struct edits plain = { 0 };
	struct lines orig, edited;
	double start = monotonic_seconds();
	int *set, *without, n, i, j;
	bool ok;

	for (i = 0; i < t->nprocs; i++)
		find_plain_accesses(i, t->procs[i].body, &plain);
	set = xmalloc((plain.n + 1) * sizeof(*set));
	without = xmalloc((plain.n + 1) * sizeof(*without));
	for (n = 0; n < plain.n; n++)
		set[n] = n;
	if (!n || flag_raised_with(c, path, text, &plain, set, n, flag, &ok) || !ok) {
		sb_addf(out, "  The model flags %s, and marking the plain accesses (if any) with "
			"READ_ONCE() or WRITE_ONCE() does not remove it.\n", flag);
		goto out;
	}
	for (i = 0; i < n && !over_budget(c->opts, 0, start);) {
		for (j = 0; j < n - 1; j++)
			without[j] = set[j < i ? j : j + 1];
		if (!flag_raised_with(c, path, text, &plain, without, n - 1, flag, &ok) && ok)
			memcpy(set, without, --n * sizeof(*set));
		else
			i++;
	}
	sb_addf(out, "  The model flags %s: plain accesses race.  Marking these removes it "
		"(verified; it costs nothing on any CPU):\n", flag);
	orig = split_lines(text);
	for (i = 0; i < n; i++) {
		const struct edit *e = &plain.items[set[i]];

		sb_addf(out, "  P%d line %d `%s`: the plain %s made %s\n", e->proc, e->line,
			code_at(&orig, e->line), e->kind == MARK_LOAD ? "load" : "store",
			edit_kinds[e->kind].what);
	}
	free_lines(&orig);
	if (apply(text, &plain, set, n, &edited))
		unified_diff(path, text, &edited, out);
	free_lines(&edited);
out:
	free(set);
	free(without);
	free(plain.items);
}

void suggest(const struct checker *c, const char *path, const char *text,
	     const struct outcomes *o, struct strbuf *in_short, struct strbuf *out)
{
	struct litmus *t = litmus_parse(path, text);
	bool reachable = t->quantifier == Q_FORALL ? o->negative > 0 : o->positive > 0;
	struct edits all = find_edits(t, !reachable, c->macros);
	struct strbuf summary = { 0 }, verdict = { 0 };
	int i;

	sb_addf(out, "Suggestion:\n");
	for (i = 0; i < o->nflags; i++)
		mark_racing(c, path, text, t, o->flags[i], out);
	if (reachable) {
		if (sc_reachable(c, path, text, t, out)) {
			sb_addf(&summary, "no ordering can forbid it: the processes' own logic "
				"allows it, in the interleaving below");
			sb_addf(out, "Suggestion: sc-reachable\n");
		} else {
			sb_addf(out, "  The outcome is reachable.\n");
			likely_first(c, path, text, &all);
			suggest_fixes(c, path, text, t, &all, o->witness, &summary, out);
		}
	} else {
		struct edits adds = find_edits(t, false, c->macros);

		needed_orderings(c, path, text, t, &all, &adds, o, &summary, out, &verdict);
		free(adds.items);
	}
	/* Alone, a forbidden outcome's answer ends with it, then its line, as the other kinds end. */
	if (in_short)
		sb_add(in_short, summary.buf ? summary.buf : "", summary.len);
	else if (!reachable && summary.buf)
		sb_addf(out, "  In short: %s.\n", summary.buf);
	if (verdict.buf)
		sb_addf(out, "%s", verdict.buf);
	sb_free(&summary);
	sb_free(&verdict);
	free(all.items);
	litmus_free(t);
}
