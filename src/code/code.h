/*
 * code.h - `lkmm code`: kernel functions in, a litmus test out, and the
 * checker's answer told in the kernel's own lines.
 *
 * The door of src/code/: prepare.c makes a source tree parseable (its
 * generated headers, in a cache outside the tree) and gives the compile
 * flags; translate.c reads the named functions through libclang and
 * writes the litmus test, each statement tied to the kernel line it
 * comes from; answer.c runs the test through the checker (lkmm.h) and
 * maps its explanation and its fixes back onto the kernel's files.
 */
#ifndef LKMM_CODE_H
#define LKMM_CODE_H

#include <stdbool.h>

#include "base/base.h"
#include "lkmm.h"

/* One task: the functions it calls, in order, all from one file (a number: the function around that line). */
struct code_process {
	char *file;		/* relative to the tree */
	char **funcs;
	int nfuncs;
};

struct code_request {
	const char *tree;		/* the kernel source tree */
	const char *build_dir;		/* its prepared build directory (prepare.c) */
	const struct lkmm_model *model;	/* its .def: which primitives exist */
	struct code_process *procs;
	int nprocs;
	int depth;			/* calls inlined this deep */
	const char **distinct;		/* struct types each task has its own of */
	int ndistinct;
	const char *exists;		/* a condition replacing the generated one, or NULL */
	const char *name;		/* the test's name; NULL: its functions'*/
};

/* Where a kernel edit goes: a span of one line of a file of the tree. */
struct code_span {
	const char *file;	/* relative to the tree; NULL: none */
	unsigned line;		/* 1-based */
	unsigned col, end_col;	/* byte columns, 1-based, end exclusive */
};

/* What a line of the test does, so a fix of the test can be a fix of the kernel. */
enum code_access {
	CA_NONE, CA_LOAD, CA_STORE, CA_RMW,
};

struct code_line {
	int proc;		/* -1: outside the processes */
	char *text;		/* the test's line, indented */
	struct code_span where;	/* the kernel statement it comes from */
	enum code_access access;
	struct code_span expr;	/* the access as written (macro call or plain lvalue) */
	struct code_span name;	/* the primitive's name, when one is written */
	struct code_span target;/* the lvalue accessed; for a store, .end_col ends the value */
	struct code_span value;	/* a store's value */
	bool target_is_pointer;	/* the primitive as written takes &lvalue */
};

struct code_test {
	char *name;			/* the test's name */
	struct strbuf text;		/* the litmus test */
	struct code_line *lines;	/* line i + 1 of text */
	int nlines;
	char **files;			/* the names the spans point to */
	int nfiles;
};

/*
 * Make tree parseable under config (a Kbuild target: allyesconfig,
 * defconfig ...); *build_dir (allocated) its prepared directory.
 * 0, or 2 with a message.
 */
int code_prepare_tree(const char *tree, const char *config, const char *cache_root, char **build_dir,
		      struct strbuf *err);

/* The litmus test of req.  0, or 2 with "FILE:LINE:COL: error: ..." in err. */
int code_translate(const struct code_request *req, struct code_test *out, struct strbuf *err);
void code_test_free(struct code_test *t);

/* The kernel source line a span starts on, trimmed (allocated), or NULL. */
char *code_source_line(const char *tree, const struct code_span *s);

/* The kernel file name and source line of a test line, "fs/super.c:2252". */
const char *code_line_where(const struct code_test *t, int line, char *buf, size_t size);

/*
 * Rewrite the checker's text (explanation, suggestions) of the test into
 * the kernel's terms: "line N `...`" becomes "FILE:LINE `kernel source`",
 * and each diff of the test a diff of the kernel's files (patch -p1 in
 * the tree), or is kept with a note when it has no kernel form.
 */
void code_answer(const struct code_test *t, const char *tree, const char *text,
		 struct strbuf *out);

#endif
