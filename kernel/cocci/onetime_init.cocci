// SPDX-License-Identifier: GPL-2.0-only
/// Find lockless tests of a pointer that another function publishes
/// once, and that the test does not order after the publication.
///
/// A pointer is published when a function allocates an object and stores
/// it with cmpxchg(&ptr, NULL, obj) (or a _relaxed, _acquire or _release
/// variant) or smp_store_release(&ptr, obj).  Reported are:
///
///  - a plain load of such a pointer tested against NULL (the "is it
///    initialized yet?" fast path): a data race with the publication,
///    and nothing orders the caller's later reads after it;
///  - a READ_ONCE() of such a pointer that is only tested against NULL,
///    so that only a control dependency would order the caller's later
///    reads, and control dependencies do not order reads;
///  - a plain load of the pointer after a failed cmpxchg() of it.
///
/// A field is the same pointer only in the same structure type, so a
/// test whose structure type Coccinelle cannot tell is not reported.  A
/// test is not reported when it is made under a lock that the publisher
/// holds when it publishes (a double-checked test under the init mutex),
/// nor when its if also sets the pointer to NULL (teardown).  Dereferencing
/// the value a failed cmpxchg() returned is not reported: the address
/// dependency orders it (OneTimeInit+release+onceaddr in
/// tools/memory-model/litmus-tests).
///
/// Publications and tests are joined over all the files of one run, so
/// give it a directory that holds both the publisher and the readers
/// (make coccicheck MODE=report M=fs/).  Context mode marks only the
/// plain rereads after a failed cmpxchg(), which need no join.
//
// Confidence: Low
// Comments: Locks are matched by the name of their last identifier
// (the field or variable), and only when taken or asserted in the same
// function as the test, so a test under a lock that the caller holds is
// reported.  A pointer published with a plain store, or an object not
// allocated in the publishing function, is not looked for.
// Options: --no-includes --include-headers

virtual context
virtual org
virtual report
// Print the published pointers, one per line (a cheap first pass over
// the files that call cmpxchg() or smp_store_release()).
virtual publishers

@initialize:python@
@@
import re
import coccinelle

coccinelle.mode = "report"

# Filled per file and merged over all the files of a run (and --jobs).
coccinelle.published = []	# (key, file, line, primitive)
coccinelle.tests = []		# (kind, key, file, line, function)
coccinelle.types = []		# (file, line, field, struct type)
coccinelle.locks = []		# (file, line, lock name)
coccinelle.failed = []		# (file, line, function, message)

def key_of(fld, glob, p):
	"""A field is matched by name and type, a variable by name in its file."""
	if fld:
		return "->" + fld
	return glob + "@" + p[0].file

def note_type(p, fld, t):
	t = " ".join(w for w in t.replace("*", " ").split() if w not in ("const", "volatile"))
	coccinelle.types.append((p[0].file, int(p[0].line), fld, t))

def note_lock(p, l):
	ids = re.findall(r"[A-Za-z_]\w*", l)
	if ids:
		coccinelle.locks.append((p[0].file, int(p[0].line), ids[-1]))

@initialize:python depends on org@
@@
coccinelle.mode = "org"

@initialize:python depends on publishers@
@@
coccinelle.mode = "publishers"

// ----------------------------------------------------------------------
// Publications: an object the function allocated, stored with
// cmpxchg*(&ptr, NULL, obj) or smp_store_release(&ptr, obj).

@pub_field exists@
identifier cx =~ "^(cmpxchg|cmpxchg_relaxed|cmpxchg_acquire|cmpxchg_release|smp_store_release)$";
identifier alloc =~ "(alloc|create|kthread_run|dup|get_free_page)";
identifier fld;
identifier V;
expression E;
type T;
position p;
@@
(
T V = alloc(...);
|
V = alloc(...)
)
... when any
(
cx@p(&E->fld, NULL, V)
|
cx@p(&E.fld, NULL, V)
|
cx@p(&E->fld, V)
|
cx@p(&E.fld, V)
)

@pub_field_type@
identifier pub_field.cx, pub_field.fld;
position pub_field.p;
type T;
T *E1;
T E2;
@@
\(cx@p(&E1->fld, ...)\|cx@p(&E2.fld, ...)\)

@script:python depends on pub_field_type@
fld << pub_field.fld;
cx << pub_field.cx;
T << pub_field_type.T;
p << pub_field.p;
@@
note_type(p, fld, T)
coccinelle.published.append((key_of(fld, None, p), p[0].file, int(p[0].line), cx))

