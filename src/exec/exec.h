/*
 * events.h - event generation: every process of a test is run on its own,
 * once per guess of the values its loads return, and each run leaves a
 * trace: its events in program order and its final registers.
 *
 * Loads return values drawn from the values that can be stored at their
 * location (the initial value and every value some run stores there);
 * enumerate.c keeps only the guesses some write justifies (reads-from).
 */
#ifndef LKMM_EVENTS_H
#define LKMM_EVENTS_H

#include <stdint.h>

#include "execution.h"
#include "litmus/litmus.h"

/* Local event numbers are bits of a uint64_t: a dependency source set. */
#define MAX_PROC_EVENTS 64

struct trace_event {
	enum event_kind kind;
	struct srcpos pos;	/* the test's statement that made it */
	bool atomic;
	int ntags;
	const char **tags;
	int loc;
	struct value val;
	bool has_val;
	int rmw_read;		/* W* of a successful RMW: its R*, else -1 */
	uint64_t addr_deps;	/* local reads the address depends on */
	uint64_t data_deps;	/* local reads the stored value depends on */
	uint64_t ctrl_deps;	/* local reads a branch before it depends on */
	/*
	 * A read whose value the code equates with a value it computes (the
	 * read of a successful cmpxchg() equals the expected value): herd7
	 * solves that equation, so the value is known once the local reads
	 * in pin_deps are, wherever the read reads from.
	 */
	bool pinned;
	uint64_t pin_deps;
	/*
	 * A write of exactly what local read copy_of read (else -1): herd7's
	 * equation for it is a plain equality, which it solves both ways, so
	 * a known reader of this write makes that read known too.
	 */
	int copy_of;
};

struct trace {
	int nevents;
	struct trace_event *events;
	struct value *regs;	/* final value of each register */
};

struct proc_info {
	int nregs;
	char **reg_names;
	int ntraces, traces_cap;
	struct trace *traces;
};

/*
 * How an annotated RMW (xchg, cmpxchg, atomic_*, the annotation written
 * in the .def file) becomes events: herd7's two ways for C, chosen by the
 * model's variant.
 *
 * RMW_LKMMV1, herd7's default, for the models up to Linux 6.14: a fully
 * ordered RMW ({mb}, and atomic_add_unless()) is F[mb] R*[once] W*[once]
 * F[mb]; an acquire RMW's W* and a release RMW's R* are [once]; a failed
 * conditional RMW's R* is [once]; __atomic_op() is R*[noreturn] W*[once],
 * whatever its annotation.
 *
 * RMW_LKMMV2 (variant lkmmv2, Linux 6.15 on): R* and W* both carry the
 * annotation the macro writes, as does a failed conditional RMW's R*, and
 * no fence is added: what each annotation orders is the model's to say.
 */
enum rmw_style { RMW_LKMMV1, RMW_LKMMV2 };

/* Shared locations, their initial values, and the processes' traces. */
/*
 * How herd7 holds a location's value, from the type the init section
 * gives it: a type narrower than 32 bits or unsigned wraps the value to
 * its width, in the final states herd7 prints and in the condition's
 * comparisons (atomic_t counts as a 32-bit unsigned).  bits == 0: as
 * computed.
 */
struct value_width {
	signed char bits;
	bool is_unsigned;
};

struct value_sets;

struct program {
	const struct litmus *test;
	int nlocs;
	char **loc_names;
	struct value *loc_init;
	struct value_width *loc_width;
	int nprocs;
	struct proc_info *procs;
	struct arena runs;		/* the runs' events and registers, of every round */
	enum rmw_style rmw_style;	/* how its RMWs became events */
	struct value_sets *building;	/* while program_build() runs */
};

/* Limits on the value guessing, each a command-line flag. */
struct event_limits {
	int max_traces;		/* per process */
	int max_values;		/* distinct values per location */
};

/*
 * Fill p, zeroed by the caller, with the runs of t's processes.  Should
 * bad input or a limit end it, program_free(p) still frees what it built.
 */
void program_build(struct program *p, const struct litmus *t, const struct event_limits *limits,
		   enum rmw_style rmw_style);
void program_free(struct program *p);
/* Location id of a global, or -1. */
int program_loc(const struct program *p, const char *name);
/* Register id in process proc, or -1. */
int program_reg(const struct program *p, int proc, const char *name);
/* Print a value as herd7 does: an integer, or a location's name. */
void value_print(const struct program *p, struct value v, struct strbuf *out);
/* v as location loc holds it (see struct value_width). */
struct value value_at_loc(const struct program *p, int loc, struct value v);
/* Whether the n values of a and b are equal, one by one: two final states. */
bool values_eq(const struct value *a, const struct value *b, int n);
int value_cmp(const struct program *p, struct value a, struct value b);
/* An event as "R[acquire] flag=1", for parse and --explain. */
void event_print(const struct program *p, const struct event *e, struct strbuf *out);
/* Every trace of every process, for `lkmm parse`. */
void program_text(const struct program *p, struct strbuf *out);

#endif
