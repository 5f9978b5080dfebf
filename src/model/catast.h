/*
 * catast.h - what the phases of the cat interpreter share: the syntax
 * tree (catparse.c), its scoping and schedule (catresolve.c), values and
 * evaluation (cateval.c) and the predefined names (catprim.c).
 *
 * The model is read-only once loaded: what evaluation writes, down to
 * its marks on the syntax tree, is in an evaluation (struct cat_eval),
 * one per thread, indexed by the numbers of the slots, statements and
 * expressions.
 */
#ifndef LKMM_CATAST_H
#define LKMM_CATAST_H

#include <stdbool.h>

#include "model.h"
#include "base/base.h"

/* ---- Syntax ---- */

enum cat_expr_kind {
	X_VAR,			/* name */
	X_TAG,			/* 'name */
	X_ZERO,			/* 0: the empty relation */
	X_EMPTY,		/* {}: empty, of any type */
	X_UNIV,			/* _: every event */
	X_SET,			/* {e, ...} */
	X_TUPLE,		/* (e, ...) */
	X_UNION, X_SEQ,		/* n-ary | and ; */
	X_INTER, X_DIFF, X_CART, X_ADD,	/* & \ * ++ */
	X_COMP, X_INV, X_PLUS, X_STAR, X_OPT, X_TOID,	/* ~ ^-1 + * ? [] */
	X_APP,			/* args[0] applied to args[1] */
	X_FUN,			/* fun pat -> body */
	X_LET, X_LETREC,	/* let binds in args[0] */
	X_TRY,			/* try args[0] with args[1] */
};

/* A binding pattern: one name, or a tuple of names; NULL stands for _. */
struct cat_pat {
	int n;
	const char **names;
	bool tuple;
};

struct cat_bind;

struct cat_expr {
	enum cat_expr_kind kind;
	struct srcpos pos;
	const char *name;	/* X_VAR, X_TAG: interned */
	int slot;		/* X_VAR: global slot, -1 for a local name */
	int n;
	struct cat_expr **args;
	struct cat_pat param;	/* X_FUN */
	struct cat_bind *binds;	/* X_LET, X_LETREC */
	int nbinds;
	bool use_handler;	/* X_TRY: args[0] has an unbound name */
	int id;			/* its number: its marks in an evaluation (expr_marks) */
};

struct cat_bind {
	struct srcpos pos;
	struct cat_pat pat;
	struct cat_expr *e;
	int slot;		/* top level: slot of pat.names[0], then next */
};

enum cat_test { TEST_ACYCLIC, TEST_IRREFLEXIVE, TEST_EMPTY };

enum cat_stmt_kind {
	S_LET,			/* let, and enum (a set of tags) */
	S_LETREC,
	S_WITH,			/* with x from binds[0].e */
	S_CHECK,		/* a test that rejects */
	S_FLAG,			/* a test that raises a flag */
};

struct cat_stmt {
	enum cat_stmt_kind kind;
	struct srcpos pos;
	struct cat_bind *binds;
	int nbinds;
	enum cat_test test;	/* S_CHECK, S_FLAG */
	bool negated;		/* ~acyclic etc. */
	struct cat_expr *e;
	const char *name;	/* as NAME, or NULL */
	int index;		/* position in the source, then the invariants' */
	int level;		/* LEVEL_STATIC, LEVEL_EXECUTION, or past a with: the text's */
	int end_slot;		/* its bindings have the slots before this */
};

/* ---- Values ---- */

enum cat_value_kind {
	V_EMPTY,		/* {}: empty of any type */
	V_SET, V_REL, V_EVENT, V_PAIR, V_TAG,
	V_TUPLE, V_VALSET,	/* items */
	V_CLO, V_PRIM,
	V_CROSS,		/* cross(items), enumerated lazily by `with` */
	V_LINS,			/* linearisations(set, order), listed lazily */
};

struct cat_frame;
struct cat_value;

struct cat_eval;