@pub_global exists@
identifier cx =~ "^(cmpxchg|cmpxchg_relaxed|cmpxchg_acquire|cmpxchg_release|smp_store_release)$";
identifier alloc =~ "(alloc|create|kthread_run|dup|get_free_page)";
identifier V;
global idexpression G;
type T;
position p;
@@
(
T V = alloc(...);
|
V = alloc(...)
)
... when any
(
cx@p(&G, NULL, V)
|
cx@p(&G, V)
)

@script:python depends on pub_global@
G << pub_global.G;
cx << pub_global.cx;
p << pub_global.p;
@@
coccinelle.published.append((key_of(None, G, p), p[0].file, int(p[0].line), cx))

// ----------------------------------------------------------------------
// Tests of a pointer against NULL: plain, or READ_ONCE() and nothing
// else; not the test of a teardown.

@teardown depends on !publishers@
expression E;
identifier fld;
global idexpression G;
position p;
@@
(
if (E->fld@p) { ... when any
  E->fld = NULL;
  ... when any
}
|
if (E.fld@p) { ... when any
  E.fld = NULL;
  ... when any
}
|
if (G@p) { ... when any
  G = NULL;
  ... when any
}
)

@plain_test depends on !publishers disable isnt_null1, isnt_zero, not_ptr2, not_int2@
expression E, E3;
identifier fld;
global idexpression G;
position p != teardown.p;
statement S1, S2;
@@
(
if (\(E->fld@p\|E.fld@p\|G@p\)) S1 else S2
|
\(!E->fld@p\|!E.fld@p\|!G@p\)
|
\(E->fld@p == NULL\|E.fld@p == NULL\|G@p == NULL\|E->fld@p != NULL\|E.fld@p != NULL\|G@p != NULL\)
|
\(E->fld@p && E3\|E.fld@p && E3\|G@p && E3\|E3 && E->fld@p\|E3 && E.fld@p\|E3 && G@p\)
|
\(E->fld@p || E3\|E.fld@p || E3\|G@p || E3\|E3 || E->fld@p\|E3 || E.fld@p\|E3 || G@p\)
)

@script:python depends on plain_test@
fld << plain_test.fld = "";
G << plain_test.G = "";
p << plain_test.p;
@@
coccinelle.tests.append(("plain", key_of(fld, G, p), p[0].file, int(p[0].line), p[0].current_element))

@once_test depends on !publishers disable isnt_null1, isnt_zero, not_ptr2, not_int2@
expression E, E3;
identifier fld;
global idexpression G;
position p;
statement S1, S2;
@@
(
if (READ_ONCE(\(E->fld@p\|E.fld@p\|G@p\))) S1 else S2
|
!READ_ONCE(\(E->fld@p\|E.fld@p\|G@p\))
|
READ_ONCE(\(E->fld@p\|E.fld@p\|G@p\)) == NULL
|
READ_ONCE(\(E->fld@p\|E.fld@p\|G@p\)) != NULL
|
READ_ONCE(\(E->fld@p\|E.fld@p\|G@p\)) && E3
|
E3 && READ_ONCE(\(E->fld@p\|E.fld@p\|G@p\))
|
READ_ONCE(\(E->fld@p\|E.fld@p\|G@p\)) || E3
|
E3 || READ_ONCE(\(E->fld@p\|E.fld@p\|G@p\))
)

@script:python depends on once_test@
fld << once_test.fld = "";
G << once_test.G = "";
p << once_test.p;
@@
coccinelle.tests.append(("once", key_of(fld, G, p), p[0].file, int(p[0].line), p[0].current_element))

@test_type depends on !publishers@
identifier fld;
position p = {plain_test.p, once_test.p};
type T;
T *E1;
T E2;
@@
\(E1->fld@p\|E2.fld@p\)

@script:python depends on test_type@
fld << test_type.fld;
T << test_type.T;
p << test_type.p;
@@
note_type(p, fld, T)

// ----------------------------------------------------------------------
// Locks: the locks held (taken earlier in the function, or asserted) at
// a publication and at a test.

