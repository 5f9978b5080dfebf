// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture for scripts/coccinelle/locks/onetime_init.cocci (tests/kernel/cocci.t):
 * each function is one recipe of "One-time init" in recipes.txt, correct
 * or broken.  onetime_init.expected lists the reports, by line; a report
 * is expected exactly on the lines marked BAD.  No lazy_init: the
 * correct shapes are open-coded.
 */

struct foo { int x; };
struct holder {
	struct foo *plain;	/* cmpxchg(), plain fast path */
	struct foo *good;	/* cmpxchg_release(), smp_load_acquire() */
	struct foo *ctrl;	/* smp_store_release(), READ_ONCE() tested */
	struct foo *loser;	/* cmpxchg(), the loser uses the old value */
	struct foo *reread;	/* cmpxchg(), the loser rereads the pointer */
	struct foo *owner;	/* cmpxchg() of an object not allocated here */
	struct foo *plainre;	/* cmpxchg(), the loser rereads with a plain load */
	struct foo *locked;	/* smp_store_release() under a mutex, tested under it */
	struct mutex lock;
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
		return old;	/* address dependency: not reported */
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
		p = READ_ONCE(h->reread);	/* marked: not reported */
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

struct foo *get_plainre(struct holder *h)
{
	struct foo *p = alloc_foo();

	if (!p)
		return NULL;
	if (cmpxchg(&h->plainre, NULL, p)) {
		free_foo(p);
		p = h->plainre;			/* BAD */
	}
	return p;
}

/* Double-checked under the publisher's mutex: the test under it is fine. */
struct foo *get_locked(struct holder *h)
{
	struct foo *p = smp_load_acquire(&h->locked);

	if (p)
		return p;
	mutex_lock(&h->lock);
	if (!h->locked) {
		p = alloc_foo();
		if (p)
			smp_store_release(&h->locked, p);
	}
	mutex_unlock(&h->lock);
	return smp_load_acquire(&h->locked);
}

/* Same field name, a list of another type: not the same pointer. */
struct node { struct node *next; };
struct chain { struct chain *next; };

void push(struct node *n)
{
	struct node *m = alloc_node();

	smp_store_release(&n->next, m);
}

int chain_has_next(struct chain *c)
{
	return c->next != NULL;
}