typedef struct cat_value *cat_prim_fn(struct cat_eval *ev,
				       struct cat_value **args, struct srcpos pos);

struct cat_value {
	enum cat_value_kind kind;
	bool rows_sought;	/* a static set's or relation's rows looked for */
	union {
		/*
		 * rows, where known: events of a set (its members, or more)
		 * or of a relation (its rows with a pair, or more), a bit an
		 * event, that a sequence visits instead of all.  Found for
		 * static values (rows_of() in cateval.c), passed on by what
		 * filters, sequences and unions make of them; NULL
		 * otherwise.  A set or relation is not changed once its
		 * value has rows.
		 */
		struct {
			union {
				struct set *set;
				struct rel *rel;
			};
			const uint64_t *rows;
		};
		int ev;
		struct { int a, b; } pair;
		const char *tag;
		struct { int n; struct cat_value **items; } list;
		/* V_LINS: its set, and the order restricted to it, closed */
		struct { struct set *set; struct rel *order; } lins;
		struct { const struct cat_expr *fun; struct cat_frame *env; } clo;
		struct {
			cat_prim_fn *fn;
			int arity, nargs;	/* curried: args so far */
			struct cat_value **args;
		} prim;
	} u;
};

/* Local names (parameters, inner lets) of a running function body. */
struct cat_frame {
	const char *name;
	struct cat_value *val;
	struct cat_frame *up;
};

/* ---- The model ---- */

/*
 * How long a value holds: for one event structure (the events and their
 * po, dependencies, rmw), one execution (rf, FW), or one choice of the
 * n-th `with` (level LEVEL_EXECUTION + n).  Each level has a generation,
 * bumped when what it depends on changes, and an arena, reset then.
 */
enum { LEVEL_STATIC, LEVEL_EXECUTION };

/* Where a predefined slot gets its value from. */
struct cat_predef {
	const char *name;
	struct cat_value *(*compute)(struct cat_eval *ev, const char *arg);
	const char *arg;	/* e.g. the tag of a tag set */
	int level;
};

struct cat_slot {
	const char *name;
	int level;		/* as the text says (an evaluation's may be lower) */
	const struct cat_predef *predef;	/* NULL for a let or with */
	struct cat_stmt *definer;		/* the statement binding it */
};

/* How many prefixes of one member of a cross were judged, how many cut. */
struct prefix_tally {
	long checks, cuts;
};

/* Bump allocation, reset all at once. */
struct cat_arena {
	struct vec blocks;
	int cur;		/* block in use */
	unsigned char *next;	/* its first byte free, NULL if none is in use... */
	size_t left;		/* ...and how many are */
};

/*
 * The value of a term that varies less than the statement it is part of,
 * for this event structure: kept for a generation of its level.
 */
struct cat_kept {
	int level;
	unsigned long gen;	/* ev->gens[level] when v was computed; 0: never */
	struct cat_value *v;
};

/*
 * An answer of classes-loc(S), kept for the event structure: it reads
 * only S and the events' locations.  The first few sets asked are kept,
 * in the static arena, so that the arena stays bounded.
 */
enum { CLASSES_KEPT = 4 };
struct classes_kept {
	struct set *s;
	struct cat_value *classes;
};

/*
 * The sets a `with` chooses from, kept from one execution to the next
 * for the values they are made of (cateval.c's with_domain()): its
 * inputs are the slots its text reads that are not static; what it reads
 * through functions is static (a function's level is its body's).  Each
 * set lives in an arena of its own, with copies of the inputs' values it
 * was made from.
 */
enum { WITH_INPUTS = 4, WITH_KEPT = 64 };
struct with_kept {
	uint64_t hash;				/* of the keys (inputs_hash()) */
	struct cat_value *keys[WITH_INPUTS];	/* the inputs' values coll was made of */
	struct cat_value *coll;			/* NULL: none kept */
	struct rel *bound;			/* a cross's: what every choice holds */
	unsigned long used;			/* when last found (with_memo.clock) */
};

