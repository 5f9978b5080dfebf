/*
 * modelimage.c - a loaded model (its statements and trees, interned
 * names, slots) and the macros of its .def file as one block of memory
 * that a later process can take up without parsing: the payload of the
 * model cache (modelcache.c).
 *
 * The writer copies every object reachable from the model into one
 * buffer, once each: a table from (address, kind) to the copy keeps
 * shared objects shared, and the interned names pointer-equal, as the
 * interpreter compares them by address.  Each pointer in a copy is
 * replaced by its target's offset in the buffer and its place noted:
 * image_rebase() then makes the pointers right for the address the
 * image will be at, and the objects are the model's own again with no
 * parsing and no allocation per node.
 *
 * The copies are the structures' bytes (catast.h, litmus.h), so a field
 * that is not a pointer needs nothing here; a pointer field needs its
 * line below, or it would hold an address of the process that wrote the
 * image.  What points outside the model (the predefined names' table in
 * catprim.c, with its functions) is not copied but made again on reading.
 */
#include "modelimage.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "catast.h"
#include "litmus/litmus.h"

/* What the copy of an address is, for the table of those written. */
enum kind {
	K_ROOT, K_STRING, K_POINTERS, K_INTS, K_SLOTS,
	K_CAT_EXPR, K_CAT_BINDS, K_CAT_STMT, K_MACROS, K_EXPR, K_STMT,
};

/* Where the image starts: the model's and the macros' parts that are not the files' texts. */
struct image_root {
	struct vec names, files, bell_tags, variants, stmts, invariants, steps, flag_stmts;
	int *name_index;
	size_t name_slots;
	struct cat_slot *slots;
	int nslots, nlevels, nexprs, npredefs;
	char *macros_path;
	struct macro *macros;
	int nmacros;
};

/* An address already written: its kind and where its copy is. */
struct written {
	const void *p;
	enum kind kind;
	size_t at;
};

struct writer {
	struct model_image *im;
	size_t cap, reloc_cap;
	struct written *table;	/* open addressing, at most half full */
	size_t slots, used;
};

/* A pointer that stays NULL. */
#define NONE SIZE_MAX

static size_t table_slot(const struct writer *w, const void *p, enum kind kind)
{
	size_t i = ((uintptr_t)p >> 4 ^ (size_t)kind * 0x9e3779b9u) & (w->slots - 1);

	while (w->table[i].p && (w->table[i].p != p || w->table[i].kind != kind))
		i = (i + 1) & (w->slots - 1);
	return i;
}

/* Whether p was written as kind; then *at is its copy. */
static bool written(const struct writer *w, const void *p, enum kind kind, size_t *at)
{
	size_t i;

	if (!w->slots)
		return false;
	i = table_slot(w, p, kind);
	*at = w->table[i].at;
	return w->table[i].p != NULL;
}

static void remember(struct writer *w, const void *p, enum kind kind, size_t at)
{
	if (2 * (w->used + 1) > w->slots) {
		struct written *old = w->table;
		size_t n = w->slots;

		w->slots = n ? 2 * n : 1024;
		w->table = xcalloc(w->slots, sizeof(*w->table));
		for (size_t i = 0; i < n; i++)
			if (old[i].p)
				w->table[table_slot(w, old[i].p, old[i].kind)] = old[i];
		free(old);
	}
	w->table[table_slot(w, p, kind)] = (struct written){ p, kind, at };
	w->used++;
}

/*
 * A copy of size bytes at p, aligned to align, remembered as kind: its
 * offset.  An empty one is not remembered, as the next object allocated
 * may have its address.
 */
static size_t place(struct writer *w, const void *p, size_t size, size_t align, enum kind kind)
{
	struct model_image *im = w->im;
	size_t at = (im->len + align - 1) / align * align;

	if (at + size > w->cap) {
		w->cap = 2 * (at + size);
		im->bytes = xrealloc(im->bytes, w->cap);
	}
	memset(im->bytes + im->len, 0, at - im->len);
	memcpy(im->bytes + at, p, size);
	im->len = at + size;
	if (size)
		remember(w, p, kind, at);
	return at;
}

/*
 * The copy of the object at p in *at, made with place() unless made
 * before: true when made now, so that its pointers are still to be
 * linked; false when p is NULL (*at is NONE) or was copied already.
 */