@held_test exists@
identifier lk =~ "^(mutex_lock|mutex_lock_nested|mutex_lock_interruptible|mutex_lock_killable|mutex_trylock|spin_lock|spin_lock_nested|spin_lock_irq|spin_lock_irqsave|spin_lock_bh|spin_trylock|raw_spin_lock|raw_spin_lock_irq|raw_spin_lock_irqsave|read_lock|read_lock_irq|read_lock_irqsave|read_lock_bh|write_lock|write_lock_irq|write_lock_irqsave|write_lock_bh|down_read|down_read_killable|down_read_interruptible|down_write|down_write_killable|down_read_trylock|down_write_trylock|percpu_down_read|percpu_down_write|mmap_read_lock|mmap_read_lock_killable|mmap_write_lock|mmap_write_lock_killable|mmap_read_trylock|lockdep_assert_held|lockdep_assert_held_write|lockdep_assert_held_read|lockdep_assert_held_once|mmap_assert_locked|mmap_assert_write_locked)$";
identifier ul =~ "(unlock|up_read|up_write)$";
expression L, E;
identifier fld;
global idexpression G;
position p = plain_test.p;
@@
lk(L, ...)
... when != ul(L, ...)
\(E->fld@p\|E.fld@p\|G@p\)

@script:python depends on held_test@
L << held_test.L;
p << held_test.p;
@@
note_lock(p, L)

@held_once exists@
identifier lk =~ "^(mutex_lock|mutex_lock_nested|mutex_lock_interruptible|mutex_lock_killable|mutex_trylock|spin_lock|spin_lock_nested|spin_lock_irq|spin_lock_irqsave|spin_lock_bh|spin_trylock|raw_spin_lock|raw_spin_lock_irq|raw_spin_lock_irqsave|read_lock|read_lock_irq|read_lock_irqsave|read_lock_bh|write_lock|write_lock_irq|write_lock_irqsave|write_lock_bh|down_read|down_read_killable|down_read_interruptible|down_write|down_write_killable|down_read_trylock|down_write_trylock|percpu_down_read|percpu_down_write|mmap_read_lock|mmap_read_lock_killable|mmap_write_lock|mmap_write_lock_killable|mmap_read_trylock|lockdep_assert_held|lockdep_assert_held_write|lockdep_assert_held_read|lockdep_assert_held_once|mmap_assert_locked|mmap_assert_write_locked)$";
identifier ul =~ "(unlock|up_read|up_write)$";
expression L, E;
identifier fld;
global idexpression G;
position p = once_test.p;
@@
lk(L, ...)
... when != ul(L, ...)
\(E->fld@p\|E.fld@p\|G@p\)

@script:python depends on held_once@
L << held_once.L;
p << held_once.p;
@@
note_lock(p, L)

@held_pub_field exists@
identifier lk =~ "^(mutex_lock|mutex_lock_nested|mutex_lock_interruptible|mutex_lock_killable|mutex_trylock|spin_lock|spin_lock_nested|spin_lock_irq|spin_lock_irqsave|spin_lock_bh|spin_trylock|raw_spin_lock|raw_spin_lock_irq|raw_spin_lock_irqsave|read_lock|read_lock_irq|read_lock_irqsave|read_lock_bh|write_lock|write_lock_irq|write_lock_irqsave|write_lock_bh|down_read|down_read_killable|down_read_interruptible|down_write|down_write_killable|down_read_trylock|down_write_trylock|percpu_down_read|percpu_down_write|mmap_read_lock|mmap_read_lock_killable|mmap_write_lock|mmap_write_lock_killable|mmap_read_trylock|lockdep_assert_held|lockdep_assert_held_write|lockdep_assert_held_read|lockdep_assert_held_once|mmap_assert_locked|mmap_assert_write_locked)$";
identifier ul =~ "(unlock|up_read|up_write)$";
expression L;
identifier pub_field.cx;
position pub_field.p;
@@
lk(L, ...)
... when != ul(L, ...)
cx@p(...)

@script:python depends on held_pub_field@
L << held_pub_field.L;
p << pub_field.p;
@@
note_lock(p, L)

@held_pub_global exists@
identifier lk =~ "^(mutex_lock|mutex_lock_nested|mutex_lock_interruptible|mutex_lock_killable|mutex_trylock|spin_lock|spin_lock_nested|spin_lock_irq|spin_lock_irqsave|spin_lock_bh|spin_trylock|raw_spin_lock|raw_spin_lock_irq|raw_spin_lock_irqsave|read_lock|read_lock_irq|read_lock_irqsave|read_lock_bh|write_lock|write_lock_irq|write_lock_irqsave|write_lock_bh|down_read|down_read_killable|down_read_interruptible|down_write|down_write_killable|down_read_trylock|down_write_trylock|percpu_down_read|percpu_down_write|mmap_read_lock|mmap_read_lock_killable|mmap_write_lock|mmap_write_lock_killable|mmap_read_trylock|lockdep_assert_held|lockdep_assert_held_write|lockdep_assert_held_read|lockdep_assert_held_once|mmap_assert_locked|mmap_assert_write_locked)$";
identifier ul =~ "(unlock|up_read|up_write)$";
expression L;
identifier pub_global.cx;
position pub_global.p;
@@
lk(L, ...)
... when != ul(L, ...)
cx@p(...)

