#!/usr/bin/env bash
# Our own litmus tests (litmus/): lkmm's output equals herd7's, recorded
# beside this script, and each test's "Result:" comment holds.
source "$(dirname "$0")/../lib/tap.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tests=$(ls "$top"/litmus/*.litmus)
set -- $LKMM_BINARIES
plan $(( $# * $(echo $tests | wc -w) * 2 ))

for lkmm in $LKMM_BINARIES; do
	tag=$(basename "$(dirname "$lkmm")")
	for t in $tests; do
		check_litmus "$lkmm" "$tag" "$t" "$top/tests/litmus/$(basename "$t").out" "$work/case"
	done
done