static bool place_new(struct writer *w, const void *p, size_t size, size_t align,
		      enum kind kind, size_t *at)
{
	if (!p) {
		*at = NONE;
		return false;
	}
	if (written(w, p, kind, at))
		return false;
	*at = place(w, p, size, align, kind);
	return true;
}

/* The pointer at offset field points to the copy at target (NONE: NULL). */
static void link(struct writer *w, size_t field, size_t target)
{
	struct model_image *im = w->im;
	uintptr_t value = target == NONE ? 0 : target;

	memcpy(im->bytes + field, &value, sizeof(value));
	if (target == NONE)
		return;
	if (im->nrelocs == w->reloc_cap) {
		w->reloc_cap = w->reloc_cap ? 2 * w->reloc_cap : 4096;
		im->relocs = xrealloc(im->relocs, w->reloc_cap * sizeof(*im->relocs));
	}
	im->relocs[im->nrelocs++] = (uint32_t)field;
}

/* Link the field of the object of `type` copied at `at`. */
#define LINK(at, type, field, target) link(w, (at) + offsetof(type, field), (target))

typedef size_t put_fn(struct writer *w, const void *p);

static size_t put_string(struct writer *w, const void *p)
{
	size_t at;

	place_new(w, p, p ? strlen(p) + 1 : 0, 1, K_STRING, &at);
	return at;
}

/* An array of n pointers (to any kind of object: all have one representation), each put. */
static size_t put_pointers(struct writer *w, const void *array, int n, put_fn *put)
{
	size_t at;

	if (!place_new(w, array, n * sizeof(void *), alignof(void *), K_POINTERS, &at))
		return at;
	for (int i = 0; i < n; i++) {
		const void *item;

		memcpy(&item, (const char *)array + i * sizeof(void *), sizeof(item));
		link(w, at + i * sizeof(void *), put(w, item));
	}
	return at;
}

static size_t put_vec_items(struct writer *w, const struct vec *v, put_fn *put)
{
	return put_pointers(w, v->items, v->len, put);
}

/* ---- The cat model ---- */

static size_t put_cat_expr(struct writer *w, const void *p);

static size_t put_cat_pat_names(struct writer *w, const struct cat_pat *pat)
{
	return put_pointers(w, pat->names, pat->n, put_string);
}

static size_t put_cat_binds(struct writer *w, const struct cat_bind *b, int n)
{
	size_t at;

	if (!place_new(w, b, n * sizeof(*b), alignof(struct cat_bind), K_CAT_BINDS, &at))
		return at;
	for (int i = 0; i < n; i++) {
		size_t item = at + i * sizeof(*b);

		LINK(item, struct cat_bind, pos.file, put_string(w, b[i].pos.file));
		LINK(item, struct cat_bind, pat.names, put_cat_pat_names(w, &b[i].pat));
		LINK(item, struct cat_bind, e, put_cat_expr(w, b[i].e));
	}
	return at;
}

static size_t put_cat_expr(struct writer *w, const void *p)
{
	const struct cat_expr *e = p;
	size_t at;

	if (!place_new(w, e, sizeof(*e), alignof(struct cat_expr), K_CAT_EXPR, &at))
		return at;
	LINK(at, struct cat_expr, pos.file, put_string(w, e->pos.file));
	LINK(at, struct cat_expr, name, put_string(w, e->name));
	LINK(at, struct cat_expr, args, put_pointers(w, e->args, e->n, put_cat_expr));
	LINK(at, struct cat_expr, param.names, put_cat_pat_names(w, &e->param));
	LINK(at, struct cat_expr, binds, put_cat_binds(w, e->binds, e->nbinds));
	return at;
}

static size_t put_cat_stmt(struct writer *w, const void *p)
{
	const struct cat_stmt *s = p;
	size_t at;

	if (!place_new(w, s, sizeof(*s), alignof(struct cat_stmt), K_CAT_STMT, &at))
		return at;
	LINK(at, struct cat_stmt, pos.file, put_string(w, s->pos.file));
	LINK(at, struct cat_stmt, binds, put_cat_binds(w, s->binds, s->nbinds));
	LINK(at, struct cat_stmt, e, put_cat_expr(w, s->e));
	LINK(at, struct cat_stmt, name, put_string(w, s->name));
	return at;
}

