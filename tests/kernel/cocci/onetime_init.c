// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture for scripts/coccinelle/locks/onetime_init.cocci (tests/kernel/cocci.t):
 * each function is one recipe of "One-time init" in recipes.txt, correct
 * or broken.  onetime_init.expected lists the reports, by line; a report
 * is expected exactly on the lines marked BAD.
 */

struct foo { int x; };
struct holder {
	struct foo *plain;	/* cmpxchg(), plain fast path */
	struct foo *good;	/* cmpxchg_release(), smp_load_acquire() */
	struct foo *ctrl;	/* smp_store_release(), READ_ONCE() tested */
	struct foo *loser;	/* cmpxchg(), the loser uses the old value */
	struct foo *reread;	/* cmpxchg(), the loser rereads the pointer */
	struct foo *owner;	/* cmpxchg() of an object not allocated here */
};

static struct foo *global_foo;

static int init_plain(struct holder *h)
{
	struct foo *old, *p = alloc_foo();

	if (!p)
		return -ENOMEM;
	old = cmpxchg(&h->plain, NULL, p);
	if (old)
		free_foo(p);
	return 0;
}

int use_plain(struct holder *h)
{
	if (!h->plain && init_plain(h))		/* BAD */
		return -ENOMEM;
	return h->plain->x;
}

void teardown_plain(struct holder *h)
{
	if (h->plain) {
		free_foo(h->plain);
		h->plain = NULL;
	}
}

struct foo *get_good(struct holder *h)
{
	struct foo *p = smp_load_acquire(&h->good);

	if (p)
		return p;
	p = alloc_foo();
	if (!p)
		return NULL;
	if (cmpxchg_release(&h->good, NULL, p)) {
		free_foo(p);
		p = smp_load_acquire(&h->good);
	}
	return p;
}

int init_ctrl(struct holder *h)
{
	struct foo *p;

	if (READ_ONCE(h->ctrl))			/* BAD */
		return 0;
	p = alloc_foo();
	if (!p)
		return -ENOMEM;
	smp_store_release(&h->ctrl, p);
	return 0;
}

struct foo *get_loser(struct holder *h)
{
	struct foo *old, *p = alloc_foo();

	if (!p)
		return NULL;
	old = cmpxchg(&h->loser, NULL, p);
	if (old) {
		free_foo(p);
		return old;			/* BAD */
	}
	return p;
}

struct foo *get_reread(struct holder *h)
{
	struct foo *p = alloc_foo();

	if (!p)
		return NULL;
	if (cmpxchg(&h->reread, NULL, p)) {
		free_foo(p);
		p = READ_ONCE(h->reread);	/* BAD */
	}
	return p;
}

bool claim(struct holder *h, struct foo *me)
{
	return !cmpxchg(&h->owner, NULL, me);
}

bool claimed(struct holder *h)
{
	return h->owner != NULL;
}

int global_init(void)
{
	struct foo *p;

	if (global_foo)				/* BAD */
		return 0;
	p = alloc_foo();
	if (!p)
		return -ENOMEM;
	if (cmpxchg(&global_foo, NULL, p))
		free_foo(p);
	return 0;
}

struct other {
	struct foo *plain;	/* same name, another structure */
};

int other_plain(struct other *o)
{
	if (!o->plain)
		return -ENOENT;
	return o->plain->x;
}