struct with_memo {
	unsigned long static_gen;	/* inputs found for this structure... */
	bool usable;			/* ...and whether the sets may be kept */
	int inputs[WITH_INPUTS], ninputs;
	struct with_kept kept[WITH_KEPT];
	int last;			/* the one found last, tried first */
	unsigned long clock;
};

/* A static value the level analysis read, and whether it was empty. */
struct level_read {
	int slot;
	bool empty;
};

/*
 * A past level analysis (catlevel.c): the static values it read, with
 * their answers, and the marks and levels it left, which hold again for
 * any event structure that answers alike.
 */
enum { LEVEL_MEMOS = 4 };

struct level_memo {
	struct level_read *reads;
	int nreads;
	struct expr_marks *marks;	/* by cat_expr.id */
	int *slot_levels;		/* by slot */
	int *stmt_levels;		/* by cat_stmt.index */
	int *kept_levels;		/* by entry of ev->kept */
	int nkept;
	bool *prunes;			/* catmono.c's answer for these marks, by cat_stmt.index... */
	bool has_prunes;		/* ...once it has been worked out */
	unsigned long name;		/* cat_level_in_place()'s, 0 while being made */
};

/*
 * An event structure left for another, with what was computed of it
 * (cateval.c's enter()): its static values, in their arena, and the
 * levels and kept terms of its analysis, whose marks catlevel.c keeps
 * under the name `analysis`.  Tests have few kinds of run, and their
 * combinations come back to a structure (the generated tests: of 4,692
 * new structures, 2,726 are taken back with 4 kept).
 */
enum { STRUCTURES_KEPT = 4 };

struct structure_kept {
	struct shape *shape;		/* NULL: none kept here */
	struct slot_state *slots;	/* as struct cat_eval's */
	struct stmt_state *stmts;
	struct cat_kept *kept;
	int nkept, kept_cap;
	struct cat_arena arena;		/* its static level's */
	struct set *all;
	unsigned long gen;		/* its static generation */
	unsigned long analysis;		/* cat_level_in_place() */
	unsigned long left;		/* when it was left (cat_eval.structures_left) */
};

/*
 * The model as loaded, read-only from then on: the strings, statements
 * and trees live in the syntax arena, or, for a model read back from the
 * cache (modelimage.c), in the image its caller owns, mapped read-only;
 * the vectors and arrays are the model's own (malloc), either way.  A
 * pointer field added to the syntax needs its line in modelimage.c,
 * which copies the model into an image.
 */
struct cat_model {
	char *dir;
	const struct model_spec *spec;	/* while cat_load() reads the files, else NULL */
	char *macros;		/* the cfg's macros file, as a path */
	struct vec names;	/* interned strings */
	int *name_index;	/* hash table of names: index + 1, 0 when free */
	size_t name_slots;	/* its size, a power of two */
	struct vec files;	/* file names, for srcpos */
	struct vec texts;	/* file contents as read (for the cache's key), for freeing */
	struct vec bell_tags;	/* annotations declared by `instructions` */
	struct vec variants;	/* set by -variant and the cfg: interned, lower case */
	struct vec enums;	/* while parsing: the enums seen (freed with the syntax) */
	struct cat_predef *tag_sets;	/* their event sets */
	struct arena syntax;	/* the statements, their trees, the strings */
	struct vec stmts;	/* every statement, includes spliced in */
	struct vec invariants;	/* lets made of parts of statements */
	struct vec steps;	/* checks and withs, in the order to run them */
	struct vec flag_stmts;	/* flags, by level */
	struct cat_slot *slots;
	int nslots;
	int nlevels;
	int nexprs;		/* expressions made (cat_new_expr()) */
};

/* A slot in an evaluation: its value, valid for a generation of its level. */
struct slot_state {
	struct cat_value *val;
	unsigned long gen;
	int level;		/* for this event structure (catlevel.c) */
};

/* A statement in an evaluation. */
struct stmt_state {
	unsigned long gen;	/* checks, flags: `holds` is valid for this... */
	int level;		/* ...generation of their level (catlevel.c's) */
	bool holds;
	bool prunes;		/* checks: can judge a partial execution (catmono.c) */
};

