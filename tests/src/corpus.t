#!/usr/bin/env bash
# Verdicts: lkmm's output equals herd7's, every line but Time,
# for every test of the kernel's corpus (tools/memory-model/litmus-tests
# and Documentation/litmus-tests, from the unpacked tree; herd7's outputs
# in corpus/kernel-herd7) and for the sample of paulmckrcu/litmus in
# corpus/paulmck-sample (tests and herd7's outputs).  Tests herd7 did not
# finish (their .out ends with "timeout-or-error") have no verdict to
# compare and are skipped.
source "$(dirname "$0")/../lib/tap.sh"
here=$top/tests/src/corpus
cd "$model_dir" || exit 1

pairs=()
for out in $(cd "$here/kernel-herd7" && find . -name '*.out' | sort); do
	pairs+=("$kernel_tree/${out%.out}:$here/kernel-herd7/$out")
done
for out in $(cd "$here/paulmck-sample/herd7" && find . -name '*.out' | sort); do
	pairs+=("$here/paulmck-sample/litmus/${out%.out}:$here/paulmck-sample/herd7/$out")
done
set -- $LKMM_BINARIES
plan $(( $# * ${#pairs[@]} ))

for lkmm in $LKMM_BINARIES; do
	tag=$(basename "$(dirname "$lkmm")")
	for pair in "${pairs[@]}"; do
		test=${pair%%:*}
		ref=${pair#*:}
		name=${test#"$top"/}
		if grep -q '^timeout-or-error' "$ref"; then
			ok "$tag: $name # SKIP herd7 gave no verdict"
		elif diff -u <(without_time < "$ref") <("$lkmm" check "$test" 2>&1 | without_time) \
			> "$TMPDIR/lkmm-corpus.$$" 2>&1; then
			ok "$tag: $name"
		else
			not_ok "$tag: $name"
			diag < "$TMPDIR/lkmm-corpus.$$"
		fi
	done
done
rm -f "$TMPDIR/lkmm-corpus.$$"