/* The slots; a predefined one's table entry is made again on reading. */
static size_t put_slots(struct writer *w, const struct cat_slot *slots, int n)
{
	size_t at = place(w, slots, n * sizeof(*slots), alignof(struct cat_slot), K_SLOTS);

	for (int i = 0; i < n; i++) {
		size_t item = at + i * sizeof(*slots);

		LINK(item, struct cat_slot, name, put_string(w, slots[i].name));
		LINK(item, struct cat_slot, predef, NONE);
		LINK(item, struct cat_slot, definer, put_cat_stmt(w, slots[i].definer));
	}
	return at;
}

/* How many slots are predefined: the first ones, or -1 if not only they. */
static int count_predefs(const struct cat_model *m)
{
	int n = 0;

	while (n < m->nslots && m->slots[n].predef)
		n++;
	for (int i = n; i < m->nslots; i++)
		if (m->slots[i].predef)
			return -1;
	return n;
}

/* ---- The macros ---- */

static size_t put_strings(struct writer *w, char *const *strings, int n)
{
	return put_pointers(w, strings, n, put_string);
}

static size_t put_expr(struct writer *w, const void *p)
{
	const struct expr *e = p;
	size_t at;

	if (!place_new(w, e, sizeof(*e), alignof(struct expr), K_EXPR, &at))
		return at;
	LINK(at, struct expr, pos.file, put_string(w, e->pos.file));
	LINK(at, struct expr, name, put_string(w, e->name));
	LINK(at, struct expr, annot.tags, put_strings(w, e->annot.tags, e->annot.n));
	LINK(at, struct expr, args, put_pointers(w, e->args, e->nargs, put_expr));
	return at;
}

static size_t put_stmt(struct writer *w, const void *p)
{
	const struct stmt *s = p;
	size_t at;

	if (!place_new(w, s, sizeof(*s), alignof(struct stmt), K_STMT, &at))
		return at;
	LINK(at, struct stmt, pos.file, put_string(w, s->pos.file));
	LINK(at, struct stmt, name, put_string(w, s->name));
	LINK(at, struct stmt, type, put_string(w, s->type));
	LINK(at, struct stmt, annot.tags, put_strings(w, s->annot.tags, s->annot.n));
	LINK(at, struct stmt, args, put_pointers(w, s->args, s->nargs, put_expr));
	LINK(at, struct stmt, body, put_pointers(w, s->body, s->nbody, put_stmt));
	return at;
}

static size_t put_macros(struct writer *w, const struct macro *macros, int n)
{
	size_t at;

	if (!macros)
		return NONE;
	at = place(w, macros, n * sizeof(*macros), alignof(struct macro), K_MACROS);
	for (int i = 0; i < n; i++) {
		const struct macro *m = &macros[i];
		size_t item = at + i * sizeof(*m);

		LINK(item, struct macro, name, put_string(w, m->name));
		LINK(item, struct macro, pos.file, put_string(w, m->pos.file));
		LINK(item, struct macro, params, put_strings(w, m->params, m->nparams));
		LINK(item, struct macro, expr, put_expr(w, m->expr));
		LINK(item, struct macro, body, put_stmt(w, m->body));
	}
	return at;
}

/* ---- Writing and reading ---- */

/* The root's vectors and arrays, each linked to its copy. */
static void put_root_parts(struct writer *w, const struct cat_model *m,
			   const struct macro_table *macros)
{
	/* The names first: they are looked up together. */
	LINK(0, struct image_root, names.items, put_vec_items(w, &m->names, put_string));
	LINK(0, struct image_root, files.items, put_vec_items(w, &m->files, put_string));
	LINK(0, struct image_root, bell_tags.items, put_vec_items(w, &m->bell_tags, put_string));
	LINK(0, struct image_root, variants.items, put_vec_items(w, &m->variants, put_string));
	LINK(0, struct image_root, stmts.items, put_vec_items(w, &m->stmts, put_cat_stmt));
	LINK(0, struct image_root, invariants.items,
	     put_vec_items(w, &m->invariants, put_cat_stmt));
	LINK(0, struct image_root, steps.items, put_vec_items(w, &m->steps, put_cat_stmt));
	LINK(0, struct image_root, flag_stmts.items,
	     put_vec_items(w, &m->flag_stmts, put_cat_stmt));
	LINK(0, struct image_root, name_index,
	     place(w, m->name_index, m->name_slots * sizeof(int), alignof(int), K_INTS));
	LINK(0, struct image_root, slots, put_slots(w, m->slots, m->nslots));
	LINK(0, struct image_root, macros_path, put_string(w, m->macros));
	LINK(0, struct image_root, macros, put_macros(w, macros->macros, macros->n));
}

