/*
 * answer.c - the checker's words about a generated test, said about the
 * kernel's code: each "line N" of the test becomes the kernel line the
 * statement came from, with its source text, and each fix, a diff of the
 * test, becomes a diff of the kernel's files that `patch -p1` applies in
 * the tree.
 *
 * A fix edits a statement of the test (an access made an acquire, a
 * release, a marked access, an RMW renamed) or puts a fence before one.
 * translate.c recorded, for each access, where the kernel writes it: the
 * whole expression, the primitive's name, the lvalue and the value; the
 * kernel edit is rebuilt from those, so it keeps the kernel's spelling
 * (`sb->s_dio_done_wq` becomes `smp_load_acquire(&sb->s_dio_done_wq)`).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "code.h"

const char *code_line_where(const struct code_test *t, int line, char *buf, size_t size)
{
	const struct code_line *l;

	if (line < 1 || line > t->nlines)
		return NULL;
	l = &t->lines[line - 1];
	if (!l->where.file)
		return NULL;
	snprintf(buf, size, "%s:%u", l->where.file, l->where.line);
	return buf;
}

/* A file of the tree, as lines. */
struct kfile {
	const char *name;
	char *text;
	char **lines;
	int nlines;
};

static bool kfile_read(struct kfile *f, const char *tree, const char *name)
{
	char path[4096];
	char *p;

	memset(f, 0, sizeof(*f));
	f->name = name;
	snprintf(path, sizeof(path), "%s/%s", tree, name);
	f->text = read_file(path, NULL);
	if (!f->text)
		return false;
	for (p = f->text; *p;) {
		char *nl = strchr(p, '\n');

		f->lines = xrealloc(f->lines, (f->nlines + 1) * sizeof(*f->lines));
		f->lines[f->nlines++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	return true;
}

static void kfile_free(struct kfile *f)
{
	free(f->text);
	free(f->lines);
}

char *code_source_line(const char *tree, const struct code_span *s)
{
	struct kfile f;
	char *r = NULL;

	if (!s->file || !kfile_read(&f, tree, s->file))
		return NULL;
	if (s->line >= 1 && (int)s->line <= f.nlines) {
		const char *p = f.lines[s->line - 1];
		size_t n;

		while (*p == ' ' || *p == '\t')
			p++;
		n = strlen(p);
		while (n && isspace((unsigned char)p[n - 1]))
			n--;
		r = xstrndup(p, n);
	}
	kfile_free(&f);
	return r;
}

/*
 * "line N `text`" and "line N" in a line of the checker's text, in the
 * kernel's terms.  The checker quotes few statements (its listing of the
 * test's lines is in the test's terms), so a kernel line is quoted at
 * its first mention, quoted[] recording which were.
 */
static void map_line(const struct code_test *t, const char *tree, const char *s, bool *quoted,
		     struct strbuf *out)
{
	while (*s) {
		const char *hit = strstr(s, "line ");
		char *end;
		long n;
		const struct code_line *l;

		if (!hit || (hit > s && isalnum((unsigned char)hit[-1]))) {
			size_t skip = hit ? (size_t)(hit - s) + 5 : strlen(s);

			sb_add(out, s, skip);
			s += skip;
			continue;
		}
		n = strtol(hit + 5, &end, 10);
		if (end == hit + 5 || n < 1 || n > t->nlines || !t->lines[n - 1].where.file) {
			sb_add(out, s, hit + 5 - s);
			s = hit + 5;
			continue;
		}
		l = &t->lines[n - 1];
		sb_add(out, s, hit - s);
		sb_addf(out, "%s:%u", l->where.file, l->where.line);
		s = end;
		if (s[0] == ' ' && s[1] == '`') {
			const char *close = strchr(s + 2, '`');
			char *src = code_source_line(tree, &l->where);

			if (close && src) {
				sb_addf(out, " `%s`", src);
				s = close + 1;
				quoted[n - 1] = true;
			}
			free(src);
		} else if (!quoted[n - 1]) {
			char *src = code_source_line(tree, &l->where);

			if (src)
				sb_addf(out, " `%s`", src);
			quoted[n - 1] = true;
			free(src);
		}
	}
}

/* One kernel edit: a span of a line replaced, or a line put before one. */
struct kedit {
	const char *file;
	unsigned line;
	unsigned col, end_col;	/* replaced bytes; 0, 0: insert `text` as a line before */
	char *text;
};

struct kedits {
	struct kedit *items;
	int n;
	char *why_not;		/* set when a litmus edit has no kernel form */
};

static void add_kedit(struct kedits *e, const char *file, unsigned line, unsigned col,
		      unsigned end_col, char *text)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (e->items[i].file == file && e->items[i].line == line && e->items[i].col == col &&
		    !strcmp(e->items[i].text, text)) {
			free(text);	/* the same edit from another copy of the code */
			return;
		}
	e->items = xrealloc(e->items, (e->n + 1) * sizeof(*e->items));
	e->items[e->n++] = (struct kedit){ file, line, col, end_col, text };
}

static char *span_text(const char *tree, const struct code_span *s)
{
	struct kfile f;
	char *r = NULL;

	if (!s->file || !s->end_col || !kfile_read(&f, tree, s->file))
		return NULL;
	if (s->line >= 1 && (int)s->line <= f.nlines && s->end_col <= strlen(f.lines[s->line - 1]) + 1)
		r = xstrndup(f.lines[s->line - 1] + s->col - 1, s->end_col - s->col);
	kfile_free(&f);
	return r;
}

/* The primitive a line of the test calls: "smp_load_acquire" of "r = smp_load_acquire(x);". */
static char *called(const char *text)
{
	const char *p = text, *eq = strchr(text, '=');
	size_t n;

	if (eq && eq[1] != '=')
		p = eq + 1;
	while (isspace((unsigned char)*p))
		p++;
	n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
	if (!n || p[n] != '(')
		return NULL;
	return xstrndup(p, n);
}

/* Primitives whose first argument is the lvalue itself, not its address. */
static bool takes_lvalue(const char *name)
{
	return !strcmp(name, "READ_ONCE") || !strcmp(name, "WRITE_ONCE") ||
	       !strcmp(name, "rcu_dereference") || !strcmp(name, "rcu_assign_pointer");
}

/* The lvalue as written, from the access's recorded spans. */
static char *lvalue_text(const char *tree, const struct code_line *l)
{
	char *t = span_text(tree, &l->target);

	if (t)
		return t;
	if (l->target_is_pointer && l->name.file) {
		/* smp_load_acquire(P): its argument, after the name and '(' */
		struct code_span arg = l->expr;
		char *a, *r;
		size_t n;

		arg.col = l->name.end_col + 1;
		arg.end_col = l->expr.end_col - 1;
		a = span_text(tree, &arg);
		if (!a)
			return NULL;
		n = strlen(a);
		while (n && isspace((unsigned char)a[n - 1]))
			n--;
		a[n] = '\0';
		if (a[0] == '&') {
			r = xstrdup(a + 1);
		} else {
			r = xmalloc(n + 4);
			sprintf(r, "*(%s)", a);
		}
		free(a);
		return r;
	}
	return NULL;
}

static void no_kernel_form(struct kedits *e, const char *why)
{
	if (!e->why_not)
		e->why_not = xstrdup(why);
}

/* The kernel edit for test line n replaced by new_text. */
static void replace_edit(const struct code_test *t, const char *tree, int n, const char *new_text,
			 struct kedits *e)
{
	const struct code_line *l = &t->lines[n - 1];
	char *prim = called(new_text), *lv = NULL, *val = NULL;
	struct strbuf sb = { 0 };

	if (!prim || l->access == CA_NONE || !l->expr.file || !l->expr.end_col) {
		no_kernel_form(e, "an edit of a line the kernel does not write as one access");
		free(prim);
		return;
	}
	if (l->access == CA_RMW) {
		if (!l->name.file) {
			no_kernel_form(e, "an RMW that is not written as a primitive");
		} else {
			add_kedit(e, l->name.file, l->name.line, l->name.col, l->name.end_col, prim);
			prim = NULL;
		}
		free(prim);
		return;
	}
	lv = lvalue_text(tree, l);
	if (l->access == CA_STORE)
		val = span_text(tree, &l->value);
	if (!lv || (l->access == CA_STORE && !val)) {
		no_kernel_form(e, "an access that spans lines in the kernel");
	} else {
		const char *amp = takes_lvalue(prim) ? "" : "&";

		if (l->access == CA_LOAD)
			sb_addf(&sb, "%s(%s%s)", prim, amp, lv);
		else
			sb_addf(&sb, "%s(%s%s, %s)", prim, amp, lv, val);
		add_kedit(e, l->expr.file, l->expr.line, l->expr.col, l->expr.end_col, sb.buf);
	}
	free(prim);
	free(lv);
	free(val);
}

/* A fence the test puts before its line n: a line before the kernel's. */
static void insert_edit(const struct code_test *t, const char *tree, int n, const char *new_text,
			struct kedits *e)
{
	const struct code_line *l = n >= 1 && n <= t->nlines ? &t->lines[n - 1] : NULL;
	struct kfile f;
	const char *p = new_text;
	struct strbuf sb = { 0 };

	while (isspace((unsigned char)*p))
		p++;
	if (!l || !l->where.file || !kfile_read(&f, tree, l->where.file)) {
		no_kernel_form(e, "a fence before a line that is not the kernel's");
		return;
	}
	if (l->where.line >= 1 && (int)l->where.line <= f.nlines) {
		const char *k = f.lines[l->where.line - 1];

		sb_add(&sb, k, strspn(k, " \t"));
	}
	sb_adds(&sb, p);
	add_kedit(e, l->where.file, l->where.line, 0, 0, sb.buf);
	kfile_free(&f);
}

static int by_place(const void *a, const void *b)
{
	const struct kedit *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	/* insertions first, then replacements from the right */
	if (!x->end_col != !y->end_col)
		return !x->end_col ? -1 : 1;
	return x->col > y->col ? -1 : x->col < y->col;
}

/* The unified diff of one file's edits, indented by indent. */
static bool file_diff(const char *tree, struct kedit *edits, int n, const char *indent,
		      struct strbuf *out)
{
	struct kfile f;
	char **after;		/* the new text of each line, NULL: unchanged */
	char **before;		/* a line inserted before each line */
	int i, line, next;

	if (!kfile_read(&f, tree, edits[0].file))
		return false;
	after = xcalloc(f.nlines + 1, sizeof(*after));
	before = xcalloc(f.nlines + 1, sizeof(*before));
	for (i = 0; i < n; i++) {
		struct kedit *k = &edits[i];
		int at = (int)k->line - 1;

		if (at < 0 || at >= f.nlines)
			continue;
		if (!k->end_col) {
			before[at] = k->text;
			continue;
		}
		{
			const char *old = after[at] ? after[at] : f.lines[at];
			struct strbuf sb = { 0 };

			if (k->end_col - 1 > strlen(old))
				continue;
			sb_add(&sb, old, k->col - 1);
			sb_adds(&sb, k->text);
			sb_adds(&sb, old + k->end_col - 1);
			free(after[at]);
			after[at] = sb.buf;
		}
	}
	sb_addf(out, "%s--- a/%s\n%s+++ b/%s\n", indent, f.name, indent, f.name);
	for (line = 0; line < f.nlines; line = next) {
		int first, last, olds = 0, news = 0, j;

		if (!after[line] && !before[line]) {
			next = line + 1;
			continue;
		}
		/* a hunk: this change, the changes within 6 lines of it, 3 lines of context */
		first = line >= 3 ? line - 3 : 0;
		last = line;
		for (j = line; j < f.nlines && j <= last + 6; j++)
			if (after[j] || before[j])
				last = j;
		last = last + 3 < f.nlines ? last + 3 : f.nlines - 1;
		for (j = first; j <= last; j++) {
			olds++;
			news += 1 + (before[j] != NULL);
		}
		sb_addf(out, "%s@@ -%d,%d +%d,%d @@\n", indent, first + 1, olds, first + 1, news);
		for (j = first; j <= last; j++) {
			if (before[j])
				sb_addf(out, "%s+%s\n", indent, before[j]);
			if (after[j])
				sb_addf(out, "%s-%s\n%s+%s\n", indent, f.lines[j], indent, after[j]);
			else
				sb_addf(out, "%s %s\n", indent, f.lines[j]);
		}
		next = last + 1;
	}
	for (i = 0; i < f.nlines; i++)
		free(after[i]);
	free(after);
	free(before);
	kfile_free(&f);
	return true;
}

/*
 * A diff of the test (its lines from lines[0], n of them) as a diff of the
 * kernel: false, and the diff left as it is, when an edit has no kernel form.
 */
static bool kernel_diff(const struct code_test *t, const char *tree, char **lines, int n,
			struct strbuf *out)
{
	struct kedits e = { NULL, 0, NULL };
	const char *indent = "";
	size_t width = strspn(lines[0], " ");	/* the diff's indentation, before its markers */
	int i, old = 0, from, ok = true;

	for (i = 0; i < n; i++) {
		const char *l = lines[i];
		const char *p = strlen(l) >= width ? l + width : l + strlen(l);

		if (!strncmp(p, "--- ", 4) || !strncmp(p, "+++ ", 4)) {
			indent = NULL;
			continue;
		}
		if (!strncmp(p, "@@ -", 4)) {
			old = atoi(p + 4);
			continue;
		}
		if (*p == ' ') {
			old++;
		} else if (*p == '-') {
			/* a line replaced: the '+' after it */
			const char *next = i + 1 < n && strlen(lines[i + 1]) > width ? lines[i + 1] + width : "";

			if (*next == '+') {
				replace_edit(t, tree, old, next + 1, &e);
				i++;
			} else {
				no_kernel_form(&e, "a statement removed");
			}
			old++;
		} else if (*p == '+') {
			insert_edit(t, tree, old, p + 1, &e);
		}
	}
	(void)indent;
	if (e.why_not || !e.n) {
		ok = false;
		goto out;
	}
	qsort(e.items, e.n, sizeof(*e.items), by_place);
	{
		char pad[32];
		size_t w = strspn(lines[0], " ");

		snprintf(pad, sizeof(pad), "%.*s", (int)(w < sizeof(pad) ? w : sizeof(pad) - 1), lines[0]);
		for (from = 0; from < e.n; from = i) {
			for (i = from; i < e.n && !strcmp(e.items[i].file, e.items[from].file); i++)
				;
			if (!file_diff(tree, e.items + from, i - from, pad, out)) {
				ok = false;
				goto out;
			}
		}
	}
out:
	if (!ok && e.why_not) {
		size_t w = strspn(lines[0], " ");

		sb_addf(out, "%.*s(this fix has no kernel form: %s; as a change of the test:)\n",
			(int)w, lines[0], e.why_not);
	}
	for (i = 0; i < e.n; i++)
		free(e.items[i].text);
	free(e.items);
	free(e.why_not);
	return ok;
}

/* Whether l starts a diff (width 0) or goes on with one indented by width. */
static bool diff_line(const char *l, size_t width)
{
	const char *p = l + strspn(l, " ");

	if (!width)
		return !strncmp(p, "--- ", 4) && p > l;
	if (strlen(l) <= width || strspn(l, " ") < width)
		return false;
	p = l + width;
	return *p == ' ' || *p == '-' || *p == '+' || *p == '@';
}

void code_answer(const struct code_test *t, const char *tree, const char *text, struct strbuf *out)
{
	char *copy = xstrdup(text), *p = copy;
	char **lines = NULL;
	bool *quoted = xcalloc(t->nlines ? t->nlines : 1, sizeof(*quoted));
	int n = 0, i = 0;

	while (*p) {
		char *nl = strchr(p, '\n');

		lines = xrealloc(lines, (n + 1) * sizeof(*lines));
		lines[n++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	while (i < n) {
		if (diff_line(lines[i], 0)) {
			int j = i + 1;
			struct strbuf k = { 0 };

			while (j < n && diff_line(lines[j], strspn(lines[i], " ")))
				j++;
			if (kernel_diff(t, tree, lines + i, j - i, &k)) {
				sb_adds(out, k.buf);
			} else {
				int m;

				if (k.len)
					sb_adds(out, k.buf);
				for (m = i; m < j; m++) {
					sb_adds(out, lines[m]);
					sb_adds(out, "\n");
				}
			}
			sb_free(&k);
			i = j;
			continue;
		}
		map_line(t, tree, lines[i], quoted, out);
		sb_adds(out, "\n");
		i++;
	}
	free(quoted);
	free(lines);
	free(copy);
}
