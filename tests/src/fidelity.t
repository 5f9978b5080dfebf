#!/usr/bin/env bash
# Classes of disagreement with herd7 found on unseen tests, each pinned by
# small tests and herd7 7.57's output beside them (NAME.litmus.out, made
# with a local herdtools7 build): a location's declared type wraps its
# value (atomic_t and uint32_t print as 32-bit unsigned, uint8_t/int8_t/
# char/short/... to their width), in States and in the condition; the
# value of spin_is_locked() and of a failed spin_trylock() depends on
# their read of the lock (data and control dependencies), a successful
# trylock's on nothing; a successful cmpxchg()'s read is pinned to the
# expected value, which can ground a cycle of values, forwards and
# backwards (cmpxchg-*copy-cycle*, herd7 7.58); an execution that
# computes with a value no equation solves (a cycle's symbol plus 1) is
# none (symbolic-plus-one-*.litmus, herd7 7.58).  And the counts of
# tests with twin processes, whose executions lkmm judges once per set of
# runs and counts once per arrangement (twins-*.litmus).
source "$(dirname "$0")/../lib/tap.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tests=("$top"/tests/src/fidelity/*.litmus)
set -- $LKMM_BINARIES
plan $(( $# * ${#tests[@]} ))

for lkmm in $LKMM_BINARIES; do
	tag=$(basename "$(dirname "$lkmm")")
	for t in "${tests[@]}"; do
		"$lkmm" check -I "$model_dir" "$t" > "$work/out" 2>&1
		if diff -u <(without_time < "$t.out") <(without_time < "$work/out") > "$work/diff"; then
			ok "$tag: $(basename "$t") as herd7"
		else
			not_ok "$tag: $(basename "$t") as herd7"
			diag < "$work/diff"
		fi
	done
done