/* What catlevel.c found of an expression, for this event structure. */
struct expr_marks {
	bool empty_here;	/* {} here */
	bool empty_set;		/* ...and an event set: ~ must see a set, not {} */
	int kept;		/* 1 + its entry in ev->kept, or 0 */
};

/*
 * One evaluation of a model, for one thread at a time: the execution at
 * hand, the values computed for it, and what the analyses of its event
 * structure found (catlevel.c, catmono.c).  Any number of evaluations
 * share one model.
 */
struct cat_eval {
	const struct cat_model *m;
	struct slot_state *slots;	/* by slot */
	struct stmt_state *stmts;	/* by cat_stmt.index */
	struct expr_marks *marks;	/* by cat_expr.id: a level memo's, made or put in place */

	/* Values are computed when first needed. */
	struct shape *shape;		/* what the static values are of (enter()) */
	unsigned long structure;	/* ...and the structure it was taken from */
	const struct execution *x;
	/* x's events, and the bytes of a set and a relation of them: sized once, in enter() */
	int nevents, words;
	size_t set_size, rel_size;
	unsigned long *gens;		/* level -> generation */
	unsigned long last_gen;		/* the last generation given (renew_levels()) */
	struct cat_arena *arenas;	/* level -> its arena; then WITH_KEPT a level: its with's kept sets' */
	struct with_memo *memos;	/* by the level of their with */
	int arena;			/* the one allocating */
	struct set *all;		/* every event */
	const struct cat_visitor *visitor;
	struct vec flags;
	const struct cat_stmt *failed;	/* the check being rejected, if any */
	unsigned long mono_gen;		/* static generation `prunes` is for */
	struct prefix_tally *tallies;	/* by member of a cross (member_key()), then by reads
					   read from (cat_partial_fails()), this structure */

	/*
	 * What cat_level_analyse() last read of static values, in order
	 * (catlevel.c): the marks and levels it left hold while every one
	 * reads the same.
	 */
	struct level_read *level_reads;
	int nlevel_reads, level_reads_cap;
	bool levels_known;
	unsigned char *level_states;	/* the slots' states an analysis starts from */
	struct level_memo level_memos[LEVEL_MEMOS];	/* analyses before the last */
	int next_level_memo;		/* the one to replace next */
	int level_memo_in_place;	/* the one whose marks are in place, or -1 */
	struct cat_kept *kept;		/* terms kept apart, by expr_marks.kept */
	int nkept, kept_cap;
	unsigned long last_analysis;	/* the last level_memo.name given */
	struct classes_kept classes[CLASSES_KEPT];	/* classes-loc's answers (catprim.c)... */
	int nclasses;
	unsigned long classes_gen;	/* ...for this static generation */
	struct structure_kept structures[STRUCTURES_KEPT];
	unsigned long structures_left;	/* how many times a structure was left */
};

static inline struct stmt_state *stmt_state(struct cat_eval *ev, const struct cat_stmt *s)
{
	return &ev->stmts[s->index];
}

static inline struct expr_marks *expr_marks(struct cat_eval *ev, const struct cat_expr *e)
{
	return &ev->marks[e->id];
}

/* The library files built into the binary (generated by src/model/lib.mk). */
struct cat_libfile {
	const char *name;
	const char *text;
};
extern const struct cat_libfile cat_lib_files[];
extern const int cat_lib_nfiles;

/* catparse.c */
const char *cat_intern(struct cat_model *m, const char *s, size_t len);
void cat_parse_cfg(struct cat_model *m, const struct model_spec *spec);
void cat_free_syntax(struct cat_model *m);
/*
 * Call fn on each file the load read, in order: its path and text, or
 * for a file of our library, the path tried first in the model directory
 * (which could not be read) and NULL.
 */
void cat_each_source(struct cat_model *m,
		     void (*fn)(void *arg, const char *path, const char *text), void *arg);