@script:python depends on held_pub_global@
L << held_pub_global.L;
p << pub_global.p;
@@
note_lock(p, L)

// ----------------------------------------------------------------------
// A failed cmpxchg() orders nothing: its loser must not read the pointer
// again with a plain load.  (Its returned value, and a READ_ONCE() of the
// pointer, are marked reads: what is reached through them is ordered by
// the address dependency.)

@marked depends on !publishers@
expression E;
identifier fld;
position p;
@@
\(&E->fld@p\|E->fld@p = ...\|READ_ONCE(E->fld@p)\)

@failed_reread depends on !publishers exists@
identifier cx =~ "^(cmpxchg|cmpxchg_relaxed|cmpxchg_acquire|cmpxchg_release)$";
expression E, V;
identifier fld;
position p1, p2 != marked.p;
@@
if (\(cx@p1(&E->fld, NULL, V)\|cx@p1(&E->fld, NULL, V) != NULL\)) {
  ... when any
  E->fld@p2
  ... when any
}

@script:python depends on failed_reread@
p1 << failed_reread.p1;
p2 << failed_reread.p2;
cx << failed_reread.cx;
@@
coccinelle.failed.append((p2[0].file, int(p2[0].line), p2[0].current_element,
	"plain load of the pointer after a failed %s() (line %s), which orders nothing: use smp_load_acquire()" % (cx, p1[0].line)))

@depends on context@
expression E;
identifier fld;
position failed_reread.p2;
@@
* E->fld@p2

// ----------------------------------------------------------------------
// Join the tests with the publications of all the files.

@finalize:python depends on !context@
published << merge.published;
tests << merge.tests;
types << merge.types;
locks << merge.locks;
failed << merge.failed;
@@
def flat(lists):
	return [x for l in lists for x in l]

def name(key):
	return key[2:] if key.startswith("->") else key.split("@")[0]

typeof = {}
for file, line, fld, t in flat(types):
	typeof[(file, line, "->" + fld)] = t

held = {}
for file, line, l in flat(locks):
	held.setdefault((file, line), set()).add(l)

# A published field is keyed by name and structure type; a global by
# name and file.
pubs = {}
for key, file, line, cx in sorted(set(flat(published))):
	if key.startswith("->"):
		t = typeof.get((file, line, key))
		if not t:
			continue
		key = (key, t)
	else:
		key = (key, None)
	pubs.setdefault(key, []).append((file, line, cx, held.get((file, line), set())))

if coccinelle.mode == "publishers":
	for (key, t) in sorted(pubs):
		for file, line, cx, l in pubs[(key, t)]:
			print("%s %s %s:%d %s" % (key, (t or "-").replace(" ", ":"), file, line, cx))
	tests = failed = []

out = set()
for kind, key, file, line, fn in flat(tests):
	if key.startswith("->"):
		t = typeof.get((file, line, key))
		if not t:
			continue
	else:
		t = None
	ps = pubs.get((key, t), [])
	if not ps:
		continue
	publocks = set().union(*[l for _, _, _, l in ps])
	if held.get((file, line), set()) & publocks:
		continue
	pf, pl, cx, _ = ps[0]
	what = name(key) if not t else "%s in %s" % (name(key), t)
	if kind == "plain":
		msg = "plain load of %s, published with %s() at %s:%d: use smp_load_acquire()" % (what, cx, pf, pl)
	else:
		msg = "READ_ONCE() of %s is only tested, so only a control dependency orders the reads of what %s() published at %s:%d: use smp_load_acquire()" % (what, cx, pf, pl)
	out.add((file, line, fn, msg))
out.update(flat(failed))

for file, line, fn, msg in sorted(out):
	if coccinelle.mode == "org":
		print("* TODO [[view:%s::face=ovl-face1::linb=%d::colb=0::cole=1][%s: %s]]" % (file, line, fn, msg))
	else:
		print("%s:%d:0-1: WARNING: %s" % (file, line, msg))
