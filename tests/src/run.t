#!/usr/bin/env bash
# lkmm run without a kernel: the module sources --emit writes (read for
# what they mean: statements, types, the variables recorded), the tests
# no module can express, and --compare on logs written here, which is
# where a state the model forbids must turn into a loud error.
source "$(dirname "$0")/../lib/tap.sh"
mp=$model_dir/litmus-tests/MP+pooncerelease+poacquireonce.litmus
sb=$model_dir/litmus-tests/SB+poonceonces.litmus
iriw=$model_dir/litmus-tests/IRIW+poonceonces+OnceOnce.litmus
here=$(dirname "$0")/run
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

set -- $LKMM_BINARIES
plan $(( $# * 29 ))


# in_order FILE LINE...: each line occurs in FILE, after the one before.
in_order() {
	local file=$1 at=0 n
	shift
	for line in "$@"; do
		n=$(grep -nF -- "$line" "$file" | cut -d: -f1 | awk -v at="$at" '$1 > at' | head -1)
		[ -n "$n" ] || { echo "missing after line $at: $line"; return 1; }
		at=$n
	done
}

# A console log as the guest prints it, "lkmm-run:" lines behind printk's time stamps.
log_mp() {
	printf '[    1.000] lkmm-run: begin MP+pooncerelease+poacquireonce\n'
	printf '[    1.001] lkmm-run: vars 1:r0 1:r1\n'
	printf '[    1.002] lkmm-run: state 600 0 0\n'
	printf 'lkmm-guest: unrelated line\n'
	printf '[    1.003] lkmm-run: state 400 1 1\n'
	[ -z "$1" ] || printf '[    1.004] lkmm-run: state %s\n' "$1"
	printf '[    1.005] lkmm-run: end MP+pooncerelease+poacquireonce runs=2 size=500 ninst=1 cpus=2 ns=2000000\n'
}

# klitmus7's own block, as its /proc/litmus prints it, variables in another order.
log_klitmus_mp() {
	printf 'Test MP+pooncerelease+poacquireonce Allowed\nHistogram (3 states)\n'
	printf '600     :>1:r1=0; 1:r0=0;\n400     :>1:r1=1; 1:r0=1;\n3       *>1:r1=0; 1:r0=1;\n'
	printf 'Ok\n\nWitnesses\nPositive: 3, Negative: 1000\n'
	printf 'Observation MP+pooncerelease+poacquireonce Sometimes 3 1000\n'
	printf 'Time MP+pooncerelease+poacquireonce 0.25\n\n'
}

for lkmm in $LKMM_BINARIES; do
	tag=$(basename "$(dirname "$lkmm")")
	out=$work/$tag
	rm -rf "$out"

	expect "$tag: --emit writes the modules" 0 'written to' \
		"$lkmm" run -I "$model_dir" --emit "$out" "$mp" "$sb" "$here/atomic-int.litmus"
	if cmp -s "$out/lkmm-runtime.h" "$top/kernel/litmus/lkmm-runtime.h" &&
	   [ -x "$out/run.sh" ] && grep -q 'KDIR ?= /lib/modules' "$out/Makefile" &&
	   [ "$(cat "$out/tests.list")" = "$(printf 'lkmm_t000\nlkmm_t001\nlkmm_t002')" ] &&
	   grep -qx 'obj-m += lkmm_t002.o' "$out/Kbuild" && grep -qx 'KCSAN_SANITIZE := n' "$out/Kbuild"; then
		ok "$tag: runtime, Kbuild without KCSAN, Makefile, run.sh and the list of modules"
	else
		not_ok "$tag: runtime, Kbuild without KCSAN, Makefile, run.sh and the list of modules"
		ls -l "$out" | diag
	fi
	if why=$(in_order "$out/lkmm_t000.c" 'static void lkmm_P0(int *buf, int *flag, long *lkmm_out)' \
		'WRITE_ONCE(*buf, 1);' 'smp_store_release(flag, 1);' '}' \
		'static void lkmm_P1(int *buf, int *flag, long *lkmm_out)' \
		'r0 = smp_load_acquire(flag);' 'r1 = READ_ONCE(*buf);' \
		'lkmm_out[0] = (long)r0;' 'lkmm_out[1] = (long)r1;'); then
		ok "$tag: MP's processes keep the test's statements, in order, and record 1:r0 and 1:r1"
	else
		not_ok "$tag: MP's processes keep the test's statements, in order, and record 1:r0 and 1:r1"
		diag <<< "$why"
	fi
	if grep -qF '.vars = "1:r0 1:r1",' "$out/lkmm_t000.c" && grep -qF '.nprocs = 2,' "$out/lkmm_t000.c" &&
	   grep -qF '.vars = "0:r0 1:r0",' "$out/lkmm_t001.c"; then
		ok "$tag: the recorded variables are those lkmm check prints"
	else
		not_ok "$tag: the recorded variables are those lkmm check prints"
	fi
	a=$out/lkmm_t002.c
	if grep -qF 'static void lkmm_P0(atomic_t *v, int **p, int *x, long *lkmm_out)' "$a" &&
	   grep -qF 'atomic_set(&inst->v, 3);' "$a" && grep -qF 'inst->p = (int *)&inst->x;' "$a" &&
	   grep -qF 'int *r1 = 0;' "$a" && grep -qF 'int r0 = 0;' "$a" && grep -qF 'vals[2].n = atomic_read(&inst->v);' "$a"; then
		ok "$tag: types from use (atomic_t), pointer inits, undeclared registers, final atomic reads"
	else
		not_ok "$tag: types from use (atomic_t), pointer inits, undeclared registers, final atomic reads"
		diag < "$a"
	fi

	"$lkmm" run -I "$model_dir" --emit "$out/once" "$here/atomic-once.litmus" > /dev/null 2>&1
	if why=$(in_order "$out/once/lkmm_t000.c" 'r0 = READ_ONCE(v->counter);' 'WRITE_ONCE(v->counter, 2);' \
		'r1 = smp_load_acquire(&v->counter);' 'atomic_inc(v);' 'r2 = xchg(&v->counter, 5);' \
		'v->counter = 6;'); then
		ok "$tag: an atomic_t read or written by another macro than atomic_*() is its counter"
	else
		not_ok "$tag: an atomic_t read or written by another macro than atomic_*() is its counter"
		diag <<< "$why"
	fi

	expect "$tag: more processes than vCPUs is refused at the test's line" 2 \
		'IRIW\+poonceonces\+OnceOnce.litmus:[0-9]+:[0-9]+: error: test .* has 4 processes.* 2 vCPUs \(raise --cpus\)' \
		"$lkmm" run -I "$model_dir" --cpus 2 --emit "$work/x" "$iriw"
	expect "$tag: herd7's own primitives are refused at their line" 2 \
		'herd-primitive.litmus:9:7: error: lkmm run cannot express herd7.s __load' \
		"$lkmm" run -I "$model_dir" --emit "$work/x" "$here/herd-primitive.litmus"
	expect "$tag: --emit with no test that can run writes nothing and says so" 2 \
		'^lkmm run: no test can run: nothing written to .*/none$' \
		"$lkmm" run -I "$model_dir" --emit "$work/none" "$here/herd-primitive.litmus"
	if [ -e "$work/none" ]; then
		not_ok "$tag: ... not even the directory"
		ls -R "$work/none" | diag
	else
		ok "$tag: ... not even the directory"
	fi
	expect "$tag: a register the end cannot see is refused at its declaration" 2 \
		'nested-register.litmus:8:7: error: lkmm run reads register r0 when P0 ends' \
		"$lkmm" run -I "$model_dir" --emit "$work/x" "$here/nested-register.litmus" "$sb"
	expect "$tag: the other tests are still written" 0 '^lkmm_t001$' cat "$work/x/tests.list"

	log_mp > "$work/ok.log"
	expect "$tag: --compare prints klitmus7's histogram" 0 '^Histogram \(2 states\)$' \
		"$lkmm" run -I "$model_dir" --compare "$work/ok.log" "$mp"
	"$lkmm" run -I "$model_dir" --compare "$work/ok.log" "$mp" > "$work/ok.out" 2>&1
	expect "$tag: ... the counts with :> for states outside the condition" 0 '^400     :>1:r0=1; 1:r1=1;$' \
		cat "$work/ok.out"
	expect "$tag: ... Positive and Negative as klitmus7 writes them" 0 '^Positive: 0, Negative: 1000$' \
		cat "$work/ok.out"
	expect "$tag: ... the Observation and Time" 0 '^Time MP\+pooncerelease\+poacquireonce 0.00$' \
		cat "$work/ok.out"
	expect "$tag: ... herd7's Hash, so mcompare7 reads it" 0 "^$(grep '^Hash=' "$top/tests/src/corpus/kernel-herd7/tools/memory-model/litmus-tests/MP+pooncerelease+poacquireonce.litmus.out")\$" \
		cat "$work/ok.out"
	expect "$tag: ... the model's verdict beside it" 0 '^Model MP\+pooncerelease\+poacquireonce Never 0 3' \
		cat "$work/ok.out"
	expect "$tag: ... an allowed state not seen" 0 '^not seen +1:r0=0; 1:r1=1;$' \
		cat "$work/ok.out"
	expect "$tag: ... and a summary" 0 '^Summary: 1 test run, 0 not run; 1000 iterations.* 0 model violations$' \
		cat "$work/ok.out"

	f=$out/filter
	"$lkmm" run -I "$model_dir" --emit "$f" "$here/filter.litmus" > /dev/null 2>&1
	if why=$(in_order "$f/lkmm_t000.c" 'r2 = READ_ONCE(*y);' 'lkmm_out[0] = (long)r0;' \
		'lkmm_out[1] = (long)r1;' 'lkmm_out[2] = (long)r2;' 'static bool lkmm_keep(const void *data)' \
		'return ((inst->lkmm_out[2] == 1L) && ((long)inst->y == 1L));' '.vars = "1:r0 1:r1",' \
		'.keep = lkmm_keep,'); then
		ok "$tag: a filter is C over the final state, its own registers recorded after the printed ones"
	else
		not_ok "$tag: a filter is C over the final state, its own registers recorded after the printed ones"
		diag <<< "$why"
	fi
	log_mp | sed 's/ns=2000000/filtered=9000 ns=2000000/' > "$work/filtered.log"
	expect "$tag: the iterations the filter rejected are reported" 0 \
		'^filter +9000 iterations rejected by the test.s filter, not counted$' \
		"$lkmm" run -I "$model_dir" --compare "$work/filtered.log" "$mp"

	log_mp '7 1 0' > "$work/bad.log"
	expect "$tag: a state the model forbids is a MODEL VIOLATION, exit 5" 5 \
		'MODEL VIOLATION: .*MP\+pooncerelease\+poacquireonce.litmus: the kernel reached 1:r0=1; 1:r1=0; 7 times' \
		"$lkmm" run -I "$model_dir" --compare "$work/bad.log" "$mp"
	expect "$tag: ... marked in the comparison, with *> for the condition" 5 '^FORBIDDEN 7       \*>1:r0=1; 1:r1=0;$' \
		"$lkmm" run -I "$model_dir" --compare "$work/bad.log" "$mp"
	log_mp '2 &buf 0' > "$work/addr.log"
	expect "$tag: an address in a log is its location's name" 5 'FORBIDDEN 2       :>1:r0=buf; 1:r1=0;' \
		"$lkmm" run -I "$model_dir" --compare "$work/addr.log" "$mp"
	log_klitmus_mp > "$work/klitmus.log"
	expect "$tag: klitmus7's own log is read too, its variables matched by name" 5 \
		'^FORBIDDEN 3       \*>1:r0=1; 1:r1=0;$' \
		"$lkmm" run -I "$model_dir" --compare "$work/klitmus.log" "$mp"
	expect "$tag: ... with its Time" 5 '^Time MP\+pooncerelease\+poacquireonce 0.25$' \
		"$lkmm" run -I "$model_dir" --compare "$work/klitmus.log" "$mp"
	log_mp | sed 's/vars 1:r0 1:r1/vars 1:r0 1:r2/' > "$work/vars.log"
	expect "$tag: a log of another version of the test is refused at its line" 2 \
		'vars.log:1:1: error: the run of MP.* recorded variables .1:r0 1:r2.' \
		"$lkmm" run -I "$model_dir" --compare "$work/vars.log" "$mp"
	expect "$tag: a test the log has no result for is named" 2 \
		'SB\+poonceonces.litmus: no result in the log' \
		"$lkmm" run -I "$model_dir" --compare "$work/ok.log" "$mp" "$sb"
done