/* A new expression of m's syntax, numbered, with room for n operands. */
struct cat_expr *cat_new_expr(struct cat_model *m, enum cat_expr_kind kind, struct srcpos pos,
			      int n);

/* catresolve.c: scope names to slots, give them levels, order the steps. */
void cat_resolve(struct cat_model *m);

/* cateval.c: values, allocated for the current run */
struct cat_value *cat_new_value(struct cat_eval *ev, enum cat_value_kind kind);
struct cat_value *cat_new_set(struct cat_eval *ev);
struct cat_value *cat_new_rel(struct cat_eval *ev);
struct cat_value *cat_apply(struct cat_eval *ev, struct cat_value *f,
			    struct cat_value *arg, struct srcpos pos);
struct cat_value *cat_add(struct cat_eval *ev, struct cat_value *v,
			  struct cat_value *coll, struct srcpos pos);
struct cat_value *cat_valset(struct cat_eval *ev, struct vec *items);
struct cat_value *cat_valset_of(struct cat_eval *ev, struct cat_value *item);	/* {item} */
struct set *cat_as_set(struct cat_eval *ev, struct cat_value *v,
		       struct srcpos pos);
struct rel *cat_as_rel(struct cat_eval *ev, struct cat_value *v,
		       struct srcpos pos);
/* The value of a top-level slot, computed if need be. */
struct cat_value *cat_slot_value(struct cat_eval *ev, int slot);

/* Whether v is {}, or an empty event set or relation. */
static inline bool cat_is_empty(const struct cat_value *v)
{
	return v->kind == V_EMPTY || (v->kind == V_SET && set_is_empty(v->u.set)) ||
	       (v->kind == V_REL && rel_is_empty(v->u.rel));
}

/* Call each() on every member of a set, relation or set of values. */
void cat_each_member(struct cat_eval *ev, struct cat_value *coll,
		     struct srcpos pos,
		     void (*each)(struct cat_eval *ev, struct cat_value *v,
				  void *arg), void *arg);

/*
 * catlevel.c: mark the terms empty for the event structure of ev->x and
 * lower the levels of what only reads others through them.  The static
 * values it reads come from slot_value (the evaluator, above it).
 */
typedef struct cat_value *(*cat_slot_reader)(struct cat_eval *ev, int slot);
void cat_level_analyse(struct cat_eval *ev, cat_slot_reader slot_value);
/*
 * The analyses kept by their answers, made with the evaluation (their
 * marks are the ones in place: ev->marks) and freed with it.
 */
void cat_level_memos_new(struct cat_eval *ev);
void cat_level_memos_free(struct cat_eval *ev);
/*
 * catmono.c's answer depends on the marks alone: kept with the analysis
 * in place, and put back with it.  Whether there was one to put back.
 */
bool cat_level_prunes_restore(struct cat_eval *ev);
void cat_level_prunes_keep(struct cat_eval *ev);
/*
 * The analysis in place, named so that it can be put back with a
 * structure left for another (the levels it set go with the structure):
 * 0 where there is none whole.  Whether one named is still kept, and
 * putting it back: its marks and reads, as they were when it was named.
 */
unsigned long cat_level_in_place(const struct cat_eval *ev);
bool cat_level_still_kept(const struct cat_eval *ev, unsigned long analysis);
void cat_level_put_back(struct cat_eval *ev, unsigned long analysis);

/* Whether keeping e's value apart saves work: [S] stays a filter (see eval), a name is kept already. */
static inline bool cat_worth_keeping(const struct cat_expr *e)
{
	switch (e->kind) {
	case X_VAR: case X_TAG: case X_ZERO: case X_EMPTY: case X_UNIV:
	case X_TOID:
		return false;
	default:
		return true;
	}
}

/* catmono.c: set `prunes` of the steps, for the event structure of ev->x. */
void cat_mono_analyse(struct cat_eval *ev);

/* catprim.c: fill defs with the predefined names (struct cat_predef). */
void cat_predefine(struct cat_model *m, struct vec *defs);

#endif
