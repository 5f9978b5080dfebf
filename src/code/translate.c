/*
 * translate.c - the named kernel functions, read through libclang, as a
 * litmus test.
 *
 * libclang's syntax tree holds the code after preprocessing, where
 * READ_ONCE() is a volatile access and cmpxchg() inline assembly; the
 * primitive as the developer wrote it survives only in the preprocessing
 * record.  So each macro expansion of a primitive is recorded first, and
 * the outermost node of the tree that the expansion produced stands for
 * it; its arguments are the nodes that start where the arguments as
 * written start.  Primitives that are functions (spin_lock(),
 * atomic_read(), mutex_lock()) are recognised at their call.
 *
 * Two walks over each task's functions.  The first visits every branch
 * and finds the locations (a field of a structure type, a global) that
 * two tasks touch and one writes: only those become locations of the
 * test.  The second runs the code as a litmus process: an access to such
 * a location is a statement of the test, a branch on a value loaded from
 * one is an `if` of the test, everything else is followed in the walk
 * itself (a local known to be 3 is 3), and a branch on what the test
 * does not model (a field only this task touches, an argument) follows
 * the side that reaches the shared locations, which the header says.
 * An early return, a goto or a break inside a branch of the test gives
 * each side its own copy of what follows.
 */
#include <clang-c/Index.h>
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "code.h"

/* A location: a field of a structure type, a global, or a fresh object's contents. */
struct loc {
	char *key;		/* "super_block.s_dio_done_wq", "sio_pool", "new tty_audit_buf" */
	char *name;		/* its litmus name */
	unsigned readers, writers;	/* processes, as bits (first walk) */
	bool lock;		/* taken as a lock */
	unsigned takers, read_takers;	/* processes taking it, its read side (first walk) */
	bool shared_read;	/* two tasks hold its read side: neither is modelled */
	bool pointer;		/* holds a pointer */
	int fresh_proc;		/* a fresh object: the process allocating it; else -1 */
	bool holds_fresh;	/* a fresh object's address is stored here (first walk) */
	int stored_in[8];	/* a fresh object: where its address is stored (first walk) */
	int nstored;
	bool modelled;		/* a location of the test */
};

enum vkind { V_UNKNOWN, V_LIT, V_OBJ, V_ADDR };

/* What an expression evaluates to, as far as the walk knows. */
struct val {
	enum vkind kind;
	const char *text;	/* V_LIT: a litmus expression */
	bool is_const;		/* V_LIT: and its value, c */
	long long c;
	int loc;		/* V_OBJ: a fresh object (-1: some object); V_ADDR: the location */
	int from;		/* V_LIT: a register loaded from location from, else -1 */
	bool pointer;
};

static const struct val unknown = { V_UNKNOWN, NULL, false, 0, -1, -1, false };

struct local {
	CXCursor decl;
	struct val v;
};

/* The locals of one function being walked, and the task's memory of what it does not model. */
struct env {
	struct local *locals;
	int nlocals;
	struct { int loc; struct val v; } *mem;
	int nmem;
};

/* A primitive as written: a macro expansion recorded before the walk. */
struct expansion {
	unsigned start, end;	/* file offsets of the written call */
	CXFile file;
	char *name;
	CXSourceRange range;
};

struct tu {
	char *file;		/* relative to the tree */
	CXFile named;		/* file, in unit (which may be the file including it) */
	CXTranslationUnit unit;
	struct expansion *exps;	/* sorted by start */
	int nexps;
};

/* A line of a process being written. */
struct pline {
	int depth;
	struct code_line meta;	/* text without indentation */
};

/* A dereference in a task of a pointer that may be a fresh object's. */
struct deref {
	int proc;
	char *ptr, *value;
	int fresh_from;		/* the location the pointer was loaded from */
};

enum prim_shape {
	PS_LOAD, PS_STORE, PS_RMW, PS_FENCE, PS_LOCK, PS_UNLOCK, PS_READ_LOCK, PS_READ_UNLOCK,
	PS_HELD, PS_HELD_WRITE, PS_HELD_READ, PS_PLAIN_CALL, PS_TRY_RMW, PS_ALLOC, PS_PASS,
	PS_UNSUPPORTED,
};

struct prim {
	enum prim_shape shape;
	const char *litmus;	/* the .def macro it becomes */
	bool lvalue_arg;	/* the first argument is an lvalue (READ_ONCE(x)), not a pointer */
};

/*
 * A lock a task's caller holds: the task asserts it (lockdep_assert_held())
 * or releases it before taking it.
 */
struct held {
	int proc, loc;
	bool read;		/* the read side of an rwsem or rwlock */
	bool releases;		/* the task releases it itself */
	CXCursor at;		/* the first assertion or release */
};

struct tr {
	const struct code_request *req;
	struct strbuf *err;
	jmp_buf fail;
	CXIndex index;
	struct tu *tus;
	int ntus;
	struct tu *tu;		/* of the process being walked */
	int pass;		/* 1: find the shared locations; 2: write the test */
	int proc;
	struct loc *locs;
	int nlocs;
	/* pass 2, the process being written */
	struct pline *lines;
	int nlines;
	int depth;
	struct { char *name; bool pointer; } *regs;
	int nregs;
	int inline_depth;
	bool deref_returns;	/* walking the last function of a task */
	struct {		/* the last "x || y" with x loaded and y not modelled */
		CXCursor at;
		bool and;
		struct val known;
	} half;
	struct deref *derefs;
	int nderefs;
	struct held *held;
	int nheld;
	struct strbuf notes, assumed, held_notes;
	struct strbuf test_name, made_from;	/* "+f+g+", "P0 fs/super.c:f(), ..." */
	struct code_test written[16];	/* each process, kept until the header is written */
	char **strings;		/* freed at the end */
	int nstrings;
	struct arena walk_arena;	/* walk_mem */
};

static const char *keep(struct tr *t, char *s)
{
	t->strings = xrealloc(t->strings, (t->nstrings + 1) * sizeof(*t->strings));
	t->strings[t->nstrings++] = s;
	return s;
}