bool image_write(const struct loaded_model *lm, struct model_image *out)
{
	const struct cat_model *m = lm->model;
	struct image_root root = {
		m->names, m->files, m->bell_tags, m->variants, m->stmts, m->invariants, m->steps,
		m->flag_stmts, NULL, m->name_slots, NULL, m->nslots, m->nlevels, m->nexprs,
		count_predefs(m), NULL, NULL, lm->macros->n,
	};
	struct writer w = { .im = out };

	memset(out, 0, sizeof(*out));
	if (root.npredefs < 0)
		return false;
	place(&w, &root, sizeof(root), alignof(struct image_root), K_ROOT);
	put_root_parts(&w, m, lm->macros);
	free(w.table);
	if (out->len > UINT32_MAX) {
		image_free(out);
		return false;
	}
	return true;
}

void image_free(struct model_image *im)
{
	free(im->bytes);
	free(im->relocs);
	memset(im, 0, sizeof(*im));
}

bool image_rebase(char *bytes, size_t len, uintptr_t from, uintptr_t to, const void *relocs,
		  size_t nrelocs)
{
	for (size_t i = 0; i < nrelocs; i++) {
		uint32_t at;
		uintptr_t p;

		memcpy(&at, (const char *)relocs + i * sizeof(at), sizeof(at));
		if (at % alignof(void *) || at > len || len - at < sizeof(p))
			return false;
		memcpy(&p, bytes + at, sizeof(p));
		if (p - from > len)
			return false;
		p = p - from + to;
		memcpy(bytes + at, &p, sizeof(p));
	}
	return true;
}

static void *own_copy(const void *p, size_t size)
{
	void *copy = xmalloc(size);

	if (size)	/* an empty vector has no items: p may be NULL */
		memcpy(copy, p, size);
	return copy;
}

/* A vector of the model's own, holding the image's items. */
static struct vec own_vec(const struct vec *v)
{
	return (struct vec){ own_copy(v->items, v->len * sizeof(*v->items)), v->len, v->len };
}

/* The predefined names' table entries (catprim.c), as cat_resolve() gave them. */
static bool predefine_again(struct cat_model *m, int npredefs)
{
	struct vec defs = { 0 };
	bool same;

	cat_predefine(m, &defs);
	same = defs.len == npredefs && npredefs <= m->nslots;
	for (int i = 0; same && i < npredefs; i++) {
		const struct cat_predef *def = defs.items[i];

		same = m->slots[i].name == cat_intern(m, def->name, strlen(def->name));
		m->slots[i].predef = def;
	}
	vec_free(&defs);
	return same;
}

bool image_read(char *bytes, size_t len, const char *model_dir, struct loaded_model *lm)
{
	struct image_root *root = (struct image_root *)bytes;
	struct cat_model *m;

	if (len < sizeof(*root))
		return false;
	m = xcalloc(1, sizeof(*m));
	m->dir = xstrdup(model_dir);
	m->macros = root->macros_path;
	m->names = own_vec(&root->names);
	m->name_index = own_copy(root->name_index, root->name_slots * sizeof(int));
	m->name_slots = root->name_slots;
	m->files = own_vec(&root->files);
	m->bell_tags = own_vec(&root->bell_tags);
	m->variants = own_vec(&root->variants);
	m->stmts = own_vec(&root->stmts);
	m->invariants = own_vec(&root->invariants);
	m->steps = own_vec(&root->steps);
	m->flag_stmts = own_vec(&root->flag_stmts);
	m->slots = own_copy(root->slots, root->nslots * sizeof(*m->slots));
	m->nslots = root->nslots;
	m->nlevels = root->nlevels;
	m->nexprs = root->nexprs;
	if (!predefine_again(m, root->npredefs)) {
		cat_free(m);
		return false;
	}
	lm->model = m;
	lm->macros = xcalloc(1, sizeof(*lm->macros));
	lm->macros->n = root->nmacros;
	lm->macros->macros = root->macros;
	return true;
}
