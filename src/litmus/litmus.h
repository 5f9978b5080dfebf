/*
 * litmus.h - a parsed litmus test: the init section, one statement tree per
 * process, and the final condition.  parse.c builds it; expand.c rewrites
 * the macro calls in it into herd7's primitives; events.c runs it.
 */
#ifndef LKMM_LITMUS_H
#define LKMM_LITMUS_H

#include <stdbool.h>

#include "base/base.h"

enum expr_kind {
	X_CONST,	/* integer constant */
	X_NAME,		/* a register, parameter or global, by name */
	X_ADDR_OF,	/* &name */
	X_LOAD,		/* memory load: arg[0] is the address (*e, __load) */
	X_UNARY,	/* op is '-', '!' or '~' */
	X_BINARY,	/* op is a token code, see enum binop */
	X_CALL,		/* a macro call, until expand.c replaces it */
	X_XCHG,		/* __xchg{annot}(addr, value) */
	X_CMPXCHG,	/* __cmpxchg{annot}(addr, old, new) */
	X_ATOMIC_RETURN,/* __atomic_op_return / __atomic_fetch_op */
	X_ADD_UNLESS,	/* __atomic_add_unless{annot}(addr, add, unless) */
	X_TRYLOCK,	/* __trylock(addr) */
	X_ISLOCKED,	/* __islocked(addr) */
	X_SRCU,		/* __srcu{annot}(addr) used as a value */
};

enum binop {
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_AND, OP_OR, OP_XOR,
	OP_SHL, OP_SHR, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
	OP_LAND, OP_LOR,
	OP_ANDNOT,	/* &~: an operator of __atomic_op and friends only */
};

/* Annotations in braces, e.g. {once} or {mb}: herd7's tags. */
struct annot {
	int n;
	char **tags;
};

struct expr {
	enum expr_kind kind;
	struct srcpos pos;
	long long value;	/* X_CONST */
	char *name;		/* X_NAME, X_ADDR_OF, X_CALL */
	int op;			/* X_UNARY, X_BINARY, and the RMW operator */
	bool fetch;		/* X_ATOMIC_RETURN: return the old value */
	struct annot annot;
	int nargs;
	struct expr **args;
};

enum stmt_kind {
	S_BLOCK,	/* { body } */
	S_DECL,		/* a local declaration without initializer */
	S_ASSIGN,	/* name = value, or value alone when name is NULL */
	S_STORE,	/* memory store: args[0] address, args[1] value */
	S_IF,		/* if (cond) then [else] */
	S_WHILE,	/* while (cond) body */
	S_CALL,		/* a procedure macro call, until expanded */
	S_FENCE,	/* __fence{annot} */
	S_LOCK,		/* __lock(addr) */
	S_UNLOCK,	/* __unlock(addr) */
	S_ATOMIC_OP,	/* __atomic_op(addr, op, value) */
	S_SRCU,		/* __srcu{annot}(addr[, value]) */
};

struct stmt {
	enum stmt_kind kind;
	struct srcpos pos;
	char *name;		/* S_ASSIGN target, S_DECL and S_CALL name */
	char *type;		/* S_DECL: the declared type, e.g. "int *" */
	struct annot annot;
	int op;			/* S_ATOMIC_OP operator */
	int nargs;
	struct expr **args;	/* operands; S_IF/S_WHILE: args[0] is cond */
	int nbody;
	struct stmt **body;	/* S_BLOCK body; S_IF: then, else (may be NULL) */
};

/* An initial value: an integer or the address of a global. */
struct init_value {
	bool is_addr;
	long long n;
	char *addr_of;		/* name of the global when is_addr */
	char *spelling;		/* as written ("0x10", "-1", "x"): herd7 hashes it */
};

struct init_item {
	struct srcpos pos;
	int proc;		/* -1 for a global, else the register's process */
	char *name;
	char *type;		/* as written, or NULL */
	bool untyped_pointer;	/* "*y = &x": herd7 hashes it apart */
	bool has_value;
	struct init_value value;
};

struct param {
	char *type;		/* e.g. "int *", "spinlock_t *" */
	char *name;
};

struct process {
	int id;
	struct srcpos pos;
	int nparams;
	struct param *params;
	struct stmt *body;
	const char *body_text;	/* the body's '{' in the file's text */
};

/* Final condition. */
enum prop_kind { P_TRUE, P_FALSE, P_ATOM, P_NOT, P_AND, P_OR };

/* A location in a condition: N:reg or a global. */
struct cond_loc {
	struct srcpos pos;
	int proc;		/* -1 for a global */
	char *name;
};

struct prop {
	enum prop_kind kind;
	struct cond_loc loc;	/* P_ATOM: loc = value */
	bool rhs_is_loc;	/* P_ATOM: compare with another location */
	struct cond_loc rhs_loc;
	struct init_value value;
	struct prop *left, *right;
};

enum quantifier { Q_EXISTS, Q_NOT_EXISTS, Q_FORALL };

struct litmus {
	struct arena arena;	/* owns the whole tree */
	const char *file;
	const char *text;	/* the file's contents */
	char *arch;		/* "C" */
	char *name;
	char *doc;		/* the optional quoted string, or NULL */
	int ninit;
	struct init_item *init;
	int nprocs;
	struct process *procs;
	int nlocations;
	struct cond_loc *locations;	/* the "locations [...]" list */
	struct prop *filter;		/* NULL if none */
	enum quantifier quantifier;
	struct prop *cond;
};

/*
 * A macro of linux-kernel.def: "NAME(P1,P2) expression" or
 * "NAME(P1,P2) { statements }".
 */
struct macro {
	char *name;
	struct srcpos pos;
	int nparams;
	char **params;
	struct expr *expr;	/* expression body, or NULL */
	struct stmt *body;	/* statement body, or NULL */
};

struct macro_table {
	struct arena arena;	/* owns the macros */
	int n;
	struct macro *macros;
};

/* The macro of that name, or NULL. */
const struct macro *macro_find(const struct macro_table *table, const char *name);

/* Parse a litmus test; exits with a FILE:LINE:COL diagnostic on error. */
struct litmus *litmus_parse(const char *file, const char *text);
/* The same into a zeroed test the caller allocated, so it can free it. */
void litmus_read(struct litmus *t, const char *file, const char *text);
/*
 * Parse the macro definitions of a .def file into table (allocated and
 * zeroed by the caller, freed with macros_free() even after an error).
 */
void macros_read(struct macro_table *table, const char *file, const char *text);
void litmus_free(struct litmus *t);
/*
 * Call fn on every location an atom of pr names, depth first, left to
 * right: an atom's left side, then its right side when that is a location.
 */
void prop_each_loc(const struct prop *pr, void (*fn)(const struct cond_loc *l, void *ctx),
		   void *ctx);
void macros_free(struct macro_table *table);
/*
 * Replace every macro call in the test by the macro's body (expand.c).
 * The expanded tree shares nodes (e.g. annotations) with the macros,
 * which must outlive the test.
 */
void litmus_expand(struct litmus *t, const struct macro_table *macros);

/* herd7's digest of the test, its Hash= line, in 32 hex digits (digest.c). */
void test_digest(const struct litmus *t, char hex[33]);

#endif