static const char *keepf(struct tr *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *keepf(struct tr *t, const char *fmt, ...)
{
	struct strbuf sb = { 0 };
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	return keep(t, sb.buf ? sb.buf : xstrdup(""));
}

/*
 * The walk's own arrays (kids, frames, locals, return values) live in an
 * arena of the translation, freed at its end: an error longjmp()s out of
 * any depth of the walk, and nothing it held is then lost.
 */
static _Thread_local struct arena *walk_mem;

/* Room for item `count` of an array grown only by this function. */
static void *walk_grow(void *array, int count, size_t size)
{
	return arena_extend(walk_mem, array, (size_t)count, size);
}

/* A copy of count items, that walk_grow() can grow. */
static void *walk_copy_array(const void *array, int count, size_t size)
{
	size_t cap = 1;
	void *p;

	if (!count)
		return NULL;
	while (cap < (size_t)count)
		cap *= 2;
	p = arena_alloc(walk_mem, cap * size);
	memcpy(p, array, count * size);
	return p;
}

/* A copy of s that lives as long as the translation. */
static const char *spelling(struct tr *t, CXString s)
{
	const char *c = clang_getCString(s);
	const char *k = keep(t, xstrdup(c ? c : ""));

	clang_disposeString(s);
	return k;
}

static const char *tree_relative(struct tr *t, const char *path)
{
	size_t n = strlen(t->req->tree);

	if (!strncmp(path, t->req->tree, n) && path[n] == '/')
		return path + n + 1;
	return path;
}

/* Where a source location is written: the macro argument's place, or the macro's call. */
static struct code_span span_at(struct tr *t, CXSourceLocation l)
{
	CXFile f;
	unsigned line, col, off;
	struct code_span s = { 0 };

	clang_getFileLocation(l, &f, &line, &col, &off);
	if (!f)
		return s;
	s.file = tree_relative(t, spelling(t, clang_getFileName(f)));
	s.line = line;
	s.col = col;
	s.end_col = col;
	return s;
}

static struct code_span span_of(struct tr *t, CXSourceRange r)
{
	struct code_span a = span_at(t, clang_getRangeStart(r));
	struct code_span b = span_at(t, clang_getRangeEnd(r));

	if (a.file && b.file && a.line == b.line && b.col > a.col)
		a.end_col = b.col;
	return a;
}

static struct code_span cursor_span(struct tr *t, CXCursor c)
{
	return span_of(t, clang_getCursorExtent(c));
}

static _Noreturn void fail_at(struct tr *t, CXCursor c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static _Noreturn void fail_at(struct tr *t, CXCursor c, const char *fmt, ...)
{
	struct code_span s = cursor_span(t, c);
	va_list ap;

	sb_addf(t->err, "%s:%u:%u: error: ", s.file ? s.file : "?", s.line, s.col);
	va_start(ap, fmt);
	sb_vaddf(t->err, fmt, ap);
	va_end(ap);
	sb_adds(t->err, "\n");
	longjmp(t->fail, 1);
}

static void note(struct tr *t, CXCursor c, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(struct tr *t, CXCursor c, const char *fmt, ...)
{
	struct code_span s = cursor_span(t, c);
	struct strbuf line = { 0 };
	va_list ap;

	if (t->pass != 2)
		return;
	sb_addf(&line, " * %s:%u ", s.file ? s.file : "?", s.line);
	va_start(ap, fmt);
	sb_vaddf(&line, fmt, ap);
	va_end(ap);
	sb_adds(&line, "\n");
	if (!t->notes.buf || !strstr(t->notes.buf, line.buf))
		sb_adds(&t->notes, line.buf);
	sb_free(&line);
}

/* ---- primitives ---- */

/* What overlay() below makes of a primitive's macro: a call of __lkmm_prim_NAME(). */
#define PRIM_PREFIX "__lkmm_prim_"

/* Names as the kernel writes them, where they differ from the .def's or are not in it. */
static const struct {
	const char *kernel;
	struct prim prim;
} kernel_prims[] = {
	{ "READ_ONCE", { PS_LOAD, "READ_ONCE", true } },
	{ "rcu_dereference", { PS_LOAD, "rcu_dereference", true } },
	{ "rcu_dereference_check", { PS_LOAD, "rcu_dereference", true } },
	{ "rcu_dereference_raw", { PS_LOAD, "rcu_dereference", true } },
	{ "rcu_dereference_bh", { PS_LOAD, "rcu_dereference", true } },
	{ "rcu_dereference_sched", { PS_LOAD, "rcu_dereference", true } },
	{ "srcu_dereference", { PS_LOAD, "rcu_dereference", true } },
	{ "rcu_dereference_protected", { PS_LOAD, "READ_ONCE", true } },
	{ "rcu_access_pointer", { PS_LOAD, "READ_ONCE", true } },
	{ "smp_load_acquire", { PS_LOAD, "smp_load_acquire", false } },
	{ "WRITE_ONCE", { PS_STORE, "WRITE_ONCE", true } },
	{ "rcu_assign_pointer", { PS_STORE, "rcu_assign_pointer", true } },
	{ "RCU_INIT_POINTER", { PS_STORE, "WRITE_ONCE", true } },
	{ "smp_store_release", { PS_STORE, "smp_store_release", false } },
	{ "smp_store_mb", { PS_STORE, "smp_store_mb", true } },
	{ "mb", { PS_FENCE, "smp_mb", false } },
	{ "rmb", { PS_FENCE, "smp_rmb", false } },
	{ "wmb", { PS_FENCE, "smp_wmb", false } },
	/*
	 * Locks.  Lockdep (CONFIG_DEBUG_LOCK_ALLOC) turns mutex_lock() into
	 * mutex_lock_nested() and raw_spin_lock_nested() into its own
	 * function: both spellings are here.  The read side of an rwsem or
	 * rwlock excludes writers only (PS_READ_LOCK).
	 */
	{ "spin_lock", { PS_LOCK, "spin_lock", false } },
	{ "spin_lock_irq", { PS_LOCK, "spin_lock", false } },
	{ "spin_lock_irqsave", { PS_LOCK, "spin_lock", false } },
	{ "spin_lock_bh", { PS_LOCK, "spin_lock", false } },
	{ "raw_spin_lock", { PS_LOCK, "spin_lock", false } },
	{ "raw_spin_lock_irq", { PS_LOCK, "spin_lock", false } },
	{ "raw_spin_lock_irqsave", { PS_LOCK, "spin_lock", false } },
	{ "_raw_spin_lock", { PS_LOCK, "spin_lock", false } },
	{ "_raw_spin_lock_irq", { PS_LOCK, "spin_lock", false } },
	{ "_raw_spin_lock_irqsave", { PS_LOCK, "spin_lock", false } },
	{ "_raw_spin_lock_bh", { PS_LOCK, "spin_lock", false } },
	{ "_raw_spin_lock_nested", { PS_LOCK, "spin_lock", false } },
	{ "_raw_spin_lock_irqsave_nested", { PS_LOCK, "spin_lock", false } },
	{ "_raw_spin_lock_nest_lock", { PS_LOCK, "spin_lock", false } },
	{ "_raw_write_lock", { PS_LOCK, "spin_lock", false } },
	{ "_raw_write_lock_irq", { PS_LOCK, "spin_lock", false } },
	{ "_raw_write_lock_irqsave", { PS_LOCK, "spin_lock", false } },
	{ "_raw_write_lock_bh", { PS_LOCK, "spin_lock", false } },
	{ "_raw_write_lock_nested", { PS_LOCK, "spin_lock", false } },
	{ "mutex_lock", { PS_LOCK, "spin_lock", false } },
	{ "mutex_lock_interruptible", { PS_LOCK, "spin_lock", false } },
	{ "mutex_lock_killable", { PS_LOCK, "spin_lock", false } },
	{ "mutex_lock_io", { PS_LOCK, "spin_lock", false } },
	{ "mutex_lock_nested", { PS_LOCK, "spin_lock", false } },
	{ "mutex_lock_interruptible_nested", { PS_LOCK, "spin_lock", false } },
	{ "mutex_lock_killable_nested", { PS_LOCK, "spin_lock", false } },
	{ "mutex_lock_io_nested", { PS_LOCK, "spin_lock", false } },
	{ "_mutex_lock_nest_lock", { PS_LOCK, "spin_lock", false } },
	{ "down_write", { PS_LOCK, "spin_lock", false } },
	{ "down_write_killable", { PS_LOCK, "spin_lock", false } },
	{ "down_write_nested", { PS_LOCK, "spin_lock", false } },
	{ "down_write_killable_nested", { PS_LOCK, "spin_lock", false } },
	{ "_down_write_nest_lock", { PS_LOCK, "spin_lock", false } },
	{ "down_read", { PS_READ_LOCK, "spin_lock", false } },
	{ "down_read_interruptible", { PS_READ_LOCK, "spin_lock", false } },
	{ "down_read_killable", { PS_READ_LOCK, "spin_lock", false } },
	{ "down_read_nested", { PS_READ_LOCK, "spin_lock", false } },
	{ "down_read_killable_nested", { PS_READ_LOCK, "spin_lock", false } },
	{ "_raw_read_lock", { PS_READ_LOCK, "spin_lock", false } },
	{ "_raw_read_lock_irq", { PS_READ_LOCK, "spin_lock", false } },
	{ "_raw_read_lock_irqsave", { PS_READ_LOCK, "spin_lock", false } },
	{ "_raw_read_lock_bh", { PS_READ_LOCK, "spin_lock", false } },
	{ "spin_unlock", { PS_UNLOCK, "spin_unlock", false } },
	{ "spin_unlock_irq", { PS_UNLOCK, "spin_unlock", false } },
	{ "spin_unlock_irqrestore", { PS_UNLOCK, "spin_unlock", false } },
	{ "spin_unlock_bh", { PS_UNLOCK, "spin_unlock", false } },
	{ "raw_spin_unlock", { PS_UNLOCK, "spin_unlock", false } },
	{ "raw_spin_unlock_irq", { PS_UNLOCK, "spin_unlock", false } },
	{ "raw_spin_unlock_irqrestore", { PS_UNLOCK, "spin_unlock", false } },
	{ "_raw_spin_unlock", { PS_UNLOCK, "spin_unlock", false } },
	{ "_raw_spin_unlock_irq", { PS_UNLOCK, "spin_unlock", false } },
	{ "_raw_spin_unlock_irqrestore", { PS_UNLOCK, "spin_unlock", false } },
	{ "_raw_spin_unlock_bh", { PS_UNLOCK, "spin_unlock", false } },
	{ "_raw_write_unlock", { PS_UNLOCK, "spin_unlock", false } },
	{ "_raw_write_unlock_irq", { PS_UNLOCK, "spin_unlock", false } },
	{ "_raw_write_unlock_irqrestore", { PS_UNLOCK, "spin_unlock", false } },
	{ "_raw_write_unlock_bh", { PS_UNLOCK, "spin_unlock", false } },
	{ "mutex_unlock", { PS_UNLOCK, "spin_unlock", false } },
	{ "up_write", { PS_UNLOCK, "spin_unlock", false } },
	{ "up_read", { PS_READ_UNLOCK, "spin_unlock", false } },
	{ "_raw_read_unlock", { PS_READ_UNLOCK, "spin_unlock", false } },
	{ "_raw_read_unlock_irq", { PS_READ_UNLOCK, "spin_unlock", false } },
	{ "_raw_read_unlock_irqrestore", { PS_READ_UNLOCK, "spin_unlock", false } },
	{ "_raw_read_unlock_bh", { PS_READ_UNLOCK, "spin_unlock", false } },
	/* a lock the caller holds (lockdep_assert_held() is in overlay()'s list) */
	{ "lockdep_assert_held", { PS_HELD, "spin_lock", false } },
	{ "lockdep_assert_held_once", { PS_HELD, "spin_lock", false } },
	{ "lockdep_assert_held_write", { PS_HELD_WRITE, "spin_lock", false } },
	{ "lockdep_assert_held_read", { PS_HELD_READ, "spin_lock", false } },
	{ "assert_spin_locked", { PS_HELD_WRITE, "spin_lock", false } },
	{ "rwsem_assert_held", { PS_HELD, "spin_lock", false } },
	{ "rwsem_assert_held_nolockdep", { PS_HELD, "spin_lock", false } },
	{ "rwsem_assert_held_write", { PS_HELD_WRITE, "spin_lock", false } },
	{ "rwsem_assert_held_write_nolockdep", { PS_HELD_WRITE, "spin_lock", false } },
	{ "likely", { PS_PASS, NULL, false } },
	{ "unlikely", { PS_PASS, NULL, false } },
	{ "__builtin_expect", { PS_PASS, NULL, false } },
	/* try_cmpxchg(p, &old, new): the .def's cmpxchg(), then old = what it read */
	{ "try_cmpxchg", { PS_TRY_RMW, "cmpxchg", false } },
	{ "try_cmpxchg_acquire", { PS_TRY_RMW, "cmpxchg_acquire", false } },
	{ "try_cmpxchg_release", { PS_TRY_RMW, "cmpxchg_release", false } },
	{ "try_cmpxchg_relaxed", { PS_TRY_RMW, "cmpxchg_relaxed", false } },
	{ "atomic_try_cmpxchg", { PS_TRY_RMW, "atomic_cmpxchg", false } },
	{ "atomic_try_cmpxchg_acquire", { PS_TRY_RMW, "atomic_cmpxchg_acquire", false } },
	{ "atomic_try_cmpxchg_release", { PS_TRY_RMW, "atomic_cmpxchg_release", false } },
	{ "atomic_try_cmpxchg_relaxed", { PS_TRY_RMW, "atomic_cmpxchg_relaxed", false } },
};

/* Allocators: a call returns a fresh object (6.12's allocation profiling adds _noprof). */
static const char *const allocators[] = {
	"kmalloc", "kzalloc", "kcalloc", "kmalloc_array", "kvmalloc", "kvzalloc", "kvcalloc",
	"kmalloc_node", "kzalloc_node", "kmem_cache_alloc", "kmem_cache_zalloc", "vmalloc",
	"vzalloc", "alloc_workqueue", "alloc_ordered_workqueue", "alloc_percpu", "kstrdup",
	"kmemdup", "mempool_create", "mempool_create_node", "mempool_create_kmalloc_pool",
	"mempool_create_slab_pool", "mempool_create_page_pool", "kmem_cache_create",
};

static bool is_allocator(const char *name)
{
	size_t i, n = strlen(name);

	if (n > 7 && !strcmp(name + n - 7, "_noprof"))
		n -= 7;
	for (i = 0; i < sizeof(allocators) / sizeof(*allocators); i++)
		if (strlen(allocators[i]) == n && !strncmp(name, allocators[i], n))
			return true;
	return false;
}

/* The primitive named name, or NULL: the table above, then the model's own macros. */
static bool find_prim(const struct tr *t, const char *name, struct prim *out)
{
	size_t i;

	for (i = 0; i < sizeof(kernel_prims) / sizeof(*kernel_prims); i++)
		if (!strcmp(kernel_prims[i].kernel, name)) {
			*out = kernel_prims[i].prim;
			return true;
		}
	if (is_allocator(name)) {
		*out = (struct prim){ PS_ALLOC, NULL, false };
		return true;
	}
	if (!lkmm_model_primitive(t->req->model, name))
		return false;
	if (!strncmp(name, "smp_mb", 6) || !strcmp(name, "smp_rmb") || !strcmp(name, "smp_wmb") ||
	    !strcmp(name, "barrier"))
		*out = (struct prim){ PS_FENCE, name, false };
	else if (!strncmp(name, "rcu_read_", 9) || !strncmp(name, "synchronize_", 12) ||
		 !strncmp(name, "srcu_", 5))
		*out = (struct prim){ PS_PLAIN_CALL, name, false };
	else if (!strcmp(name, "atomic_read") || !strcmp(name, "atomic_read_acquire"))
		*out = (struct prim){ PS_LOAD, name, false };
	else if (!strcmp(name, "atomic_set") || !strcmp(name, "atomic_set_release"))
		*out = (struct prim){ PS_STORE, name, false };
	else if (!strcmp(name, "spin_trylock") || !strcmp(name, "spin_is_locked"))
		*out = (struct prim){ PS_PLAIN_CALL, name, false };
	else
		*out = (struct prim){ PS_RMW, name, false };
	return true;
}

/* ---- the preprocessing record ---- */

struct collect {
	struct tr *t;
	struct tu *tu;
};

static enum CXChildVisitResult collect_expansion(CXCursor c, CXCursor parent, CXClientData data)
{
	struct collect *col = data;
	struct expansion e;
	struct prim p;
	const char *name;
	CXSourceRange r;
	unsigned line, column;

	(void)parent;
	if (clang_getCursorKind(c) != CXCursor_MacroExpansion)
		return CXChildVisit_Continue;
	name = spelling(col->t, clang_getCursorSpelling(c));
	if (strcmp(name, "current") && !find_prim(col->t, name, &p))
		return CXChildVisit_Continue;
	r = clang_getCursorExtent(c);
	clang_getExpansionLocation(clang_getRangeStart(r), &e.file, &line, &column, &e.start);
	clang_getExpansionLocation(clang_getRangeEnd(r), NULL, &line, &column, &e.end);
	if (!e.file)
		return CXChildVisit_Continue;
	e.name = (char *)name;
	e.range = r;
	col->tu->exps = xrealloc(col->tu->exps, (col->tu->nexps + 1) * sizeof(e));
	col->tu->exps[col->tu->nexps++] = e;
	return CXChildVisit_Continue;
}

static int by_start(const void *a, const void *b)
{
	const struct expansion *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The written primitive whose expansion node c is (c's whole range inside it), or NULL. */
static const struct expansion *expansion_of(struct tr *t, CXCursor c)
{
	CXSourceRange r = clang_getCursorExtent(c);
	CXSourceLocation start = clang_getRangeStart(r);
	CXFile f, g;
	unsigned a, b, line, col;
	int lo = 0, hi = t->tu->nexps - 1;

	if (clang_Location_isFromMainFile(start) == 0 && clang_Location_isInSystemHeader(start))
		return NULL;
	/* libclang gives a node the macro produced the whole call's range */
	clang_getExpansionLocation(start, &f, &line, &col, &a);
	clang_getExpansionLocation(clang_getRangeEnd(r), &g, &line, &col, &b);
	if (!f)
		return NULL;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		const struct expansion *e = &t->tu->exps[mid];

		if (e->start < a) {
			lo = mid + 1;
		} else if (e->start > a) {
			hi = mid - 1;
		} else {
			/* several files share offsets: look around for the same file */
			int i = mid;

			while (i > 0 && t->tu->exps[i - 1].start == a)
				i--;
			for (; i < t->tu->nexps && t->tu->exps[i].start == a; i++)
				if (t->tu->exps[i].end == b && clang_File_isEqual(t->tu->exps[i].file, f))
					return &t->tu->exps[i];
			return NULL;
		}
	}
	return NULL;
}

/* The written arguments of expansion e, as file offset ranges. */
static int expansion_args(struct tr *t, const struct expansion *e, unsigned (*args)[2], int max)
{
	CXToken *toks;
	unsigned n, i;
	int depth = 0, nargs = 0;
	bool any = false;

	clang_tokenize(t->tu->unit, e->range, &toks, &n);
	/* name ( arg , arg ) */
	for (i = 2; i < n; i++) {
		CXString s = clang_getTokenSpelling(t->tu->unit, toks[i]);
		const char *p = clang_getCString(s);
		unsigned off;
		bool open = !strcmp(p, "(") || !strcmp(p, "[") || !strcmp(p, "{");
		bool close = !strcmp(p, ")") || !strcmp(p, "]") || !strcmp(p, "}");

		clang_getExpansionLocation(clang_getTokenLocation(t->tu->unit, toks[i]), NULL, NULL,
					   NULL, &off);
		if (close && depth == 0) {
			clang_disposeString(s);
			break;
		}
		if (!strcmp(p, ",") && depth == 0) {
			nargs++;
			any = false;
		} else if (nargs < max) {
			if (!any)
				args[nargs][0] = off;
			args[nargs][1] = off + (unsigned)strlen(p);
			any = true;
		}
		depth += open - close;
		clang_disposeString(s);
	}
	clang_disposeTokens(t->tu->unit, toks, n);
	if (any || nargs)
		nargs++;
	return nargs < max ? nargs : max;
}

struct find_arg {
	unsigned start;
	CXFile file;
	CXCursor found;
	bool ok;
};

static enum CXChildVisitResult find_arg_node(CXCursor c, CXCursor parent, CXClientData data)
{
	struct find_arg *fa = data;
	CXFile f;
	unsigned line, col, off;

	(void)parent;
	if (!clang_isExpression(clang_getCursorKind(c)))
		return CXChildVisit_Recurse;
	clang_getFileLocation(clang_getRangeStart(clang_getCursorExtent(c)), &f, &line, &col, &off);
	if (f && off == fa->start && clang_File_isEqual(f, fa->file)) {
		fa->found = c;
		fa->ok = true;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Recurse;
}

/* The node of expansion node c for argument range arg. */
static bool arg_node(struct tr *t, CXCursor c, const struct expansion *e, const unsigned arg[2],
		     CXCursor *out)
{
	struct find_arg fa = { arg[0], e->file, clang_getNullCursor(), false };

	(void)t;
	clang_visitChildren(c, find_arg_node, &fa);
	*out = fa.found;
	return fa.ok;
}

/* ---- small helpers over the tree ---- */

struct kids {
	CXCursor *items;
	int n;
};

static enum CXChildVisitResult add_kid(CXCursor c, CXCursor parent, CXClientData data)
{
	struct kids *k = data;

	(void)parent;
	k->items = walk_grow(k->items, k->n, sizeof(*k->items));
	k->items[k->n++] = c;
	return CXChildVisit_Continue;
}

static struct kids kids_of(CXCursor c)
{
	struct kids k = { NULL, 0 };

	clang_visitChildren(c, add_kid, &k);
	return k;
}

/* The kids that are statements or expressions (not type or attribute references). */
static struct kids code_kids(CXCursor c)
{
	struct kids all = kids_of(c), k = { NULL, 0 };
	int i;

	for (i = 0; i < all.n; i++) {
		enum CXCursorKind kind = clang_getCursorKind(all.items[i]);

		if (clang_isExpression(kind) || clang_isStatement(kind) || kind == CXCursor_DeclStmt)
			add_kid(all.items[i], c, &k);
	}
	return k;
}

static CXCursor only_kid(struct tr *t, CXCursor c)
{
	struct kids k = code_kids(c);
	CXCursor r;

	if (k.n < 1) {
		fail_at(t, c, "expression with no operand (%s)",
			spelling(t, clang_getCursorKindSpelling(clang_getCursorKind(c))));
	}
	r = k.items[k.n - 1];
	return r;
}

/* The text of the tokens of a file range. */
static const char *token_text(struct tr *t, CXSourceRange r, int which)
{
	CXToken *toks;
	unsigned n;
	const char *s = "";

	clang_tokenize(t->tu->unit, r, &toks, &n);
	if (n && which < (int)n)
		s = spelling(t, clang_getTokenSpelling(t->tu->unit, toks[which < 0 ? (int)n + which : which]));
	clang_disposeTokens(t->tu->unit, toks, n);
	return s;
}

/*
 * The operator of a node written in a macro's body, where no token of the
 * file is its own: & and * from the types (&x: a pointer to x's type; *p:
 * p's pointee).  Others are left unknown.
 */
static const char *operator_by_type(CXCursor c, struct kids k)
{
	CXType ty = clang_getCanonicalType(clang_getCursorType(c));
	CXType in;

	if (k.n != 1)
		return "";
	in = clang_getCanonicalType(clang_getCursorType(k.items[0]));
	if (ty.kind == CXType_Pointer &&
	    clang_equalTypes(clang_getCanonicalType(clang_getPointeeType(ty)), in))
		return "&";
	if (in.kind == CXType_Pointer &&
	    clang_equalTypes(clang_getCanonicalType(clang_getPointeeType(in)), ty))
		return "*";
	return "";
}

/* The operator of a unary or binary operator node: the first token between its operands. */
static const char *operator_of(struct tr *t, CXCursor c)
{
	struct kids k = code_kids(c);
	CXSourceRange whole = clang_getCursorExtent(c);
	CXSourceLocation from, to;
	CXFile f;
	unsigned line, col, a, b, wa, wb;
	const char *op = "";

	clang_getFileLocation(clang_getRangeStart(whole), &f, &line, &col, &wa);
	clang_getFileLocation(clang_getRangeEnd(whole), NULL, &line, &col, &wb);
	if (k.n == 2) {
		clang_getFileLocation(clang_getRangeEnd(clang_getCursorExtent(k.items[0])), NULL, &line, &col, &a);
		clang_getFileLocation(clang_getRangeStart(clang_getCursorExtent(k.items[1])), NULL, &line, &col, &b);
	} else if (k.n == 1) {
		clang_getFileLocation(clang_getRangeStart(clang_getCursorExtent(k.items[0])), NULL, &line, &col, &a);
		if (a > wa) {	/* prefix */
			b = a;
			a = wa;
		} else {	/* postfix */
			clang_getFileLocation(clang_getRangeEnd(clang_getCursorExtent(k.items[0])), NULL, &line, &col, &a);
			b = wb;
		}
	} else {
		return "";
	}
	if (!f || b <= a) {
		op = operator_by_type(c, k);
		return op;
	}
	from = clang_getLocationForOffset(t->tu->unit, f, a);
	to = clang_getLocationForOffset(t->tu->unit, f, b);
	op = token_text(t, clang_getRange(from, to), 0);
	if (!strcmp(op, ")") || !strcmp(op, "]"))	/* the first operand's closing */
		op = token_text(t, clang_getRange(from, to), 1);
	return op;
}

static const char *cursor_name(struct tr *t, CXCursor c)
{
	return spelling(t, clang_getCursorSpelling(c));
}

/* The struct type a type points to, named, or NULL. */
static const char *pointee_struct(struct tr *t, CXType ty)
{
	CXType c = clang_getCanonicalType(ty);
	CXType p;

	if (c.kind != CXType_Pointer)
		return NULL;
	p = clang_getCanonicalType(clang_getPointeeType(c));
	if (p.kind != CXType_Record)
		return NULL;
	return spelling(t, clang_getCursorSpelling(clang_getTypeDeclaration(p)));
}

/* The structure a field is of: a member of an anonymous struct or union is its enclosing one's. */
static const char *field_type(struct tr *t, CXCursor field)
{
	CXCursor record = clang_getCursorSemanticParent(field);
	const char *type = cursor_name(t, record);

	while (!*type) {
		CXCursor outer = clang_getCursorSemanticParent(record);
		enum CXCursorKind k = clang_getCursorKind(outer);

		if (k != CXCursor_StructDecl && k != CXCursor_UnionDecl)
			return "anonymous";
		record = outer;
		type = cursor_name(t, record);
	}
	return type;
}

static bool is_pointer_type(CXType ty)
{
	return clang_getCanonicalType(ty).kind == CXType_Pointer;
}

/* ---- locations ---- */

static bool distinct_type(struct tr *t, const char *type)
{
	int i;

	for (i = 0; i < t->req->ndistinct; i++)
		if (!strcmp(t->req->distinct[i], type))
			return true;
	return false;
}

static int loc_find(struct tr *t, const char *key)
{
	int i;

	for (i = 0; i < t->nlocs; i++)
		if (!strcmp(t->locs[i].key, key))
			return i;
	return -1;
}

static int loc_get(struct tr *t, const char *key, bool pointer)
{
	int i = loc_find(t, key);
	struct loc *l;
	char *p;

	if (i >= 0)
		return i;
	t->locs = xrealloc(t->locs, (t->nlocs + 1) * sizeof(*t->locs));
	l = &t->locs[t->nlocs];
	memset(l, 0, sizeof(*l));
	l->key = xstrdup(key);
	l->name = xmalloc(strlen(key) * 2 + 2);
	for (p = l->name; *key; key++) {
		if (*key == '.' || *key == '[') {
			*p++ = '_';
			*p++ = '_';
		} else if (*key == ' ') {
			*p++ = '_';
		} else if (*key != ']') {
			*p++ = *key;
		}
	}
	*p = '\0';
	l->pointer = pointer;
	l->fresh_proc = -1;
	return t->nlocs++;
}

/* The location of field `field` of the object of struct type `type`. */
static int field_loc(struct tr *t, const char *type, const char *field, bool pointer)
{
	const char *key = distinct_type(t, type) ? keepf(t, "%s%d.%s", type, t->proc, field)
						 : keepf(t, "%s.%s", type, field);

	return loc_get(t, key, pointer);
}

/* A lock by its spinlock_t: spin_lock() and the _raw_ functions under it name the same one. */
static int lock_loc(struct tr *t, int loc)
{
	static const char *const inner[] = { ".rlock", ".raw_lock", ".wait_lock" };
	const char *key = t->locs[loc].key;
	size_t i, n = strlen(key);

	for (i = 0; i < sizeof(inner) / sizeof(*inner); i++) {
		size_t m = strlen(inner[i]);

		if (n > m && !strcmp(key + n - m, inner[i]))
			return lock_loc(t, loc_get(t, keepf(t, "%.*s", (int)(n - m), key), false));
	}
	return loc;
}

static void touch(struct tr *t, int loc, bool read, bool write)
{
	if (t->pass != 1 || loc < 0)
		return;
	if (read)
		t->locs[loc].readers |= 1u << t->proc;
	if (write)
		t->locs[loc].writers |= 1u << t->proc;
}

/* The first walk saw fresh object v's address stored in location loc. */
static void stored_fresh(struct tr *t, int loc, struct val v)
{
	struct loc *f;
	int i;

	if (t->pass != 1 || v.kind != V_OBJ || v.loc < 0)
		return;
	t->locs[loc].holds_fresh = true;
	f = &t->locs[v.loc];
	for (i = 0; i < f->nstored; i++)
		if (f->stored_in[i] == loc)
			return;
	if (f->nstored < 8)
		f->stored_in[f->nstored++] = loc;
}

/* After the first walk: a read side a caller holds is one more reader. */
static void choose_held(struct tr *t)
{
	int i;

	for (i = 0; i < t->nheld; i++)
		if (t->held[i].read)
			t->locs[t->held[i].loc].read_takers |= 1u << t->held[i].proc;
}

/* After the first walk: the locations of the test. */
static void choose_locations(struct tr *t)
{
	int i, j;

	choose_held(t);

	for (i = 0; i < t->nlocs; i++) {
		struct loc *l = &t->locs[i];
		unsigned all = l->readers | l->writers;

		l->modelled = l->fresh_proc < 0 && l->writers && (all & (all - 1));
		if (l->lock)
			l->modelled = l->fresh_proc < 0 && (all & (all - 1));
		/* the model's locks are exclusive: two readers would exclude each other */
		l->shared_read = l->read_takers & (l->read_takers - 1);
	}
	/* a fresh object is modelled when its address goes where another task can find it */
	for (i = 0; i < t->nlocs; i++)
		for (j = 0; j < t->locs[i].nstored; j++)
			if (t->locs[t->locs[i].stored_in[j]].modelled &&
			    t->locs[t->locs[i].stored_in[j]].fresh_proc < 0)	/* not inside another */
				t->locs[i].modelled = true;
}

/* ---- the walk's state ---- */

static struct val lit(struct tr *t, const char *text)
{
	struct val v = unknown;

	v.kind = V_LIT;
	v.text = text;
	(void)t;
	return v;
}

static struct val constant(struct tr *t, long long c)
{
	struct val v = lit(t, keepf(t, "%lld", c));

	v.is_const = true;
	v.c = c;
	return v;
}

static struct env env_copy(const struct env *e)
{
	struct env c = { NULL, e->nlocals, NULL, e->nmem };

	c.locals = walk_copy_array(e->locals, e->nlocals, sizeof(*c.locals));
	c.mem = walk_copy_array(e->mem, e->nmem, sizeof(*c.mem));
	return c;
}

static void env_free(struct env *e)
{
	memset(e, 0, sizeof(*e));	/* its arrays are the walk's (walk_mem) */
}

static bool same_val(const struct val *a, const struct val *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case V_UNKNOWN:
		return true;
	case V_LIT:
		return !strcmp(a->text, b->text);
	default:
		return a->loc == b->loc;
	}
}

/* What holds after either of two branches: what both agree on. */
static void env_merge(struct env *into, const struct env *other)
{
	int i, j;

	for (i = 0; i < into->nlocals; i++) {
		for (j = 0; j < other->nlocals; j++)
			if (clang_equalCursors(into->locals[i].decl, other->locals[j].decl))
				break;
		if (j == other->nlocals || !same_val(&into->locals[i].v, &other->locals[j].v))
			into->locals[i].v = unknown;
	}
	for (i = 0; i < into->nmem; i++) {
		for (j = 0; j < other->nmem; j++)
			if (into->mem[i].loc == other->mem[j].loc)
				break;
		if (j == other->nmem || !same_val(&into->mem[i].v, &other->mem[j].v))
			into->mem[i].v = unknown;
	}
}

static struct val *local_slot(struct env *e, CXCursor decl)
{
	int i;

	for (i = 0; i < e->nlocals; i++)
		if (clang_equalCursors(e->locals[i].decl, decl))
			return &e->locals[i].v;
	e->locals = walk_grow(e->locals, e->nlocals, sizeof(*e->locals));
	e->locals[e->nlocals].decl = decl;
	e->locals[e->nlocals].v = unknown;
	return &e->locals[e->nlocals++].v;
}

static struct val *mem_slot(struct env *e, int loc)
{
	int i;

	for (i = 0; i < e->nmem; i++)
		if (e->mem[i].loc == loc)
			return &e->mem[i].v;
	e->mem = walk_grow(e->mem, e->nmem, sizeof(*e->mem));
	e->mem[e->nmem].loc = loc;
	e->mem[e->nmem].v = unknown;
	return &e->mem[e->nmem++].v;
}

/* ---- writing the process ---- */

static struct code_line *emit(struct tr *t, CXCursor from, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static struct code_line *emit(struct tr *t, CXCursor from, const char *fmt, ...)
{
	struct strbuf sb = { 0 };
	struct pline *l;
	va_list ap;

	if (t->pass != 2)
		return NULL;
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	t->lines = xrealloc(t->lines, (t->nlines + 1) * sizeof(*t->lines));
	l = &t->lines[t->nlines++];
	memset(l, 0, sizeof(*l));
	l->depth = t->depth;
	l->meta.proc = t->proc;
	l->meta.text = sb.buf;
	if (!clang_Cursor_isNull(from))
		l->meta.where = cursor_span(t, from);
	return &l->meta;
}

static const char *new_reg(struct tr *t, const char *hint, bool pointer)
{
	char buf[64];
	int i, n = 0;

	for (;;) {
		bool taken = false;

		if (hint && *hint && n == 0)
			snprintf(buf, sizeof(buf), "%s", hint);
		else if (hint && *hint)
			snprintf(buf, sizeof(buf), "%s_%d", hint, n);
		else
			snprintf(buf, sizeof(buf), "r%d", n);
		n++;
		for (i = 0; i < t->nregs && !taken; i++)
			taken = !strcmp(t->regs[i].name, buf);
		for (i = 0; i < t->nlocs && !taken; i++)
			taken = !strcmp(t->locs[i].name, buf);
		if (!taken)
			break;
	}
	t->regs = xrealloc(t->regs, (t->nregs + 1) * sizeof(*t->regs));
	t->regs[t->nregs].name = xstrdup(buf);
	t->regs[t->nregs].pointer = pointer;
	return t->regs[t->nregs++].name;
}

/* ---- expressions ---- */

enum lkind { L_NONE, L_LOCAL, L_LOC, L_DEREF };

struct lval {
	enum lkind kind;
	CXCursor decl;		/* L_LOCAL */
	int loc;		/* L_LOC */
	const char *reg;	/* L_DEREF: the register holding the address */
	int from;		/* L_DEREF: where that register was loaded from */
	bool marked;		/* a volatile access: READ_ONCE() expanded inside another macro */
	bool pointer;
	CXCursor expr;
	int field;		/* a fresh object's field (type.field), for its owner's memory; else -1 */
};

struct walk;
static struct val eval(struct tr *t, struct env *e, CXCursor c, const char *hint);
static void run_function(struct tr *t, CXCursor fn, struct val *args, int nargs, struct val *result,
			 struct env *caller);

static bool modelled(struct tr *t, int loc)
{
	return t->pass == 2 && loc >= 0 && t->locs[loc].modelled;
}

static struct lval lvalue(struct tr *t, struct env *e, CXCursor c);

/* The object a pointer value points to, as an lvalue base. */
static struct lval deref_of(struct tr *t, CXCursor c, struct val p, CXType pointee_of)
{
	struct lval l = { L_NONE, clang_getNullCursor(), -1, NULL, -1, false, false, c, -1 };

	(void)pointee_of;
	if (p.kind == V_ADDR) {
		l.kind = L_LOC;
		l.loc = p.loc;
	} else if (p.kind == V_OBJ && p.loc >= 0) {
		l.kind = L_LOC;
		l.loc = p.loc;
	} else if (p.kind == V_LIT && !p.is_const && p.from >= 0) {
		l.kind = L_DEREF;
		l.reg = p.text;
		l.from = p.from;
	}
	(void)t;
	return l;
}

static struct lval lvalue(struct tr *t, struct env *e, CXCursor c)
{
	struct lval l = { L_NONE, clang_getNullCursor(), -1, NULL, -1, false, false, c, -1 };
	enum CXCursorKind k = clang_getCursorKind(c);
	CXType ty = clang_getCursorType(c);

	l.pointer = is_pointer_type(ty);
	l.marked = clang_isVolatileQualifiedType(ty);
	if (k == CXCursor_ParenExpr || k == CXCursor_UnexposedExpr) {
		struct lval in = lvalue(t, e, only_kid(t, c));

		in.marked |= l.marked;
		return in;
	}
	if (k == CXCursor_DeclRefExpr) {
		CXCursor d = clang_getCursorReferenced(c);
		enum CXCursorKind dk = clang_getCursorKind(d);

		if (dk == CXCursor_ParmDecl ||
		    (dk == CXCursor_VarDecl && clang_getCursorKind(clang_getCursorSemanticParent(d)) ==
		     CXCursor_FunctionDecl && clang_Cursor_getStorageClass(d) != CX_SC_Static)) {
			l.kind = L_LOCAL;
			l.decl = d;
		} else if (dk == CXCursor_VarDecl) {
			l.kind = L_LOC;
			l.loc = loc_get(t, cursor_name(t, d), l.pointer);
		}
		return l;
	}
	if (k == CXCursor_MemberRefExpr) {
		CXCursor field = clang_getCursorReferenced(c);
		struct kids kids = code_kids(c);
		const char *type = field_type(t, field);
		const char *fname = cursor_name(t, field);
		struct lval base = l;
		bool arrow = false;

		if (kids.n == 1) {
			CXType bt = clang_getCanonicalType(clang_getCursorType(kids.items[0]));

			arrow = bt.kind == CXType_Pointer;
			if (arrow) {
				struct val p = eval(t, e, kids.items[0], NULL);

				base = deref_of(t, c, p, bt);
				if (p.kind == V_ADDR)
					arrow = false;	/* a field within a known location */
			} else {
				base = lvalue(t, e, kids.items[0]);
			}
		}
		if (base.kind == L_DEREF || (base.kind == L_LOC && t->locs[base.loc].fresh_proc >= 0)) {
			/* a field of a fresh object: its contents, one location */
			base.marked |= l.marked;
			base.pointer = l.pointer;
			base.expr = c;
			if (base.kind == L_LOC)
				base.field = loc_get(t, keepf(t, "%s.%s", t->locs[base.loc].key, fname),
						     l.pointer);
			return base;
		}
		if (base.kind == L_LOC && !arrow) {
			/* a field of an embedded structure, within another location */
			l.kind = L_LOC;
			l.loc = loc_get(t, keepf(t, "%s.%s", t->locs[base.loc].key, fname), l.pointer);
			return l;
		}
		l.kind = L_LOC;
		l.loc = field_loc(t, type, fname, l.pointer);
		return l;
	}
	if (k == CXCursor_UnaryOperator && !strcmp(operator_of(t, c), "*")) {
		CXCursor p = only_kid(t, c);
		struct val v = eval(t, e, p, NULL);
		struct lval d = deref_of(t, c, v, clang_getCursorType(p));

		if (d.kind == L_NONE && pointee_struct(t, clang_getCursorType(p)) == NULL &&
		    v.kind == V_UNKNOWN)
			return l;
		d.marked |= l.marked;
		d.pointer = l.pointer;
		d.expr = c;
		return d;
	}
	if (k == CXCursor_ArraySubscriptExpr) {
		struct kids kids = code_kids(c);
		struct lval base = kids.n ? lvalue(t, e, kids.items[0]) : l;

		if (kids.n == 2)
			eval(t, e, kids.items[1], NULL);
		if (base.kind == L_LOC) {
			l.kind = L_LOC;
			l.loc = loc_get(t, keepf(t, "%s[]", t->locs[base.loc].key), l.pointer);
		}
		return l;
	}
	return l;
}

/* A load of lvalue l as the test writes it, into a new register. */
static struct val load(struct tr *t, struct env *e, struct lval l, const char *prim, bool prim_ptr,
		       const char *hint, CXCursor at)
{
	struct val v = unknown;
	struct code_line *line;
	const char *reg, *arg;

	if (l.kind == L_LOCAL)
		return *local_slot(e, l.decl);
	if (l.kind == L_LOC)
		touch(t, l.loc, true, false);
	if (l.kind == L_NONE || t->pass == 1)
		return unknown;	/* the first walk takes every side of every branch */
	if (l.kind == L_LOC && t->locs[l.loc].fresh_proc == t->proc) {
		/* its own object, no other task's to write: what it wrote there, if anything */
		return l.field >= 0 ? *mem_slot(e, l.field) : unknown;
	}
	if (l.kind == L_LOC && !modelled(t, l.loc)) {
		if (t->pass == 2) {
			struct val *m = mem_slot(e, l.loc);

			if (m->kind != V_UNKNOWN)
				return *m;
		}
		if (pointee_struct(t, clang_getCursorType(l.expr)) || l.pointer) {
			v.kind = V_OBJ;
			v.loc = -1;
			v.pointer = true;
		}
		return v;
	}
	if (t->pass == 1)
		return unknown;
	reg = new_reg(t, hint, l.pointer);
	arg = l.kind == L_DEREF ? l.reg : t->locs[l.loc].name;
	if (!prim)
		prim = l.marked ? "READ_ONCE" : NULL;
	if (!prim)
		line = emit(t, at, "%s = *%s;", reg, arg);
	else if (prim_ptr)
		line = emit(t, at, "%s = %s(%s);", reg, prim, arg);
	else
		line = emit(t, at, "%s = %s(*%s);", reg, prim, arg);
	line->access = CA_LOAD;
	v = lit(t, reg);
	v.pointer = l.pointer;
	v.from = l.kind == L_LOC && t->locs[l.loc].holds_fresh ? l.loc : -1;
	return v;
}

/*
 * The litmus text of a value being stored: unknown values store 1, and
 * so does the address of a location the test does not have (a list
 * link of another object, say): not 0, and nothing to read through.
 */
static const char *stored_text(struct tr *t, struct val v)
{
	if (v.kind == V_LIT)
		return v.text;
	if ((v.kind == V_ADDR || (v.kind == V_OBJ && v.loc >= 0)) && t->locs[v.loc].modelled)
		return t->locs[v.loc].name;
	return "1";
}

static void store(struct tr *t, struct env *e, struct lval l, struct val v, const char *prim,
		  bool prim_ptr, CXCursor at)
{
	struct code_line *line;
	const char *arg;

	if (l.kind == L_LOCAL) {
		*local_slot(e, l.decl) = v;
		return;
	}
	if (l.kind == L_NONE)
		return;
	if (l.kind == L_LOC) {
		touch(t, l.loc, false, true);
		stored_fresh(t, l.loc, v);
		if (!modelled(t, l.loc)) {
			if (t->pass == 2)
				*mem_slot(e, l.loc) = v;
			return;
		}
	}
	if (t->pass == 1)
		return;
	if (l.kind == L_LOC && l.field >= 0)
		*mem_slot(e, l.field) = v;
	arg = l.kind == L_DEREF ? l.reg : t->locs[l.loc].name;
	if (l.kind == L_LOC && t->locs[l.loc].fresh_proc >= 0)
		v = constant(t, 1);	/* a fresh object's contents: 1 once initialized */
	if (!prim)
		prim = l.marked ? "WRITE_ONCE" : NULL;
	if (!prim)
		line = emit(t, at, "*%s = %s;", arg, stored_text(t, v));
	else if (prim_ptr)
		line = emit(t, at, "%s(%s, %s);", prim, arg, stored_text(t, v));
	else
		line = emit(t, at, "%s(*%s, %s);", prim, arg, stored_text(t, v));
	line->access = CA_STORE;
}

static bool truth(const struct val *v, bool *known)
{
	*known = false;
	if (v->kind == V_LIT && v->is_const) {
		*known = true;
		return v->c != 0;
	}
	if (v->kind == V_OBJ || v->kind == V_ADDR) {
		*known = true;
		return true;
	}
	return false;
}

static struct val combine(struct tr *t, const char *op, struct val a, struct val b)
{
	static const char *const ops[] = { "+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "==",
					   "!=", "<", "<=", ">", ">=", "&&", "||" };
	struct val r = unknown;
	size_t i;

	/* an object or address compared with NULL */
	if ((a.kind == V_OBJ || a.kind == V_ADDR) && b.kind == V_LIT && b.is_const && b.c == 0) {
		if (!strcmp(op, "=="))
			return constant(t, 0);
		if (!strcmp(op, "!="))
			return constant(t, 1);
	}
	if ((b.kind == V_OBJ || b.kind == V_ADDR) && a.kind == V_LIT && a.is_const && a.c == 0)
		return combine(t, op, b, a);
	if (!strcmp(op, "&&") || !strcmp(op, "||")) {
		bool ka, kb, ta = truth(&a, &ka), tb = truth(&b, &kb);
		bool and = op[0] == '&';

		if (ka && ta != and)
			return constant(t, ta);
		if (kb && tb != and)
			return constant(t, tb);
		if (ka && kb)
			return constant(t, and);
		if (ka)
			return b.kind == V_LIT ? lit(t, keepf(t, "(%s != 0)", b.text)) : unknown;
		if (kb)
			return a.kind == V_LIT ? lit(t, keepf(t, "(%s != 0)", a.text)) : unknown;
	}
	if (a.kind != V_LIT || b.kind != V_LIT)
		return r;
	for (i = 0; i < sizeof(ops) / sizeof(*ops); i++)
		if (!strcmp(ops[i], op))
			break;
	if (i == sizeof(ops) / sizeof(*ops))
		return r;
	if (a.is_const && b.is_const) {
		long long x = a.c, y = b.c, z = 0;

		switch (i) {
		case 0: z = x + y; break;
		case 1: z = x - y; break;
		case 2: z = x * y; break;
		case 3: if (!y) return r; z = x / y; break;
		case 4: if (!y) return r; z = x % y; break;
		case 5: z = x & y; break;
		case 6: z = x | y; break;
		case 7: z = x ^ y; break;
		case 8: z = y >= 0 && y < 63 ? x << y : 0; break;
		case 9: z = y >= 0 && y < 63 ? x >> y : 0; break;
		case 10: z = x == y; break;
		case 11: z = x != y; break;
		case 12: z = x < y; break;
		case 13: z = x <= y; break;
		case 14: z = x > y; break;
		case 15: z = x >= y; break;
		case 16: z = x && y; break;
		case 17: z = x || y; break;
		}
		return constant(t, z);
	}
	return lit(t, keepf(t, "(%s %s %s)", a.text, op, b.text));
}

static long long eval_constant(CXCursor c, bool *ok)
{
	CXEvalResult r = clang_Cursor_Evaluate(c);
	long long v = 0;

	*ok = false;
	if (!r)
		return 0;
	if (clang_EvalResult_getKind(r) == CXEval_Int) {
		v = clang_EvalResult_getAsLongLong(r);
		*ok = true;
	}
	clang_EvalResult_dispose(r);
	return v;
}

static struct val call_primitive(struct tr *t, struct env *e, CXCursor c, const char *name,
				 const struct prim *p, CXCursor *args, int nargs, bool by_address,
				 const struct expansion *written, const char *hint);

/* The written primitive c is, by its expansion: its arguments as nodes. */
static struct val eval_expansion(struct tr *t, struct env *e, CXCursor c, const struct expansion *x,
				 const char *hint)
{
	unsigned ranges[8][2];
	CXCursor args[8];
	int n, i;
	struct prim p;

	if (!strcmp(x->name, "current")) {
		struct val v = unknown;

		v.kind = V_OBJ;
		v.pointer = true;
		return v;
	}
	find_prim(t, x->name, &p);
	n = expansion_args(t, x, ranges, 8);
	for (i = 0; i < n; i++)
		if (!arg_node(t, c, x, ranges[i], &args[i])) {
			if (p.shape == PS_FENCE || p.shape == PS_PLAIN_CALL || p.shape == PS_ALLOC) {
				n = i;
				break;
			}
			fail_at(t, c, "cannot find argument %d of %s() in the expanded code", i + 1, x->name);
		}
	return call_primitive(t, e, c, x->name, &p, args, n, false, x, hint);
}

/*
 * Allocators and `current` are taken from the preprocessing record; the
 * other primitives reach the tree as calls (overlay() below).
 */
static bool expansion_is_value(struct tr *t, const struct expansion *x)
{
	struct prim p;

	return !strcmp(x->name, "current") ||
	       (find_prim(t, x->name, &p) &&
		(p.shape == PS_ALLOC || p.shape == PS_UNSUPPORTED || p.shape == PS_TRY_RMW));
}

/* The span of a kernel expression as written, for diffs. */
static void set_access_spans(struct tr *t, struct code_line *line, CXCursor whole, CXCursor target,
			     CXCursor value, bool has_value, const struct expansion *written, bool ptr)
{
	if (!line)
		return;
	if (written) {
		line->expr = span_of(t, written->range);
		line->name = line->expr;
		line->name.end_col = line->name.col + (unsigned)strlen(written->name);
	} else {
		line->expr = cursor_span(t, whole);
	}
	if (!clang_Cursor_isNull(target))
		line->target = cursor_span(t, target);
	if (has_value)
		line->value = cursor_span(t, value);
	line->target_is_pointer = ptr;
}

/* x of &(x), the lvalue an overlay call passes by address, or a null cursor. */
static CXCursor address_operand(struct tr *t, CXCursor c)
{
	enum CXCursorKind k = clang_getCursorKind(c);

	while (k == CXCursor_UnexposedExpr || k == CXCursor_ParenExpr || k == CXCursor_CStyleCastExpr) {
		c = only_kid(t, c);
		k = clang_getCursorKind(c);
	}
	if (k != CXCursor_UnaryOperator || strcmp(operator_of(t, c), "&"))
		return clang_getNullCursor();
	c = only_kid(t, c);
	while (clang_getCursorKind(c) == CXCursor_ParenExpr)
		c = only_kid(t, c);
	return c;
}

/*
 * What a load or store primitive c accesses through its first argument
 * arg: the lvalue itself (lv: READ_ONCE(x) as written), else what the
 * address points to; *written the lvalue as the kernel writes it, for
 * diffs (x of an overlay's &(x)).
 */
static struct lval accessed(struct tr *t, struct env *e, CXCursor c, CXCursor arg, bool lv,
			    bool lvalue_arg, CXCursor *written)
{
	struct lval target;

	if (lv) {
		*written = arg;
		return lvalue(t, e, arg);
	}
	target = deref_of(t, arg, eval(t, e, arg, NULL), clang_getCursorType(arg));
	target.expr = c;
	target.pointer = is_pointer_type(clang_getPointeeType(
		clang_getCanonicalType(clang_getCursorType(arg))));
	if (lvalue_arg)
		*written = address_operand(t, arg);
	return target;
}

/*
 * try_cmpxchg(p, &old, new), as the kernel defines it: r = cmpxchg(p,
 * old, new); old = r (on success they are equal); its value r == old.
 */
static struct val try_rmw(struct tr *t, struct env *e, CXCursor c, const char *name,
			  const struct prim *p, CXCursor *args, int nargs,
			  const struct expansion *written, const char *hint)
{
	CXCursor old_node;
	struct val ptr, old, new, *slot, r;
	struct code_line *line;
	struct lval old_lv;
	const char *reg;
	bool is_ptr;

	if (nargs != 3)
		fail_at(t, c, "%s() with %d arguments, not 3", name, nargs);
	if (!lkmm_model_primitive(t->req->model, p->litmus))
		fail_at(t, c, "%s() is not modelled: the model's .def has no %s()", name, p->litmus);
	ptr = eval(t, e, args[0], NULL);
	old_node = address_operand(t, args[1]);
	old_lv = clang_Cursor_isNull(old_node) ? (struct lval){ .kind = L_NONE } : lvalue(t, e, old_node);
	if (old_lv.kind != L_LOCAL)
		fail_at(t, args[1], "%s(): the expected value is not a local's address (&old)", name);
	slot = local_slot(e, old_lv.decl);
	old = *slot;
	new = eval(t, e, args[2], NULL);
	if (ptr.kind != V_ADDR) {
		note(t, c, "%s(): its location not known, left out", name);
		*slot = unknown;
		return unknown;
	}
	touch(t, ptr.loc, true, true);
	stored_fresh(t, ptr.loc, new);
	if (!modelled(t, ptr.loc)) {
		if (t->pass == 2)
			*mem_slot(e, ptr.loc) = unknown;
		*slot = unknown;
		return unknown;
	}
	if (old.kind != V_LIT && !(old.kind == V_OBJ && old.loc >= 0) && old.kind != V_ADDR)
		fail_at(t, args[1], "%s(): the expected value is not known to the test", name);
	is_ptr = t->locs[ptr.loc].pointer;
	reg = new_reg(t, hint, is_ptr);
	line = emit(t, c, "%s = %s(%s, %s, %s);", reg, p->litmus, stored_text(t, ptr), stored_text(t, old),
		    stored_text(t, new));
	line->access = CA_RMW;
	set_access_spans(t, line, c, clang_getNullCursor(), clang_getNullCursor(), false, written, true);
	r = lit(t, reg);
	r.pointer = is_ptr;
	r.from = t->locs[ptr.loc].holds_fresh ? ptr.loc : -1;
	*slot = r;
	return combine(t, "==", r, old);
}

/* An rwsem's or rwlock's address: lockdep_assert_held() on it allows the read side. */
static bool rw_lock_type(struct tr *t, CXType ty)
{
	const char *record = pointee_struct(t, ty);

	if (record && strstr(record, "rw_semaphore"))
		return true;
	return ty.kind == CXType_Pointer &&
	       strstr(spelling(t, clang_getTypeSpelling(clang_getPointeeType(ty))), "rwlock_t");
}

/*
 * The first walk saw the task assert that it holds loc, or release it,
 * before any lock of loc of its own: the caller holds it.
 */
static void held_by_caller(struct tr *t, int loc, bool read, bool releases, CXCursor at)
{
	int i;

	if (t->pass != 1 || ((t->locs[loc].takers | t->locs[loc].read_takers) & (1u << t->proc)))
		return;
	for (i = 0; i < t->nheld; i++)
		if (t->held[i].proc == t->proc && t->held[i].loc == loc) {
			t->held[i].releases |= releases;
			return;
		}
	t->held = xrealloc(t->held, (t->nheld + 1) * sizeof(*t->held));
	t->held[t->nheld++] = (struct held){ t->proc, loc, read, releases, at };
}

static struct val call_primitive(struct tr *t, struct env *e, CXCursor c, const char *name,
				 const struct prim *p, CXCursor *args, int nargs, bool by_address,
				 const struct expansion *written, const char *hint)
{
	bool lv = p->lvalue_arg && !by_address;
	CXCursor target_node = clang_getNullCursor();

	struct val v = unknown, vals[8];
	struct lval target;
	struct code_line *line = NULL;
	int i, before = t->nlines;

	switch (p->shape) {
	case PS_UNSUPPORTED:
		fail_at(t, c, "%s() is not modelled: the LKMM's linux-kernel.def has no such primitive",
			name);
	case PS_PASS:
		return nargs ? eval(t, e, args[0], hint) : unknown;
	case PS_ALLOC: {
		const char *type = pointee_struct(t, clang_getCursorType(c));
		int loc;

		for (i = 0; i < nargs; i++)
			eval(t, e, args[i], NULL);
		if (!type && hint)
			type = hint;
		loc = loc_get(t, t->proc ? keepf(t, "new %s %d", type ? type : "object", t->proc)
					 : keepf(t, "new %s", type ? type : "object"), false);
		t->locs[loc].fresh_proc = t->proc;
		touch(t, loc, false, true);
		if (modelled(t, loc)) {
			line = emit(t, c, "*%s = 1;", t->locs[loc].name);
			line->access = CA_NONE;
			note(t, c, "%s() allocates %s: its fields written plainly, 1 once written",
			     name, t->locs[loc].name);
		}
		v.kind = V_OBJ;
		v.loc = loc;
		v.pointer = true;
		return v;
	}
	case PS_FENCE:
		emit(t, c, "%s();", p->litmus);
		return unknown;
	case PS_LOCK:
	case PS_UNLOCK:
	case PS_READ_LOCK:
	case PS_READ_UNLOCK:
	case PS_HELD:
	case PS_HELD_WRITE:
	case PS_HELD_READ: {
		bool read = p->shape == PS_READ_LOCK || p->shape == PS_READ_UNLOCK ||
			    p->shape == PS_HELD_READ;
		struct loc *l;

		if (nargs < 1)
			fail_at(t, c, "%s() without its lock", name);
		for (i = 1; i < nargs; i++)
			eval(t, e, args[i], NULL);
		v = eval(t, e, args[0], NULL);
		if (v.kind != V_ADDR) {
			note(t, c, "%s(): lock not known, left out", name);
			return unknown;
		}
		if (p->shape == PS_HELD)
			read = rw_lock_type(t, clang_getCursorType(args[0]));
		v.loc = lock_loc(t, v.loc);
		l = &t->locs[v.loc];
		l->lock = true;
		touch(t, v.loc, true, true);
		if (p->shape == PS_HELD || p->shape == PS_HELD_WRITE || p->shape == PS_HELD_READ) {
			held_by_caller(t, v.loc, read, false, c);
			return unknown;
		}
		if (p->shape == PS_UNLOCK || p->shape == PS_READ_UNLOCK)
			held_by_caller(t, v.loc, read, true, c);
		else if (t->pass == 1)
			*(read ? &l->read_takers : &l->takers) |= 1u << t->proc;
		if (read && l->shared_read) {
			note(t, c, "%s(): a read side, as another task's, left out (readers do not "
				   "exclude each other; the model's locks do)", name);
		} else if (modelled(t, v.loc)) {
			emit(t, c, "%s(%s);", p->litmus, l->name);
			if (strcmp(name, p->litmus))
				note(t, c, "%s() as %s()", name, p->litmus);
		}
		return constant(t, 0);
	}
	case PS_LOAD:
		if (nargs < 1)
			fail_at(t, c, "%s() without its argument", name);
		target = accessed(t, e, c, args[0], lv, p->lvalue_arg, &target_node);
		if (!p->lvalue_arg || !by_address)
			for (i = 1; i < nargs; i++)
				eval(t, e, args[i], NULL);
		before = t->nlines;
		v = load(t, e, target, p->litmus, !p->lvalue_arg, hint, c);
		if (t->nlines > before)
			set_access_spans(t, &t->lines[t->nlines - 1].meta, c, target_node,
					 clang_getNullCursor(), false, written, !p->lvalue_arg);
		return v;
	case PS_STORE:
		if (nargs < 2)
			fail_at(t, c, "%s() without its value", name);
		target = accessed(t, e, c, args[0], lv, p->lvalue_arg, &target_node);
		vals[0] = eval(t, e, args[1], NULL);
		before = t->nlines;
		store(t, e, target, vals[0], p->litmus, !p->lvalue_arg, c);
		if (t->nlines > before)
			set_access_spans(t, &t->lines[t->nlines - 1].meta, c, target_node, args[1], true,
					 written, !p->lvalue_arg);
		return unknown;
	case PS_TRY_RMW:
		return try_rmw(t, e, c, name, p, args, nargs, written, hint);
	case PS_PLAIN_CALL:
	case PS_RMW: {
		struct strbuf sb = { 0 };
		bool has_value = lkmm_model_primitive(t->req->model, p->litmus) == LKMM_EXPRESSION;
		int addr = -1;

		if (nargs > 8)
			fail_at(t, c, "%s() with %d arguments", name, nargs);
		for (i = 0; i < nargs; i++) {
			vals[i] = eval(t, e, args[i], NULL);
			if (vals[i].kind == V_ADDR && addr < 0)
				addr = vals[i].loc;
		}
		if (p->shape == PS_RMW) {
			if (addr < 0) {
				note(t, c, "%s(): its location not known, left out", name);
				return unknown;
			}
			touch(t, addr, true, true);
			for (i = 0; i < nargs; i++)
				stored_fresh(t, addr, vals[i]);
			if (!modelled(t, addr)) {
				if (t->pass == 2)
					*mem_slot(e, addr) = unknown;
				return unknown;
			}
		}
		if (t->pass == 1)
			return unknown;
		sb_addf(&sb, "%s(", p->litmus);
		for (i = 0; i < nargs; i++)
			sb_addf(&sb, "%s%s", i ? ", " : "", stored_text(t, vals[i]));
		sb_adds(&sb, ")");
		if (has_value) {
			bool ptr = addr >= 0 && t->locs[addr].pointer;
			const char *reg = new_reg(t, hint, ptr);

			line = emit(t, c, "%s = %s;", reg, sb.buf);
			v = lit(t, reg);
			v.pointer = ptr;
			v.from = addr >= 0 && t->locs[addr].holds_fresh ? addr : -1;
		} else {
			line = emit(t, c, "%s;", sb.buf);
		}
		sb_free(&sb);
		if (p->shape == PS_RMW) {
			line->access = CA_RMW;
			set_access_spans(t, line, c, clang_getNullCursor(), clang_getNullCursor(), false,
					 written, true);
		}
		return v;
	}
	}
	return unknown;
}

/* A pointer that may be a fresh object's, handed to code the test does not see: read through it. */
static void dereference(struct tr *t, struct val p, CXCursor at)
{
	const char *value;
	struct code_line *line;

	if (t->pass != 2 || p.kind != V_LIT || p.from < 0)
		return;
	value = new_reg(t, NULL, false);
	emit(t, at, "if (%s) {", p.text);
	t->depth++;
	line = emit(t, at, "%s = *%s;", value, p.text);
	line->access = CA_NONE;
	t->depth--;
	emit(t, at, "}");
	t->derefs = xrealloc(t->derefs, (t->nderefs + 1) * sizeof(*t->derefs));
	t->derefs[t->nderefs++] = (struct deref){ t->proc, xstrdup(p.text), xstrdup(value), p.from };
}

static bool opaque_function(struct tr *t, CXCursor def)
{
	struct code_span s = cursor_span(t, def);

	/* the architecture's own code is assembly and per-CPU data, not shared state */
	return !s.file || !strncmp(s.file, "arch/", 5) || strstr(s.file, "/asm/") ||
	       strstr(s.file, "/asm-generic/");
}

/* The primitive's own call as written in the file, when the code writes it there. */
static const struct expansion *written_as(struct tr *t, CXCursor c, const char *name)
{
	const struct expansion *x = expansion_of(t, c);

	return x && !strcmp(x->name, name) ? x : NULL;
}

static struct val eval_call(struct tr *t, struct env *e, CXCursor c, const char *hint)
{
	const char *name = cursor_name(t, c);
	CXCursor callee = clang_getCursorReferenced(c);
	CXCursor def = clang_getCursorDefinition(callee);
	int n = clang_Cursor_getNumArguments(c), i;
	struct prim p;
	struct val vals[16], result = unknown;

	if (n < 0)
		n = 0;
	if (!strncmp(name, PRIM_PREFIX, strlen(PRIM_PREFIX))) {
		CXCursor args[16];
		const char *prim = name + strlen(PRIM_PREFIX);

		if (!find_prim(t, prim, &p))
			fail_at(t, c, "%s() is not in the model's .def", prim);
		for (i = 0; i < n && i < 16; i++)
			args[i] = clang_Cursor_getArgument(c, i);
		return call_primitive(t, e, c, prim, &p, args, n < 16 ? n : 16, true,
				      written_as(t, c, prim), hint);
	}
	if (*name && find_prim(t, name, &p)) {
		CXCursor args[16];

		for (i = 0; i < n && i < 16; i++)
			args[i] = clang_Cursor_getArgument(c, i);
		return call_primitive(t, e, c, name, &p, args, n < 16 ? n : 16, false, NULL, hint);
	}
	if (n > 16)
		n = 16;
	for (i = 0; i < n; i++)
		vals[i] = eval(t, e, clang_Cursor_getArgument(c, i), NULL);
	if (*name && !clang_Cursor_isNull(def) && clang_getCursorKind(def) == CXCursor_FunctionDecl &&
	    t->inline_depth < t->req->depth && !opaque_function(t, def)) {
		t->inline_depth++;
		run_function(t, def, vals, n, &result, e);
		t->inline_depth--;
		return result;
	}
	for (i = 0; i < n; i++)
		dereference(t, vals[i], c);
	if (*name)
		note(t, c, "%s() not modelled (%s)", name,
		     clang_Cursor_isNull(def) ? "defined elsewhere" :
		     t->inline_depth >= t->req->depth ? "deeper than --depth" : "architecture code");
	if (pointee_struct(t, clang_getCursorType(c))) {
		result.kind = V_OBJ;
		result.pointer = true;
	}
	return result;
}

static struct val assign(struct tr *t, struct env *e, CXCursor c, const char *op)
{
	struct kids k = code_kids(c);
	struct lval l;
	struct val v, old;
	CXCursor lhs, rhs;
	int before;

	if (k.n != 2) {
		fail_at(t, c, "assignment without two operands");
	}
	lhs = k.items[0];
	rhs = k.items[1];
	l = lvalue(t, e, lhs);
	v = eval(t, e, rhs, l.kind == L_LOCAL ? cursor_name(t, l.decl) : NULL);
	if (op[0] != '=' || op[1]) {
		char bin[4];

		snprintf(bin, sizeof(bin), "%.*s", (int)strlen(op) - 1, op);
		old = load(t, e, l, NULL, false, NULL, c);
		v = combine(t, bin, old, v);
	}
	before = t->nlines;
	store(t, e, l, v, NULL, false, c);
	if (t->nlines > before)
		set_access_spans(t, &t->lines[t->nlines - 1].meta, c, lhs, rhs, true, NULL, false);
	return v;
}

static struct val eval_unary(struct tr *t, struct env *e, CXCursor c, const char *hint)
{
	const char *op = operator_of(t, c);
	CXCursor arg = only_kid(t, c);
	struct val v;

	if (!strcmp(op, "&")) {
		struct lval l = lvalue(t, e, arg);

		if (l.kind == L_LOC) {
			v = unknown;
			v.kind = V_ADDR;
			v.loc = l.loc;
			v.pointer = true;
			return v;
		}
		if (l.kind == L_DEREF)
			return lit(t, l.reg);
		return unknown;
	}
	if (!strcmp(op, "*")) {
		struct lval l;
		CXCursor in = arg;

		/* *(T *)__lkmm_prim_READ_ONCE(&x): the primitive's value */
		while (clang_getCursorKind(in) == CXCursor_UnexposedExpr ||
		       clang_getCursorKind(in) == CXCursor_ParenExpr ||
		       clang_getCursorKind(in) == CXCursor_CStyleCastExpr)
			in = only_kid(t, in);
		if (clang_getCursorKind(in) == CXCursor_CallExpr &&
		    !strncmp(cursor_name(t, in), PRIM_PREFIX, strlen(PRIM_PREFIX)))
			return eval_call(t, e, in, hint);
		l = lvalue(t, e, c);
		int before = t->nlines;

		v = load(t, e, l, NULL, false, hint, c);
		if (t->nlines > before)
			set_access_spans(t, &t->lines[t->nlines - 1].meta, c, c, clang_getNullCursor(),
					 false, NULL, false);
		return v;
	}
	if (!strcmp(op, "++") || !strcmp(op, "--")) {
		struct lval l = lvalue(t, e, arg);
		struct val old = load(t, e, l, NULL, false, NULL, c);
		struct val now = combine(t, op[0] == '+' ? "+" : "-", old, constant(t, 1));
		bool prefix = clang_getRangeStart(clang_getCursorExtent(c)).int_data !=
			      clang_getRangeStart(clang_getCursorExtent(arg)).int_data;

		store(t, e, l, now, NULL, false, c);
		return prefix ? now : old;
	}
	v = eval(t, e, arg, NULL);
	if (!strcmp(op, "!")) {
		bool known, b = truth(&v, &known);

		if (known)
			return constant(t, !b);
		return v.kind == V_LIT ? lit(t, keepf(t, "!%s", v.text)) : unknown;
	}
	if (!strcmp(op, "-") && v.kind == V_LIT)
		return v.is_const ? constant(t, -v.c) : lit(t, keepf(t, "-%s", v.text));
	if (!strcmp(op, "~") && v.kind == V_LIT)
		return v.is_const ? constant(t, ~v.c) : lit(t, keepf(t, "~%s", v.text));
	if (!strcmp(op, "+"))
		return v;
	return unknown;
}

/* Lines written since index `from`, moved one level in under `if (cond) {`. */
static void wrap_in_if(struct tr *t, int from, const char *cond, CXCursor at)
{
	int i, n = t->nlines - from;
	struct pline *saved;

	if (n <= 0 || t->pass != 2)
		return;
	saved = xmalloc(n * sizeof(*saved));
	memcpy(saved, t->lines + from, n * sizeof(*saved));
	t->nlines = from;
	emit(t, at, "if (%s) {", cond);
	for (i = 0; i < n; i++) {
		saved[i].depth++;
		t->lines = xrealloc(t->lines, (t->nlines + 1) * sizeof(*t->lines));
		t->lines[t->nlines++] = saved[i];
	}
	free(saved);
	emit(t, at, "}");
}

static struct val eval_binary(struct tr *t, struct env *e, CXCursor c, const char *hint)
{
	const char *op = operator_of(t, c);
	struct kids k;
	struct val a, b;
	int before;

	if (!*op) {
		bool ok;
		long long x = eval_constant(c, &ok);

		return ok ? constant(t, x) : unknown;
	}
	if (!strcmp(op, "=") || (strlen(op) >= 2 && op[strlen(op) - 1] == '=' && strcmp(op, "==") &&
				 strcmp(op, "!=") && strcmp(op, "<=") && strcmp(op, ">=")))
		return assign(t, e, c, op);
	k = code_kids(c);
	if (k.n != 2) {
		return unknown;
	}
	a = eval(t, e, k.items[0], NULL);
	before = t->nlines;
	if (!strcmp(op, "&&") || !strcmp(op, "||")) {
		bool known, ta = truth(&a, &known);

		if (known && ta != (op[0] == '&')) {
			return constant(t, ta);
		}
	}
	b = eval(t, e, k.items[1], NULL);
	if ((!strcmp(op, "&&") || !strcmp(op, "||")) && a.kind == V_LIT && !a.is_const &&
	    t->nlines > before)
		/* the right side's accesses happen only when the left does not decide */
		wrap_in_if(t, before, op[0] == '&' ? a.text : keepf(t, "!%s", a.text), c);
	(void)hint;
	if (!strcmp(op, ","))
		return b;
	if ((!strcmp(op, "&&") || !strcmp(op, "||")) &&
	    ((a.kind == V_LIT && !a.is_const && b.kind == V_UNKNOWN) ||
	     (b.kind == V_LIT && !b.is_const && a.kind == V_UNKNOWN))) {
		/* half known: do_if() may settle the other half by the side it takes */
		t->half.at = c;
		t->half.and = op[0] == '&';
		t->half.known = a.kind == V_LIT ? a : b;
	}
	return combine(t, op, a, b);
}

/* A statement expression ({ ... }): its statements, then its last value. */
static struct val eval_stmt_expr(struct tr *t, struct env *e, CXCursor compound);

static struct val eval(struct tr *t, struct env *e, CXCursor c, const char *hint)
{
	enum CXCursorKind k = clang_getCursorKind(c);
	const struct expansion *x = expansion_of(t, c);
	bool ok;
	long long n;

	if (x && expansion_is_value(t, x))
		return eval_expansion(t, e, c, x, hint);
	switch (k) {
	case CXCursor_IntegerLiteral:
	case CXCursor_CharacterLiteral:
		n = eval_constant(c, &ok);
		return ok ? constant(t, n) : unknown;
	case CXCursor_ParenExpr:
	case CXCursor_CStyleCastExpr:
		return eval(t, e, only_kid(t, c), hint);
	case CXCursor_UnexposedExpr: {
		struct kids kids = code_kids(c);
		struct val v = unknown;

		if (kids.n == 1)
			v = eval(t, e, kids.items[0], hint);
		else if (kids.n == 0 && (n = eval_constant(c, &ok), ok))
			v = constant(t, n);
		return v;
	}
	case CXCursor_DeclRefExpr: {
		CXCursor d = clang_getCursorReferenced(c);

		if (clang_getCursorKind(d) == CXCursor_EnumConstantDecl)
			return constant(t, clang_getEnumConstantDeclValue(d));
		if (clang_getCursorKind(d) == CXCursor_FunctionDecl)
			return unknown;
	}
		/* fall through */
	case CXCursor_MemberRefExpr:
	case CXCursor_ArraySubscriptExpr: {
		struct lval l = lvalue(t, e, c);
		int before = t->nlines;
		struct val v = load(t, e, l, NULL, false, hint, c);

		if (t->nlines > before)
			set_access_spans(t, &t->lines[t->nlines - 1].meta, c, c, clang_getNullCursor(),
					 false, NULL, false);
		return v;
	}
	case CXCursor_CallExpr:
		return eval_call(t, e, c, hint);
	case CXCursor_UnaryOperator:
		return eval_unary(t, e, c, hint);
	case CXCursor_BinaryOperator:
	case CXCursor_CompoundAssignOperator:
		return eval_binary(t, e, c, hint);
	case CXCursor_ConditionalOperator: {
		struct kids kids = code_kids(c);
		struct val cond, v = unknown;
		bool known, b;

		if (kids.n == 3) {
			cond = eval(t, e, kids.items[0], NULL);
			b = truth(&cond, &known);
			if (known) {
				v = eval(t, e, kids.items[b ? 1 : 2], hint);
			} else {
				struct val x1 = eval(t, e, kids.items[1], NULL);
				struct val x2 = eval(t, e, kids.items[2], NULL);

				v = same_val(&x1, &x2) ? x1 : unknown;
			}
		}
		return v;
	}
	case CXCursor_StmtExpr:
		return eval_stmt_expr(t, e, only_kid(t, c));
	case CXCursor_UnaryExpr:	/* sizeof, alignof */
	case CXCursor_GenericSelectionExpr:
		n = eval_constant(c, &ok);
		return ok ? constant(t, n) : unknown;
	case CXCursor_InitListExpr:
	case CXCursor_CompoundLiteralExpr:
	case CXCursor_StringLiteral:
	case CXCursor_FloatingLiteral:
		return unknown;
	default:
		n = eval_constant(c, &ok);
		if (ok)
			return constant(t, n);
		return unknown;
	}
}

/* ---- statements ---- */

enum frame_kind { F_BLOCK, F_LOOP, F_SWITCH };

struct frame {
	enum frame_kind kind;
	struct kids stmts;	/* shared between copies: never freed until the function ends */
	int next;
};

struct walk {
	struct frame *frames;
	int n;
	struct env env;
	struct val *results;	/* the function's return values, one per path */
	int nresults;
	bool result_used;
	CXCursor fn;
};

static struct walk walk_copy(const struct walk *w)
{
	struct walk c = *w;

	c.frames = walk_copy_array(w->frames, w->n, sizeof(*c.frames));
	c.env = env_copy(&w->env);
	return c;
}

static void push_frame(struct walk *w, enum frame_kind kind, struct kids stmts, int next)
{
	w->frames = walk_grow(w->frames, w->n, sizeof(*w->frames));
	w->frames[w->n++] = (struct frame){ kind, stmts, next };
}

static struct kids single(CXCursor c)
{
	struct kids k = { walk_grow(NULL, 0, sizeof(CXCursor)), 1 };

	k.items[0] = c;
	return k;
}

/* Whether a statement can leave its block other than by its end. */
static bool jumps(CXCursor c);

static enum CXChildVisitResult find_jump(CXCursor c, CXCursor parent, CXClientData data)
{
	enum CXCursorKind k = clang_getCursorKind(c);

	(void)parent;
	if (k == CXCursor_ReturnStmt || k == CXCursor_GotoStmt || k == CXCursor_BreakStmt ||
	    k == CXCursor_ContinueStmt) {
		*(bool *)data = true;
		return CXChildVisit_Break;
	}
	if (k == CXCursor_StmtExpr)	/* a return inside ({ }) is another function's */
		return CXChildVisit_Continue;
	return CXChildVisit_Recurse;
}

static bool jumps(CXCursor c)
{
	bool found = false;
	enum CXCursorKind k = clang_getCursorKind(c);

	if (k == CXCursor_ReturnStmt || k == CXCursor_GotoStmt || k == CXCursor_BreakStmt ||
	    k == CXCursor_ContinueStmt)
		return true;
	clang_visitChildren(c, find_jump, &found);
	return found;
}

/* Whether a call is of what never returns (BUG()'s __builtin_unreachable(), panic() ...). */
static bool noreturn_call(CXCursor call)
{
	CXCursor callee = clang_getCursorReferenced(call);
	CXString name = clang_getCursorSpelling(callee);
	CXString type = clang_getTypeSpelling(clang_getCursorType(callee));
	const char *n = clang_getCString(name);
	bool found = !strcmp(n, "__builtin_unreachable") || !strcmp(n, "__builtin_trap") ||
		     strstr(clang_getCString(type), "noreturn");

	clang_disposeString(name);
	clang_disposeString(type);
	return found;
}

/* Whether a statement never ends: every path through it reaches a call that does not return. */
static bool dies(CXCursor c)
{
	struct kids k;
	int i;

	if (clang_Cursor_isNull(c))
		return false;
	switch (clang_getCursorKind(c)) {
	case CXCursor_CallExpr:
		return noreturn_call(c);
	case CXCursor_CompoundStmt:
		k = code_kids(c);
		for (i = 0; i < k.n; i++)
			if (dies(k.items[i]))
				return true;
		return false;
	case CXCursor_DoStmt:		/* do { ... } while (0) of a macro */
	case CXCursor_ParenExpr:
	case CXCursor_UnexposedExpr:
	case CXCursor_CStyleCastExpr:
		k = code_kids(c);
		return k.n && dies(k.items[0]);
	case CXCursor_IfStmt:
		k = code_kids(c);
		return k.n == 3 && dies(k.items[1]) && dies(k.items[2]);
	default:
		return false;
	}
}

/* How many accesses to the test's locations a piece of code makes, callees included. */
struct score {
	struct tr *t;
	int n, depth;
};

static enum CXChildVisitResult count_accesses(CXCursor c, CXCursor parent, CXClientData data)
{
	struct score *s = data;
	enum CXCursorKind k = clang_getCursorKind(c);
	struct tr *t = s->t;

	(void)parent;
	if (k == CXCursor_MemberRefExpr) {
		CXCursor field = clang_getCursorReferenced(c);
		int i = loc_find(t, keepf(t, "%s.%s", field_type(t, field), cursor_name(t, field)));

		if (i >= 0 && t->locs[i].modelled)
			s->n++;
	} else if (k == CXCursor_DeclRefExpr) {
		CXCursor d = clang_getCursorReferenced(c);
		int i = clang_getCursorKind(d) == CXCursor_VarDecl ? loc_find(t, cursor_name(t, d)) : -1;

		if (i >= 0 && t->locs[i].modelled)
			s->n++;
	} else if (k == CXCursor_CallExpr && s->depth < t->req->depth) {
		CXCursor def = clang_getCursorDefinition(clang_getCursorReferenced(c));

		if (!clang_Cursor_isNull(def) && clang_getCursorKind(def) == CXCursor_FunctionDecl) {
			s->depth++;
			clang_visitChildren(def, count_accesses, s);
			s->depth--;
		}
	}
	return CXChildVisit_Recurse;
}

static int accesses_in(struct tr *t, CXCursor c)
{
	struct score s = { t, 0, t->inline_depth };

	if (clang_Cursor_isNull(c))
		return 0;
	count_accesses(c, c, &s);
	clang_visitChildren(c, count_accesses, &s);
	return s.n;
}

/* The accesses of what follows in the walk's frames (this function only). */
static int accesses_after(struct tr *t, const struct walk *w)
{
	int i, j, n = 0;

	for (i = 0; i < w->n; i++)
		for (j = w->frames[i].next; j < w->frames[i].stmts.n; j++)
			n += accesses_in(t, w->frames[i].stmts.items[j]);
	return n;
}

static void run(struct tr *t, struct walk *w);

/*
 * A condition as written: its tokens; inside a macro's expansion
 * (likely(x)) the macro's; in a macro's own body (BUG_ON()) its line.
 */
static const char *condition_text(struct tr *t, CXCursor cond, struct code_span at)
{
	const struct expansion *x = expansion_of(t, cond);
	CXSourceRange r = clang_getCursorExtent(cond);
	struct strbuf sb = { 0 };
	CXToken *toks;
	unsigned n, i;

	clang_tokenize(t->tu->unit, r, &toks, &n);
	if (!n && x) {
		clang_disposeTokens(t->tu->unit, toks, n);
		clang_tokenize(t->tu->unit, x->range, &toks, &n);
	}
	for (i = 0; i < n && i < 12; i++)
		sb_addf(&sb, "%s%s", i ? " " : "", spelling(t, clang_getTokenSpelling(t->tu->unit, toks[i])));
	if (n > 12)
		sb_adds(&sb, " ...");
	clang_disposeTokens(t->tu->unit, toks, n);
	if (!n) {
		char *line = code_source_line(t->req->tree, &at);

		if (line)
			return keep(t, line);
	}
	return keep(t, sb.buf ? sb.buf : xstrdup(""));
}

/* A branch on what the test does not model: the side that reaches its locations. */
static bool choose_side(struct tr *t, struct walk *w, CXCursor cond, CXCursor then, CXCursor other,
			bool half)
{
	int after = accesses_after(t, w);
	int a = accesses_in(t, then) + (jumps(then) ? 0 : after);
	int b = accesses_in(t, other) + (!clang_Cursor_isNull(other) && jumps(other) ? 0 : after);
	bool side = a > b || (a == b && !jumps(then));
	bool then_dies = dies(then), other_dies = dies(other);
	struct code_span s = cursor_span(t, cond);

	if (then_dies != other_dies)	/* BUG_ON(x): the kernel goes on where x is false */
		side = other_dies;

	if (t->pass == 2 && (a || b)) {
		struct strbuf line = { 0 };

		sb_addf(&line, " * %s:%u `%s`%s taken as %s%s\n", s.file ? s.file : "?", s.line,
			condition_text(t, cond, s), half ? ": its part the test does not model" : "",
			side ? "true" : "false",
			then_dies != other_dies ? " (the other side does not return)" : "");
		if (!t->assumed.buf || !strstr(t->assumed.buf, line.buf))
			sb_adds(&t->assumed, line.buf);
		sb_free(&line);
	}
	return side;
}

/* The rest of the walk on both sides of a branch of the test. */
static void split(struct tr *t, struct walk *w, CXCursor at, const char *cond, CXCursor then,
		  CXCursor other)
{
	struct walk a = walk_copy(w), b = walk_copy(w);
	int i, start = t->nlines;

	emit(t, at, "if (%s) {", cond);
	t->depth++;
	if (!clang_Cursor_isNull(then))
		push_frame(&a, F_BLOCK, single(then), 0);
	run(t, &a);
	t->depth--;
	emit(t, at, "} else {");
	t->depth++;
	if (!clang_Cursor_isNull(other))
		push_frame(&b, F_BLOCK, single(other), 0);
	run(t, &b);
	t->depth--;
	emit(t, at, "}");
	if (t->pass == 2 && t->nlines == start + 3) {	/* nothing on either side */
		for (i = start; i < t->nlines; i++)
			free(t->lines[i].meta.text);
		t->nlines = start;
	}
	/* both sides ran to the function's end: what the function returns is theirs */
	for (i = 0; i < a.nresults; i++) {
		w->results = walk_grow(w->results, w->nresults, sizeof(*w->results));
		w->results[w->nresults++] = a.results[i];
	}
	for (i = 0; i < b.nresults; i++) {
		w->results = walk_grow(w->results, w->nresults, sizeof(*w->results));
		w->results[w->nresults++] = b.results[i];
	}
	env_merge(&a.env, &b.env);
	env_free(&w->env);
	w->env = a.env;
	env_free(&b.env);
	w->n = 0;
}

/* if (c) then else other, the branches not leaving: each walked on its own, then merged. */
static void branch_inline(struct tr *t, struct walk *w, CXCursor at, const char *cond,
			  CXCursor then, CXCursor other)
{
	struct walk a = *w, b;
	int start = t->nlines, mid;

	a.frames = NULL;
	a.n = 0;
	a.env = env_copy(&w->env);
	a.results = NULL;
	a.nresults = 0;
	b = a;
	b.env = env_copy(&w->env);
	emit(t, at, "if (%s) {", cond);
	t->depth++;
	push_frame(&a, F_BLOCK, single(then), 0);
	run(t, &a);
	t->depth--;
	mid = t->nlines;
	if (!clang_Cursor_isNull(other)) {
		emit(t, at, "} else {");
		t->depth++;
		push_frame(&b, F_BLOCK, single(other), 0);
		run(t, &b);
		t->depth--;
		if (t->nlines == mid + 1) {	/* an empty else */
			free(t->lines[mid].meta.text);
			t->nlines = mid;
		}
	}
	emit(t, at, "}");
	if (t->pass == 2 && t->nlines == start + 2) {	/* nothing in either side */
		free(t->lines[start].meta.text);
		free(t->lines[start + 1].meta.text);
		t->nlines = start;
	}
	env_merge(&a.env, &b.env);
	env_free(&w->env);
	w->env = a.env;
	env_free(&b.env);
}

/* c without the parentheses and implicit conversions around it. */
static CXCursor peel(struct tr *t, CXCursor c)
{
	while (clang_getCursorKind(c) == CXCursor_ParenExpr ||
	       clang_getCursorKind(c) == CXCursor_UnexposedExpr) {
		struct kids k = code_kids(c);

		if (k.n != 1) {
			break;
		}
		c = k.items[0];
	}
	(void)t;
	return c;
}

static void do_if(struct tr *t, struct walk *w, CXCursor c)
{
	struct kids k = code_kids(c);
	CXCursor cond, then, other = clang_getNullCursor();
	struct val v;
	bool known, b;

	if (k.n < 2) {
		return;
	}
	cond = k.items[0];
	then = k.items[1];
	if (k.n > 2)
		other = k.items[2];
	t->half.at = clang_getNullCursor();
	v = eval(t, &w->env, cond, NULL);
	b = truth(&v, &known);
	if (t->pass == 2 && v.kind == V_UNKNOWN && !clang_Cursor_isNull(t->half.at) &&
	    clang_equalCursors(t->half.at, peel(t, cond))) {
		/*
		 * "loaded || unknown": the unknown half taken as the side toward the
		 * shared accesses says, the loaded half stays a branch of the test
		 * (true: always; false: as the loaded half).
		 */
		bool side = choose_side(t, w, cond, then, other, true);

		if (side == t->half.and)
			v = t->half.known;
		else
			v = constant(t, side);
		b = truth(&v, &known);
	}
	if (t->pass == 1 && !known) {
		/* the first walk sees every side */
		struct walk a = *w;

		a.frames = NULL;
		a.n = 0;
		a.env = env_copy(&w->env);
		a.results = NULL;
		a.nresults = 0;
		push_frame(&a, F_BLOCK, single(then), 0);
		run(t, &a);
		env_free(&a.env);
		if (!clang_Cursor_isNull(other))
			push_frame(w, F_BLOCK, single(other), 0);
		return;
	}
	if (!known && v.kind == V_LIT) {
		if (jumps(then) || (!clang_Cursor_isNull(other) && jumps(other)))
			split(t, w, c, v.text, then, other);
		else
			branch_inline(t, w, c, v.text, then, other);
		return;
	}
	if (!known)
		b = choose_side(t, w, cond, then, other, false);
	if (b)
		push_frame(w, F_BLOCK, single(then), 0);
	else if (!clang_Cursor_isNull(other))
		push_frame(w, F_BLOCK, single(other), 0);
}

static void declare(struct tr *t, struct walk *w, CXCursor decl_stmt)
{
	struct kids k = kids_of(decl_stmt);
	int i;

	for (i = 0; i < k.n; i++) {
		CXCursor d = k.items[i];
		CXCursor init;

		if (clang_getCursorKind(d) != CXCursor_VarDecl)
			continue;
		if (clang_Cursor_getStorageClass(d) == CX_SC_Static)
			continue;
		*local_slot(&w->env, d) = unknown;
		init = clang_Cursor_getVarDeclInitializer(d);
		if (!clang_Cursor_isNull(init)) {
			const char *hint = cursor_name(t, d);
			struct val v = eval(t, &w->env, init, pointee_struct(t, clang_getCursorType(d)) &&
					    clang_getCursorKind(init) != CXCursor_DeclRefExpr ? hint : hint);

			*local_slot(&w->env, d) = v;
		}
	}
}

/* Leave frames up to and including the innermost of kind (a loop or a switch). */
static void leave_to(struct walk *w, enum frame_kind kind)
{
	while (w->n > 0) {
		enum frame_kind k = w->frames[w->n - 1].kind;

		w->n--;
		if (k == kind || (kind == F_LOOP && k == F_SWITCH && false))
			return;
	}
}

/* The label a goto names: its LabelRef kid's spelling. */
static const char *goto_label(struct tr *t, CXCursor c)
{
	struct kids k = kids_of(c);
	const char *name = "";
	int i;

	for (i = 0; i < k.n; i++)
		if (clang_getCursorKind(k.items[i]) == CXCursor_LabelRef)
			name = cursor_name(t, k.items[i]);
	return name;
}

static void do_goto(struct tr *t, struct walk *w, CXCursor c)
{
	const char *label = goto_label(t, c);
	int i, j;

	for (i = w->n - 1; i >= 0; i--)
		for (j = 0; j < w->frames[i].stmts.n; j++) {
			CXCursor s = w->frames[i].stmts.items[j];

			if (clang_getCursorKind(s) == CXCursor_LabelStmt && !strcmp(cursor_name(t, s), label)) {
				w->n = i + 1;
				w->frames[i].next = j;
				return;
			}
		}
	fail_at(t, c, "goto %s: a jump into a nested block is not modelled", label);
}

/* for (init; cond; step) body: which kids are which, by the semicolons between them. */
static void do_for(struct tr *t, struct walk *w, CXCursor c)
{
	struct kids k = code_kids(c);
	CXCursor init = clang_getNullCursor(), cond = clang_getNullCursor(), step = clang_getNullCursor();
	CXToken *toks;
	unsigned n, i, semis[2] = { 0, 0 }, nsemi = 0, depth = 0;
	int j;
	struct kids body;

	if (k.n < 1) {
		return;
	}
	clang_tokenize(t->tu->unit, clang_getCursorExtent(c), &toks, &n);
	for (i = 0; i < n && nsemi < 2; i++) {
		CXString s = clang_getTokenSpelling(t->tu->unit, toks[i]);
		const char *p = clang_getCString(s);

		if (!strcmp(p, "("))
			depth++;
		else if (!strcmp(p, ")"))
			depth--;
		else if (!strcmp(p, ";") && depth == 1)
			clang_getFileLocation(clang_getTokenLocation(t->tu->unit, toks[i]), NULL, NULL,
					      NULL, &semis[nsemi++]);
		clang_disposeString(s);
	}
	clang_disposeTokens(t->tu->unit, toks, n);
	for (j = 0; j < k.n - 1; j++) {
		unsigned off;

		clang_getFileLocation(clang_getRangeStart(clang_getCursorExtent(k.items[j])), NULL, NULL,
				      NULL, &off);
		if (nsemi < 2 || off < semis[0])
			init = k.items[j];
		else if (off < semis[1])
			cond = k.items[j];
		else
			step = k.items[j];
	}
	body.items = NULL;
	body.n = 0;
	body.items = walk_grow(body.items, body.n, sizeof(CXCursor));
	body.items[body.n++] = k.items[k.n - 1];
	if (!clang_Cursor_isNull(step)) {
		body.items = walk_grow(body.items, body.n, sizeof(CXCursor));
		body.items[body.n++] = step;
	}
	note(t, c, "loop: its body runs once");
	if (!clang_Cursor_isNull(init)) {
		if (clang_getCursorKind(init) == CXCursor_DeclStmt)
			declare(t, w, init);
		else
			eval(t, &w->env, init, NULL);
	}
	if (!clang_Cursor_isNull(cond)) {
		struct val v = eval(t, &w->env, cond, NULL);
		bool known, b = truth(&v, &known);

		if (known && !b)
			return;
	}
	push_frame(w, F_LOOP, body, 0);
}

static void do_switch(struct tr *t, struct walk *w, CXCursor c)
{
	struct kids k = code_kids(c);
	struct kids body;
	struct val v;
	int i, chosen = -1, best = -1;

	if (k.n != 2 || clang_getCursorKind(k.items[1]) != CXCursor_CompoundStmt) {
		fail_at(t, c, "switch without a block is not modelled");
	}
	v = eval(t, &w->env, k.items[0], NULL);
	body = code_kids(k.items[1]);
	if (v.kind == V_LIT && !v.is_const)
		fail_at(t, c, "switch on a value the test loads is not modelled");
	for (i = 0; i < body.n; i++) {
		enum CXCursorKind kind = clang_getCursorKind(body.items[i]);

		if (kind == CXCursor_CaseStmt && v.kind == V_LIT) {
			bool ok;
			struct kids ck = code_kids(body.items[i]);
			long long x = ck.n ? eval_constant(ck.items[0], &ok) : 0;

			if (ck.n && ok && x == v.c)
				chosen = i;
		} else if (kind == CXCursor_DefaultStmt && chosen < 0 && v.kind == V_LIT) {
			best = i;
		} else if ((kind == CXCursor_CaseStmt || kind == CXCursor_DefaultStmt) &&
			   v.kind != V_LIT) {
			int j, n = 0;

			for (j = i; j < body.n && clang_getCursorKind(body.items[j]) != CXCursor_BreakStmt; j++)
				n += accesses_in(t, body.items[j]);
			if (chosen < 0 || n > best) {
				chosen = i;
				best = n;
			}
		}
	}
	if (v.kind == V_LIT && chosen < 0)
		chosen = best;
	if (chosen < 0)
		return;
	if (v.kind != V_LIT)
		note(t, body.items[chosen], "switch: this case taken (it reaches the most shared accesses)");
	push_frame(w, F_SWITCH, body, chosen);
}

/* The statement a case or default label labels. */
static CXCursor labelled(CXCursor c)
{
	struct kids k = code_kids(c);
	CXCursor s = k.n ? k.items[k.n - 1] : clang_getNullCursor();

	return s;
}

static void do_return(struct tr *t, struct walk *w, CXCursor c)
{
	struct kids k = code_kids(c);
	struct val v = unknown;

	if (k.n)
		v = eval(t, &w->env, k.items[0], NULL);
	/* what the task's last function returns, its caller uses: read through it here, on this path */
	if (t->inline_depth == 0 && t->deref_returns)
		dereference(t, v, c);
	w->results = walk_grow(w->results, w->nresults, sizeof(*w->results));
	w->results[w->nresults++] = v;
	w->n = 0;
}

static void step(struct tr *t, struct walk *w, CXCursor s)
{
	enum CXCursorKind k = clang_getCursorKind(s);
	const struct expansion *x = expansion_of(t, s);

	if (x && expansion_is_value(t, x)) {
		eval_expansion(t, &w->env, s, x, NULL);
		return;
	}

	switch (k) {
	case CXCursor_CompoundStmt:
		push_frame(w, F_BLOCK, code_kids(s), 0);
		return;
	case CXCursor_DeclStmt:
		declare(t, w, s);
		return;
	case CXCursor_IfStmt:
		do_if(t, w, s);
		return;
	case CXCursor_ReturnStmt:
		do_return(t, w, s);
		return;
	case CXCursor_GotoStmt:
		if (t->pass == 1) {	/* the first walk goes on: the label is in what follows */
			return;
		}
		do_goto(t, w, s);
		return;
	case CXCursor_LabelStmt:
	case CXCursor_CaseStmt:
	case CXCursor_DefaultStmt: {
		CXCursor in = labelled(s);

		if (!clang_Cursor_isNull(in))
			step(t, w, in);
		return;
	}
	case CXCursor_BreakStmt:
		if (t->pass == 1)
			return;
		leave_to(w, w->n && w->frames[w->n - 1].kind == F_SWITCH ? F_SWITCH : F_LOOP);
		return;
	case CXCursor_ContinueStmt:
		if (t->pass == 1)
			return;
		leave_to(w, F_LOOP);
		return;
	case CXCursor_WhileStmt: {
		struct kids kids = code_kids(s);
		struct val v;
		bool known, b;

		note(t, s, "loop: its body runs once");
		if (kids.n == 2) {
			v = eval(t, &w->env, kids.items[0], NULL);
			b = truth(&v, &known);
			if (!known && v.kind == V_LIT && t->pass == 2) {
				push_frame(w, F_LOOP, single(kids.items[1]), 0);
				/* the body under the condition: a branch of the test */
				w->n--;
				if (jumps(kids.items[1]))
					split(t, w, s, v.text, kids.items[1], clang_getNullCursor());
				else
					branch_inline(t, w, s, v.text, kids.items[1], clang_getNullCursor());
			} else if (!known || b) {
				push_frame(w, F_LOOP, single(kids.items[1]), 0);
			}
		}
		return;
	}
	case CXCursor_DoStmt: {
		struct kids kids = code_kids(s);

		note(t, s, "loop: its body runs once");
		/* the body, then the condition once: its accesses are the code's too */
		if (kids.n >= 1)
			push_frame(w, F_LOOP, kids, 0);
		return;
	}
	case CXCursor_ForStmt:
		do_for(t, w, s);
		return;
	case CXCursor_SwitchStmt:
		do_switch(t, w, s);
		return;
	case CXCursor_NullStmt:
		return;
	case CXCursor_UnexposedStmt: {	/* libclang 14's attributed statement: `fallthrough;` */
		struct kids kids = code_kids(s);

		if (kids.n > 1)
			fail_at(t, s, "a statement of kind UnexposedStmt is not modelled");
		if (kids.n == 1)
			step(t, w, kids.items[0]);
		return;
	}
	case CXCursor_GCCAsmStmt:
		note(t, s, "inline assembly left out");
		return;
	default:
		if (clang_isExpression(k)) {
			eval(t, &w->env, s, NULL);
			return;
		}
		fail_at(t, s, "%s is not modelled", spelling(t, clang_getCursorKindSpelling(k)));
	}
}

static void run(struct tr *t, struct walk *w)
{
	while (w->n > 0) {
		struct frame *f = &w->frames[w->n - 1];

		if (f->next >= f->stmts.n) {
			w->n--;
			continue;
		}
		step(t, w, f->stmts.items[f->next++]);
	}
}

static struct val eval_stmt_expr(struct tr *t, struct env *e, CXCursor compound)
{
	struct kids k = code_kids(compound);
	struct walk w = { NULL, 0, { 0 }, NULL, 0, false, compound };
	struct val v = unknown;
	int i;

	/* the statements share the enclosing function's locals */
	w.env = env_copy(e);
	if (k.n > 0) {
		struct kids head = { k.items, k.n - 1 };

		push_frame(&w, F_BLOCK, head, 0);
		run(t, &w);
		if (clang_isExpression(clang_getCursorKind(k.items[k.n - 1])))
			v = eval(t, &w.env, k.items[k.n - 1], NULL);
		else
			step(t, &w, k.items[k.n - 1]);
	}
	for (i = 0; i < w.env.nlocals; i++)
		*local_slot(e, w.env.locals[i].decl) = w.env.locals[i].v;
	env_free(e);
	*e = w.env;
	return v;
}

static void run_function(struct tr *t, CXCursor fn, struct val *args, int nargs, struct val *result,
			 struct env *caller)
{
	struct kids params = kids_of(fn);
	struct walk w = { NULL, 0, { 0 }, NULL, 0, false, fn };
	CXCursor body = clang_getNullCursor();
	int i, p = 0;
	bool same = true;

	for (i = 0; i < params.n; i++) {
		enum CXCursorKind k = clang_getCursorKind(params.items[i]);

		if (k == CXCursor_ParmDecl) {
			struct val v = unknown;

			if (p < nargs) {
				v = args[p];
			} else if (pointee_struct(t, clang_getCursorType(params.items[i]))) {
				v.kind = V_OBJ;
				v.pointer = true;
			}
			*local_slot(&w.env, params.items[i]) = v;
			p++;
		} else if (k == CXCursor_CompoundStmt) {
			body = params.items[i];
		}
	}
	if (clang_Cursor_isNull(body))
		return;
	/* the task's memory goes with it into the call and back */
	if (caller) {
		w.env.mem = caller->mem;
		w.env.nmem = caller->nmem;
		caller->mem = NULL;
		caller->nmem = 0;
	}
	push_frame(&w, F_BLOCK, code_kids(body), 0);
	run(t, &w);
	if (caller) {
		caller->mem = w.env.mem;
		caller->nmem = w.env.nmem;
		w.env.mem = NULL;
	}
	*result = unknown;
	for (i = 1; i < w.nresults; i++)
		same &= same_val(&w.results[0], &w.results[i]);
	if (w.nresults && same)
		*result = w.results[0];
	/* the first walk sees every path: a fresh object returned on one may be published */
	for (i = 0; t->pass == 1 && i < w.nresults; i++)
		if (w.results[i].kind == V_OBJ && w.results[i].loc >= 0)
			*result = w.results[i];
	env_free(&w.env);
}

/* ---- the translation units ---- */

/* The unit's first error (the caller disposes of it), or NULL. */
static CXDiagnostic first_error(CXTranslationUnit unit)
{
	unsigned i, n = clang_getNumDiagnostics(unit);

	for (i = 0; i < n; i++) {
		CXDiagnostic d = clang_getDiagnostic(unit, i);

		if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error)
			return d;
		clang_disposeDiagnostic(d);
	}
	return NULL;
}

static bool has_errors(CXTranslationUnit unit)
{
	CXDiagnostic d = first_error(unit);

	if (!d)
		return false;
	clang_disposeDiagnostic(d);
	return true;
}

static void diagnostics_fail(struct tr *t, CXTranslationUnit unit, const char *file)
{
	CXDiagnostic d = first_error(unit);
	CXString msg;
	struct code_span s;

	if (!d)
		return;
	msg = clang_getDiagnosticSpelling(d);
	s = span_at(t, clang_getDiagnosticLocation(d));
	sb_addf(t->err, "%s:%u:%u: error: %s does not compile: %s\n",
		s.file ? s.file : file, s.line, s.col, file, clang_getCString(msg));
	clang_disposeString(msg);
	clang_disposeDiagnostic(d);
	longjmp(t->fail, 1);
}

/* $(src), $(srctree), $(obj), $(objtree) of a Kbuild flag; NULL for what only make knows. */
static char *kbuild_expand(const struct code_request *req, const char *dir, const char *word)
{
	static const char *const names[] = { "$(src)", "$(srctree)", "$(obj)", "$(objtree)" };
	struct strbuf out = { 0 };
	const char *p = word;

	while (*p) {
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(*names); i++)
			if (!strncmp(p, names[i], strlen(names[i])))
				break;
		if (i == sizeof(names) / sizeof(*names)) {
			if (p[0] == '$') {
				sb_free(&out);
				return NULL;
			}
			sb_addf(&out, "%c", *p++);
			continue;
		}
		p += strlen(names[i]);
		if (i == 0 || i == 2)
			sb_addf(&out, "%s/%s", req->tree, dir);
		else
			sb_adds(&out, req->tree);
	}
	return out.buf ? out.buf : xstrdup("");
}

/*
 * The -I and -D a directory's Kbuild Makefile gives: ccflags-* for the
 * files it builds (own), subdir-ccflags-* for those below it as well.
 * $(src) is the Makefile's directory: Kbuild expands subdir-ccflags
 * there.  Without them, i915, selinux or mlx5 find no header of their own.
 */
static bool kbuild_flags(const struct code_request *req, const char *dir, bool own, char ***v, int *n)
{
	char path[8300], *text, *line, *save = NULL, *p;

	snprintf(path, sizeof(path), "%s/%s/Makefile", req->tree, dir);
	if (!(text = read_file(path, NULL))) {
		snprintf(path, sizeof(path), "%s/%s/Kbuild", req->tree, dir);
		if (!(text = read_file(path, NULL)))
			return false;	/* built by a Makefile above */
	}
	for (p = text; (p = strstr(p, "\\\n")); )	/* continued lines */
		p[0] = p[1] = ' ';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *word, *wsave = NULL;
		bool want_arg = false;

		line += strspn(line, " \t");
		if (strncmp(line, "subdir-ccflags-", 15) && (!own || strncmp(line, "ccflags-", 8)))
			continue;
		if (!(line = strchr(line, '=')))
			continue;
		for (word = strtok_r(line + 1, " \t", &wsave); word; word = strtok_r(NULL, " \t", &wsave)) {
			char *flag = NULL;

			if (want_arg) {
				char *x = kbuild_expand(req, dir, word);

				if (x) {
					flag = xmalloc(strlen(x) + 3);
					sprintf(flag, "-I%s", x);
					free(x);
				}
				want_arg = false;
			} else if (!strcmp(word, "-I")) {
				want_arg = true;
			} else if (!strncmp(word, "-I", 2) || !strncmp(word, "-D", 2)) {
				flag = kbuild_expand(req, dir, word);
			}
			if (flag) {
				*v = xrealloc(*v, (*n + 2) * sizeof(**v));
				(*v)[(*n)++] = flag;
				(*v)[*n] = NULL;
			}
		}
	}
	free(text);
	return true;
}

/*
 * The Kbuild flags of file: every directory above it gives its
 * subdir-ccflags, the nearest one with a Makefile (the one that builds
 * it: mlx5/core/Makefile builds en_accel/ipsec_offload.o) its ccflags as well.
 */
static void kbuild_dir_flags(const struct code_request *req, const char *file, char ***v, int *n)
{
	char dir[4096];
	const char *slash;
	bool own = true;

	snprintf(dir, sizeof(dir), "%s", file);
	while ((slash = strrchr(dir, '/'))) {
		dir[slash - dir] = '\0';
		if (kbuild_flags(req, dir, own, v, n))
			own = false;
	}
}

/* Compile flags for a file of the tree (../shared/notes/libclang-kernel.md has why these). */
static char **compile_flags(const struct code_request *req, const char *file, int *n)
{
	const char *s = req->tree, *o = req->build_dir;
	char dir[4096];
	const char *slash = strrchr(file, '/');
	char **v = xcalloc(48, sizeof(*v));
	int i = 0;

	snprintf(dir, sizeof(dir), "%s/%.*s", s, slash ? (int)(slash - file) : 0, file);
#define F(...) do { struct strbuf b_ = { 0 }; sb_addf(&b_, __VA_ARGS__); v[i++] = b_.buf; } while (0)
	F("-nostdinc");
	F("--target=x86_64-linux-gnu");
	F("-I%s/arch/x86/include", s);
	F("-I%s/arch/x86/include/generated", o);
	F("-I%s/include", s);
	F("-I%s/include", o);
	F("-I%s/arch/x86/include/uapi", s);
	F("-I%s/arch/x86/include/generated/uapi", o);
	F("-I%s/include/uapi", s);
	F("-I%s/include/generated/uapi", o);
	F("-include");
	F("%s/include/linux/compiler-version.h", s);
	F("-include");
	F("%s/include/linux/kconfig.h", s);
	F("-include");
	F("%s/include/linux/compiler_types.h", s);
	F("-D__KERNEL__");
	F("-std=gnu11");
	F("-fshort-wchar");
	F("-funsigned-char");
	F("-fno-common");
	F("-fno-strict-aliasing");
	F("-m64");
	F("-mno-sse");
	F("-mno-mmx");
	F("-mno-sse2");
	F("-mno-3dnow");
	F("-mno-avx");
	F("-mno-80387");
	F("-mno-red-zone");
	F("-mcmodel=kernel");
	F("-O2");
	F("-w");
	F("-I%s", dir);
	F("-DKBUILD_MODFILE=\"lkmm\"");
	F("-DKBUILD_BASENAME=\"lkmm\"");
	F("-DKBUILD_MODNAME=\"lkmm\"");
	F("-D__KBUILD_MODNAME=kmod_lkmm");
	/* Kbuild's, under CONFIG_FUNCTION_TRACER: asm/ftrace.h stops without it */
	F("-DCC_USING_FENTRY");
#undef F
	*n = i;
	kbuild_dir_flags(req, file, &v, n);
	return v;
}

/*
 * The primitives kept as calls.  In the code as compiled READ_ONCE() is a
 * volatile access and cmpxchg() inline assembly, and a primitive used
 * inside another macro (a helper of the file, or of a header) leaves no
 * trace of its name.  So the headers that define them are given to
 * libclang with each definition replaced, at their end, by a call of a
 * function of ours, __lkmm_prim_NAME(), whose arguments are the
 * primitive's: the tree then holds the primitive by name, with its
 * arguments as ordinary nodes.  An lvalue argument (READ_ONCE(x)) is
 * passed by address.
 */
enum wrap_shape { W_LOAD_LV, W_LOAD_PTR, W_STORE_LV, W_STORE_PTR, W_RMW, W_FENCE, W_HELD };

static const struct {
	const char *name;
	enum wrap_shape shape;
} wrapped[] = {
	{ "READ_ONCE", W_LOAD_LV }, { "WRITE_ONCE", W_STORE_LV },
	{ "smp_load_acquire", W_LOAD_PTR }, { "smp_store_release", W_STORE_PTR },
	{ "smp_store_mb", W_STORE_LV },
	{ "rcu_dereference", W_LOAD_LV }, { "rcu_dereference_check", W_LOAD_LV },
	{ "rcu_dereference_raw", W_LOAD_LV }, { "rcu_dereference_bh", W_LOAD_LV },
	{ "rcu_dereference_sched", W_LOAD_LV }, { "rcu_dereference_protected", W_LOAD_LV },
	{ "rcu_access_pointer", W_LOAD_LV }, { "srcu_dereference", W_LOAD_LV },
	{ "rcu_assign_pointer", W_STORE_LV }, { "RCU_INIT_POINTER", W_STORE_LV },
	{ "cmpxchg", W_RMW }, { "cmpxchg_relaxed", W_RMW }, { "cmpxchg_acquire", W_RMW },
	{ "cmpxchg_release", W_RMW }, { "xchg", W_RMW }, { "xchg_relaxed", W_RMW },
	{ "xchg_acquire", W_RMW }, { "xchg_release", W_RMW },
	{ "smp_mb", W_FENCE }, { "smp_rmb", W_FENCE }, { "smp_wmb", W_FENCE },
	{ "smp_mb__before_atomic", W_FENCE }, { "smp_mb__after_atomic", W_FENCE },
	{ "smp_mb__after_spinlock", W_FENCE }, { "smp_mb__after_unlock_lock", W_FENCE },
	{ "lockdep_assert_held", W_HELD }, { "lockdep_assert_held_once", W_HELD },
	{ "lockdep_assert_held_write", W_HELD }, { "lockdep_assert_held_read", W_HELD },
	{ "assert_spin_locked", W_HELD },
};


static void wrap_definition(struct strbuf *sb, const char *name, enum wrap_shape shape)
{
	sb_addf(sb, "#undef %s\nextern unsigned long " PRIM_PREFIX "%s();\n", name, name);
	switch (shape) {
	case W_LOAD_LV:
		sb_addf(sb, "#define %s(x, ...) (*(__typeof__(x) *)" PRIM_PREFIX "%s(&(x)))\n", name, name);
		break;
	case W_LOAD_PTR:
		sb_addf(sb, "#define %s(p) (*(__typeof__(*(p)) *)" PRIM_PREFIX "%s(p))\n", name, name);
		break;
	case W_STORE_LV:
		sb_addf(sb, "#define %s(x, v) ((void)" PRIM_PREFIX "%s(&(x), (v)))\n", name, name);
		break;
	case W_STORE_PTR:
		sb_addf(sb, "#define %s(p, v) ((void)" PRIM_PREFIX "%s((p), (v)))\n", name, name);
		break;
	case W_RMW:
		sb_addf(sb, "#define %s(p, ...) (*(__typeof__(*(p)) *)" PRIM_PREFIX "%s((p), __VA_ARGS__))\n",
			name, name);
		break;
	case W_FENCE:
		sb_addf(sb, "#define %s() ((void)" PRIM_PREFIX "%s())\n", name, name);
		break;
	case W_HELD:
		sb_addf(sb, "#define %s(l) ((void)" PRIM_PREFIX "%s(l))\n", name, name);
		break;
	}
}

struct definitions {
	struct tr *t;
	char *files[sizeof(wrapped) / sizeof(*wrapped)];	/* the last definition's header */
};

static enum CXChildVisitResult find_definition(CXCursor c, CXCursor parent, CXClientData data)
{
	struct definitions *d = data;
	const char *name;
	size_t i;

	(void)parent;
	if (clang_getCursorKind(c) != CXCursor_MacroDefinition)
		return CXChildVisit_Continue;
	name = cursor_name(d->t, c);
	for (i = 0; i < sizeof(wrapped) / sizeof(*wrapped); i++)
		if (!strcmp(wrapped[i].name, name)) {
			CXFile f;

			clang_getExpansionLocation(clang_getCursorLocation(c), &f, NULL, NULL, NULL);
			if (f) {
				free(d->files[i]);
				d->files[i] = xstrdup(clang_getCString(clang_getFileName(f)));
			}
		}
	return CXChildVisit_Continue;
}

enum { NWRAPPED = sizeof(wrapped) / sizeof(*wrapped) };

/* Where unit last defines each primitive: the header whose definition holds. */
static void find_definitions(struct tr *t, CXTranslationUnit unit, struct definitions *d)
{
	memset(d, 0, sizeof(*d));
	d->t = t;
	clang_visitChildren(clang_getTranslationUnitCursor(unit), find_definition, d);
}

static bool same_definitions(const struct definitions *a, const struct definitions *b)
{
	size_t i;

	for (i = 0; i < NWRAPPED; i++)
		if (!a->files[i] != !b->files[i] || (a->files[i] && strcmp(a->files[i], b->files[i])))
			return false;
	return true;
}

static void definitions_free(struct definitions *d)
{
	size_t i;

	for (i = 0; i < NWRAPPED; i++)
		free(d->files[i]);
	memset(d->files, 0, sizeof(d->files));
}

/*
 * The definitions a tree's files usually have, kept in its build
 * directory: a file is parsed once with them, and again only when its
 * own definitions turn out to be elsewhere.
 */
static void definitions_path(const struct tr *t, char *path, size_t size)
{
	snprintf(path, size, "%s/lkmm-code-primitives", t->req->build_dir);
}

static bool definitions_load(struct tr *t, struct definitions *d)
{
	char path[4096], *text, *line, *save = NULL;
	size_t i;
	bool any = false;

	memset(d, 0, sizeof(*d));
	d->t = t;
	definitions_path(t, path, sizeof(path));
	text = read_file(path, NULL);
	if (!text)
		return false;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');

		if (!tab)
			continue;
		*tab = '\0';
		for (i = 0; i < NWRAPPED; i++)
			if (!strcmp(wrapped[i].name, line) && !d->files[i]) {
				d->files[i] = xstrdup(tab + 1);
				any = true;
			}
	}
	free(text);
	return any;
}

static void definitions_save(struct tr *t, const struct definitions *d)
{
	char path[4096], tmp[4200];
	struct strbuf sb = { 0 };
	size_t i;
	FILE *f;

	definitions_path(t, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	for (i = 0; i < NWRAPPED; i++)
		if (d->files[i])
			sb_addf(&sb, "%s\t%s\n", wrapped[i].name, d->files[i]);
	f = fopen(tmp, "w");
	if (!f) {
		sb_free(&sb);
		return;	/* a cache only: without it each file is parsed twice */
	}
	fputs(sb.buf ? sb.buf : "", f);
	if (fclose(f) || rename(tmp, path))
		remove(tmp);
	sb_free(&sb);
}

/* The headers of d, each with the wrappers of the primitives it defines appended. */
static int overlay(const struct definitions *d, struct CXUnsavedFile **out)
{
	struct CXUnsavedFile *files = NULL;
	bool done[NWRAPPED] = { false };
	int nfiles = 0;
	size_t i, j;

	for (i = 0; i < NWRAPPED; i++) {
		struct strbuf sb = { 0 };
		size_t len;
		char *text;

		if (!d->files[i] || done[i])
			continue;
		text = read_file(d->files[i], &len);
		if (!text)
			continue;
		sb_add(&sb, text, len);
		free(text);
		sb_adds(&sb, "\n/* lkmm code: the primitives as calls */\n");
		for (j = i; j < NWRAPPED; j++)
			if (d->files[j] && !strcmp(d->files[j], d->files[i])) {
				wrap_definition(&sb, wrapped[j].name, wrapped[j].shape);
				done[j] = true;
			}
		files = xrealloc(files, (nfiles + 1) * sizeof(*files));
		files[nfiles].Filename = xstrdup(d->files[i]);
		files[nfiles].Contents = sb.buf;
		files[nfiles].Length = sb.len;
		nfiles++;
	}
	*out = files;
	return nfiles;
}

static void overlay_free(struct CXUnsavedFile *files, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free((char *)files[i].Filename);
		free((char *)files[i].Contents);
	}
	free(files);
}

/*
 * Parse path with the primitives as calls: with the tree's usual
 * definitions first; when the unit's own are elsewhere (the overlay
 * moved none, or another header defines one after), again with those.
 */
static enum CXErrorCode parse_with_overlay(struct tr *t, struct tu *tu, const char *path,
					   char **flags, int nflags)
{
	struct definitions want, got;
	struct CXUnsavedFile *over;
	int nover, round;
	enum CXErrorCode rc = CXError_Failure;
	bool cached = definitions_load(t, &want);

	for (round = 0; round < 3; round++) {
		nover = overlay(&want, &over);
		rc = clang_parseTranslationUnit2(t->index, path, (const char *const *)flags, nflags,
						 over, nover, CXTranslationUnit_DetailedPreprocessingRecord,
						 &tu->unit);
		overlay_free(over, nover);
		if (rc != CXError_Success || !tu->unit)
			break;
		find_definitions(t, tu->unit, &got);
		if (same_definitions(&want, &got)) {
			definitions_free(&got);
			if (!cached)
				definitions_save(t, &want);
			break;
		}
		clang_disposeTranslationUnit(tu->unit);
		tu->unit = NULL;
		definitions_free(&want);
		want = got;
		cached = false;
	}
	definitions_free(&want);
	return rc;
}

/* "; did you mean: ..." with the files of file's directory that start as its name does. */
static void similar_files(struct tr *t, const char *file)
{
	const char *slash = strrchr(file, '/'), *base = slash ? slash + 1 : file;
	char dir[4096];
	struct dirent *d;
	DIR *dp;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/%.*s", t->req->tree, slash ? (int)(slash - file) : 0, file);
	dp = opendir(dir);
	if (!dp) {
		sb_addf(t->err, " (nor the directory %.*s)", slash ? (int)(slash - file) : 0, file);
		return;
	}
	while ((d = readdir(dp)) && n < 8) {
		size_t len = strlen(d->d_name);

		if (len > 2 && !strcmp(d->d_name + len - 2, ".c") && !strncmp(d->d_name, base, 3))
			sb_addf(t->err, "%s%.*s%s", n++ ? ", " : "; did you mean: ",
				slash ? (int)(slash - file + 1) : 0, file, d->d_name);
	}
	closedir(dp);
	if (n)
		sb_adds(t->err, "?");
}

static enum CXErrorCode parse_file(struct tr *t, struct tu *tu, const char *file)
{
	char path[4096];
	char **flags;
	int nflags, i;
	enum CXErrorCode rc;

	snprintf(path, sizeof(path), "%s/%s", t->req->tree, file);
	flags = compile_flags(t->req, file, &nflags);
	rc = parse_with_overlay(t, tu, path, flags, nflags);
	for (i = 0; i < nflags; i++)
		free(flags[i]);
	free(flags);
	return rc;
}

/* A .c file beside file that includes it ("#include \"psi.c\""), or NULL. */
static const char *including_file(struct tr *t, const char *file)
{
	const char *slash = strrchr(file, '/'), *base = slash ? slash + 1 : file;
	int dirlen = slash ? (int)(slash - file) : 0;
	const char *found = NULL;
	char dir[4096], *want;
	struct dirent *d;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/%.*s", t->req->tree, dirlen, file);
	if (!(dp = opendir(dir)))
		return NULL;
	want = xmalloc(strlen(base) + 3);
	sprintf(want, "\"%s\"", base);
	while (!found && (d = readdir(dp))) {
		size_t len = strlen(d->d_name);
		char path[8300], *text, *p;

		if (len < 3 || strcmp(d->d_name + len - 2, ".c") || !strcmp(d->d_name, base))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (!(text = read_file(path, NULL)))
			continue;
		for (p = text; p && !found; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
			const char *q = p + strspn(p, " \t");	/* "# include" too */

			if (*q++ != '#')
				continue;
			q += strspn(q, " \t");
			if (strncmp(q, "include", 7))
				continue;
			q += 7 + strspn(q + 7, " \t");
			if (!strncmp(q, want, strlen(want)))
				found = keepf(t, "%.*s%s%s", dirlen, file, dirlen ? "/" : "", d->d_name);
		}
		free(text);
	}
	closedir(dp);
	free(want);
	return found;
}

static struct tu *open_tu(struct tr *t, const char *file)
{
	struct collect col;
	struct tu *tu;
	char path[4096];
	enum CXErrorCode rc;
	int i;
	FILE *f;

	for (i = 0; i < t->ntus; i++)
		if (!strcmp(t->tus[i].file, file))
			return &t->tus[i];
	snprintf(path, sizeof(path), "%s/%s", t->req->tree, file);
	f = fopen(path, "r");
	if (!f) {
		sb_addf(t->err, "%s: error: no such file in %s", file, t->req->tree);
		similar_files(t, file);
		sb_adds(t->err, "\n");
		longjmp(t->fail, 1);
	}
	fclose(f);
	t->tus = xrealloc(t->tus, (t->ntus + 1) * sizeof(*t->tus));
	tu = &t->tus[t->ntus++];
	memset(tu, 0, sizeof(*tu));
	tu->file = xstrdup(file);
	rc = parse_file(t, tu, file);
	if (rc == CXError_Success && tu->unit && has_errors(tu->unit)) {
		/* psi.c is built inside kernel/sched/build_utility.c, tree_plugin.h inside tree.c */
		const char *host = including_file(t, file);

		if (host) {
			clang_disposeTranslationUnit(tu->unit);
			tu->unit = NULL;
			rc = parse_file(t, tu, host);
		}
	}
	if (rc != CXError_Success || !tu->unit) {
		sb_addf(t->err, "%s: error: libclang could not parse it (error %d)\n", file, (int)rc);
		longjmp(t->fail, 1);
	}
	t->tu = tu;
	diagnostics_fail(t, tu->unit, file);
	tu->named = clang_getFile(tu->unit, path);
	col.t = t;
	col.tu = tu;
	clang_visitChildren(clang_getTranslationUnitCursor(tu->unit), collect_expansion, &col);
	qsort(tu->exps, tu->nexps, sizeof(*tu->exps), by_start);
	return tu;
}

/* Whether a location is in the file the task names (not only in the unit parsed for it). */
static bool in_named_file(const struct tu *tu, CXSourceLocation l)
{
	CXFile f;

	clang_getExpansionLocation(l, &f, NULL, NULL, NULL);
	return f && tu->named && clang_File_isEqual(f, tu->named);
}

struct find_fn {
	struct tr *t;
	const struct tu *tu;
	const char *name;
	CXCursor found;
	bool ok;
	struct strbuf near;	/* functions of the file, for the message */
	int nnear;
};

static enum CXChildVisitResult find_function(CXCursor c, CXCursor parent, CXClientData data)
{
	struct find_fn *ff = data;
	const char *name;

	(void)parent;
	if (clang_getCursorKind(c) != CXCursor_FunctionDecl || !clang_isCursorDefinition(c))
		return CXChildVisit_Continue;
	name = cursor_name(ff->t, c);
	if (!strcmp(name, ff->name)) {
		ff->found = c;
		ff->ok = true;
		return CXChildVisit_Break;
	}
	if (in_named_file(ff->tu, clang_getCursorLocation(c)) && ff->nnear < 8) {
		size_t a = strlen(name), b = strlen(ff->name);
		size_t k, common = 0;

		/* a name that shares a good part with the one asked for */
		for (k = 0; k + 3 <= b; k++) {
			char piece[5];

			snprintf(piece, sizeof(piece), "%s", ff->name + k);
			if (strstr(name, piece))
				common++;
		}
		(void)a;
		if (common * 3 >= b) {
			sb_addf(&ff->near, "%s%s", ff->nnear ? ", " : "", name);
			ff->nnear++;
		}
	}
	return CXChildVisit_Continue;
}

struct find_line {
	const struct tu *tu;
	unsigned line;
	CXCursor found;
	bool ok;
};

static enum CXChildVisitResult function_at_line(CXCursor c, CXCursor parent, CXClientData data)
{
	struct find_line *fl = data;
	CXSourceRange r = clang_getCursorExtent(c);
	unsigned from, to;

	(void)parent;
	if (clang_getCursorKind(c) != CXCursor_FunctionDecl || !clang_isCursorDefinition(c) ||
	    !in_named_file(fl->tu, clang_getRangeStart(r)))
		return CXChildVisit_Continue;
	clang_getExpansionLocation(clang_getRangeStart(r), NULL, &from, NULL, NULL);
	clang_getExpansionLocation(clang_getRangeEnd(r), NULL, &to, NULL, NULL);
	if (from <= fl->line && fl->line <= to) {
		fl->found = c;
		fl->ok = true;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Continue;
}

/* The function named name, or, for a number, the one whose body holds that line of the file. */
static CXCursor function_in(struct tr *t, struct tu *tu, const char *name)
{
	struct find_fn ff = { t, tu, name, clang_getNullCursor(), false, { 0 }, 0 };

	if (name[0] >= '0' && name[0] <= '9') {
		struct find_line fl = { tu, (unsigned)strtoul(name, NULL, 10), clang_getNullCursor(), false };

		clang_visitChildren(clang_getTranslationUnitCursor(tu->unit), function_at_line, &fl);
		if (!fl.ok) {
			sb_addf(t->err, "%s:%s: error: no function defined around this line (one the "
				"--config leaves out, under an #ifdef, is not in the parse)\n",
				tu->file, name);
			longjmp(t->fail, 1);
		}
		return fl.found;
	}
	clang_visitChildren(clang_getTranslationUnitCursor(tu->unit), find_function, &ff);
	if (!ff.ok) {
		sb_addf(t->err, "%s: error: no function %s() defined in it (or in what it includes)%s%s%s\n",
			tu->file, name, ff.nnear ? "; did you mean: " : "",
			ff.nnear ? ff.near.buf : "", ff.nnear ? "?" : "");
		sb_free(&ff.near);
		longjmp(t->fail, 1);
	}
	sb_free(&ff.near);
	return ff.found;
}

/* The first walk of every task: which locations each reads and writes. */
static void find_locations(struct tr *t)
{
	int p, f;

	for (p = 0; p < t->req->nprocs; p++) {
		const struct code_process *proc = &t->req->procs[p];
		struct env mem = { 0 };

		t->proc = p;
		t->tu = open_tu(t, proc->file);
		t->inline_depth = 0;
		for (f = 0; f < proc->nfuncs; f++) {
			struct val result;

			run_function(t, function_in(t, t->tu, proc->funcs[f]), NULL, 0, &result, &mem);
		}
		env_free(&mem);
	}
}

static void write_test(struct tr *t, struct code_test *out);

int code_translate(const struct code_request *req, struct code_test *out, struct strbuf *err)
{
	struct tr t;
	volatile int status = 0;
	int i;

	memset(&t, 0, sizeof(t));
	memset(out, 0, sizeof(*out));
	t.req = req;
	t.err = err;
	if (req->nprocs > 16) {
		sb_addf(err, "lkmm code: error: %d tasks: at most 16\n", req->nprocs);
		return EXIT_BAD_INPUT;
	}
	t.index = clang_createIndex(0, 0);
	walk_mem = &t.walk_arena;
	if (setjmp(t.fail)) {
		status = EXIT_BAD_INPUT;
		goto out;
	}
	t.pass = 1;
	find_locations(&t);
	choose_locations(&t);
	t.pass = 2;
	write_test(&t, out);
out:
	for (i = 0; i < t.ntus; i++) {
		clang_disposeTranslationUnit(t.tus[i].unit);
		free(t.tus[i].exps);
		free(t.tus[i].file);
	}
	free(t.tus);
	clang_disposeIndex(t.index);
	for (i = 0; i < t.nlocs; i++) {
		free(t.locs[i].key);
		free(t.locs[i].name);
	}
	free(t.locs);
	for (i = 0; i < t.nregs; i++)
		free(t.regs[i].name);
	free(t.regs);
	for (i = 0; i < t.nlines; i++)
		free(t.lines[i].meta.text);
	free(t.lines);
	for (i = 0; i < t.nderefs; i++) {
		free(t.derefs[i].ptr);
		free(t.derefs[i].value);
	}
	free(t.derefs);
	free(t.held);
	sb_free(&t.notes);
	sb_free(&t.assumed);
	sb_free(&t.held_notes);
	sb_free(&t.test_name);
	sb_free(&t.made_from);
	for (i = 0; i < 16; i++)
		code_test_free(&t.written[i]);
	arena_free(&t.walk_arena);
	walk_mem = NULL;
	for (i = 0; i < t.nstrings; i++)
		free(t.strings[i]);
	free(t.strings);
	if (status)
		code_test_free(out);
	return status;
}

/* ---- writing the test ---- */

static const char *test_file(struct code_test *out, const char *file)
{
	int i;

	if (!file)
		return NULL;
	for (i = 0; i < out->nfiles; i++)
		if (!strcmp(out->files[i], file))
			return out->files[i];
	out->files = xrealloc(out->files, (out->nfiles + 1) * sizeof(*out->files));
	return out->files[out->nfiles++] = xstrdup(file);
}

static void add_line(struct code_test *out, int proc, const char *text, const struct code_line *meta)
{
	out->lines = xrealloc(out->lines, (out->nlines + 1) * sizeof(*out->lines));
	if (meta) {
		struct code_line *l = &out->lines[out->nlines];

		*l = *meta;
		l->where.file = test_file(out, l->where.file);
		l->expr.file = test_file(out, l->expr.file);
		l->name.file = test_file(out, l->name.file);
		l->target.file = test_file(out, l->target.file);
		l->value.file = test_file(out, l->value.file);
	} else {
		memset(&out->lines[out->nlines], 0, sizeof(*out->lines));
		out->lines[out->nlines].proc = proc;
	}
	out->lines[out->nlines].text = xstrdup(text);
	out->nlines++;
	sb_adds(&out->text, text);
	sb_adds(&out->text, "\n");
}

static void add_text(struct code_test *out, int proc, const char *text)
{
	const char *nl;

	while ((nl = strchr(text, '\n'))) {
		char *line = xstrndup(text, nl - text);

		add_line(out, proc, line, NULL);
		free(line);
		text = nl + 1;
	}
	if (*text)
		add_line(out, proc, text, NULL);
}

static void write_params(struct tr *t, struct strbuf *sb)
{
	int i, n = 0;

	for (i = 0; i < t->nlocs; i++) {
		const struct loc *l = &t->locs[i];

		if (!l->modelled)
			continue;
		sb_addf(sb, "%s%s%s", n++ ? ", " : "",
			l->lock ? "spinlock_t *" : l->pointer || l->holds_fresh ? "int **" : "int *",
			l->name);
	}
}

/* Interning copies strings into the test, so the per-process buffers can go. */
static void write_process(struct tr *t, struct code_test *out, int p)
{
	struct strbuf sb = { 0 };
	int i;

	sb_addf(&sb, "P%d(", p);
	write_params(t, &sb);
	sb_adds(&sb, ")");
	add_line(out, p, sb.buf, NULL);
	sb.len = 0;
	add_line(out, p, "{", NULL);
	for (i = 0; i < t->nregs; i++) {
		sb.len = 0;
		sb_addf(&sb, "\tint %s%s;", t->regs[i].pointer ? "*" : "", t->regs[i].name);
		add_line(out, p, sb.buf, NULL);
	}
	if (t->nregs)
		add_line(out, p, "", NULL);
	for (i = 0; i < t->nlines; i++) {
		struct pline *l = &t->lines[i];
		int d;

		sb.len = 0;
		for (d = 0; d <= l->depth; d++)
			sb_adds(&sb, "\t");
		sb_adds(&sb, l->meta.text);
		if (l->meta.where.file && !strchr(l->meta.text, '}'))
			sb_addf(&sb, " /* %s:%u */", l->meta.where.file, l->meta.where.line);
		add_line(out, p, sb.buf, &l->meta);
	}
	add_line(out, p, "}", NULL);
	add_line(out, p, "", NULL);
	sb_free(&sb);
}

/*
 * The locks the task's callers hold, taken before its functions and
 * released after them (unless the task releases them itself), at the
 * line that asserts or releases them.
 */
static void take_held(struct tr *t, bool taking)
{
	int i;

	for (i = 0; i < t->nheld; i++) {
		const struct held *h = &t->held[i];
		const struct loc *l = &t->locs[h->loc];

		if (h->proc != t->proc || !l->modelled || (!taking && h->releases))
			continue;
		if (h->read && l->shared_read) {
			note(t, h->at, "%s held by a caller: a read side, as another task's, left out "
				       "(readers do not exclude each other; the model's locks do)", l->name);
			continue;
		}
		emit(t, h->at, "%s(%s);", taking ? "spin_lock" : "spin_unlock", l->name);
		if (taking) {
			struct code_span s = cursor_span(t, h->at);

			sb_addf(&t->held_notes, " * %s:%u %s%s (P%d)\n", s.file ? s.file : "?", s.line,
				l->key, h->read ? ", its read side" : "", t->proc);
		}
	}
}

/* Kernel text quoted in the test's (* comment *): "(unsigned long *)p" must not end it. */
static void open_close_apart(struct strbuf *sb, size_t from)
{
	struct strbuf out = { 0 };
	size_t i;

	for (i = 0; i < sb->len; i++) {
		sb_addf(&out, "%c", sb->buf[i]);
		if (i >= from && i + 1 < sb->len &&
		    ((sb->buf[i] == '*' && sb->buf[i + 1] == ')') ||
		     (sb->buf[i] == '(' && sb->buf[i + 1] == '*')))
			sb_adds(&out, " ");
	}
	sb_free(sb);
	*sb = out;
}

static void write_test(struct tr *t, struct code_test *out)
{
	struct strbuf head = { 0 }, cond = { 0 };
	struct strbuf *name = &t->test_name, *from = &t->made_from;
	struct code_test *procs = t->written;	/* freed by code_translate() when a walk fails */
	int p, i, j, nmodelled = 0;

	for (p = 0; p < t->req->nprocs; p++) {
		t->proc = p;
		t->tu = open_tu(t, t->req->procs[p].file);
		t->inline_depth = 0;
		for (i = 0; i < t->nlines; i++)
			free(t->lines[i].meta.text);
		t->nlines = 0;
		for (i = 0; i < t->nregs; i++)
			free(t->regs[i].name);
		t->nregs = 0;
		t->depth = 0;
		{
			struct env mem = { 0 };
			int f;

			take_held(t, true);
			for (f = 0; f < t->req->procs[p].nfuncs; f++) {
				CXCursor fn = function_in(t, t->tu, t->req->procs[p].funcs[f]);
				const char *fname = cursor_name(t, fn);
				struct val result;

				/* the test's name: the functions, each once */
				if (!name->len)
					sb_adds(name, "+");
				if (!strstr(name->buf ? name->buf : "", keepf(t, "+%s+", fname)))
					sb_addf(name, "%s+", fname);
				sb_addf(from, "%s%s%s", f ? "+" : (p ? ", " : ""),
					f ? "" : keepf(t, "P%d %s:", p, t->req->procs[p].file), fname);
				sb_addf(from, "()");
				t->deref_returns = f == t->req->procs[p].nfuncs - 1;
				run_function(t, fn, NULL, 0, &result, &mem);
				t->deref_returns = false;
			}
			take_held(t, false);
			env_free(&mem);
		}
		write_process(t, &procs[p], p);
	}
	for (i = 0; i < t->nlocs; i++)
		nmodelled += t->locs[i].modelled;
	name->buf[name->len - 1] = '\0';	/* the last '+' */
	out->name = xstrdup(t->req->name ? t->req->name : name->buf + 1);
	sb_addf(&head, "C %s\n\n(*\n * Made by lkmm code from %s", out->name, from->buf);
	sb_adds(&head, ".\n *\n * Locations (one object per structure type):\n");
	for (i = 0; i < t->nlocs; i++)
		if (t->locs[i].modelled)
			sb_addf(&head, " *   %s is %s%s\n", t->locs[i].name,
				t->locs[i].fresh_proc >= 0 ? "the contents of a freshly allocated object, 0 until initialized: "
							   : "",
				t->locs[i].fresh_proc >= 0 ? t->locs[i].key + 4 : t->locs[i].key);
	if (!nmodelled)
		sb_adds(&head, " *   none: no location is written by one task and read by another\n");
	if (t->assumed.len)
		sb_addf(&head, " *\n * Branches on what the test does not model, taken toward the shared accesses:\n%s",
			t->assumed.buf);
	if (t->held_notes.len)
		sb_addf(&head, " *\n * Locks a task's caller holds (the task asserts it, or releases it first):\n%s",
			t->held_notes.buf);
	if (t->notes.len)
		sb_addf(&head, " *\n * Not modelled:\n%s", t->notes.buf);
	open_close_apart(&head, strstr(head.buf, "(*\n") + 3 - head.buf);
	sb_adds(&head, " *)\n\n{}\n\n");
	add_text(out, -1, head.buf);
	for (p = 0; p < t->req->nprocs; p++) {
		for (i = 0; i < procs[p].nlines; i++) {
			add_line(out, p, procs[p].lines[i].text, &procs[p].lines[i]);
		}
		code_test_free(&procs[p]);
	}
	if (t->req->exists) {
		sb_addf(&cond, "exists (%s)", t->req->exists);
	} else if (t->nderefs) {
		sb_adds(&cond, "exists (");
		for (i = 0; i < t->nderefs; i++) {
			const struct deref *d = &t->derefs[i];

			for (j = 0; j < t->nlocs; j++)
				if (t->locs[j].fresh_proc >= 0 && t->locs[j].modelled &&
				    t->locs[j].fresh_proc != d->proc)
					sb_addf(&cond, "%s(%d:%s=%s /\\ %d:%s=0)",
						cond.len > 8 ? " \\/ " : "", d->proc, d->ptr,
						t->locs[j].name, d->proc, d->value);
		}
		if (cond.len == 8)
			sb_adds(&cond, "false");
		sb_adds(&cond, ") (* a task sees the pointer but not what was written before it was published *)");
	} else {
		sb_adds(&cond, "exists (false) (* nothing is published and dereferenced: only the data-race flag speaks *)");
	}
	add_text(out, -1, cond.buf);
	sb_free(&head);
	sb_free(&cond);
}

void code_test_free(struct code_test *t)
{
	int i;

	for (i = 0; i < t->nlines; i++)
		free(t->lines[i].text);
	free(t->lines);
	for (i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	free(t->files);
	free(t->name);
	sb_free(&t->text);
	memset(t, 0, sizeof(*t));
}
