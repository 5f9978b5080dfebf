#!/usr/bin/env bash
# The kernel's own scripts accept lkmm in herd7's place: with a herd7
# symlink to lkmm first on PATH, tools/memory-model/scripts/checkalllitmus.sh
# verifies every litmus test against its "Result:" comment, in the 6.12
# tree and in the 6.15 one (scripts/setup.sh: the 6.12 tree with the
# v6.15 model, which changed no script and no test).
source "$(dirname "$0")/../lib/tap.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

set -- $LKMM_BINARIES
plan $(($# * 2))

for lkmm in $LKMM_BINARIES; do
	tag=$(basename "$(dirname "$lkmm")")
	for dir in "$model_dir" "$model_dir_615"; do
		name=$(basename "$(dirname "$(dirname "$dir")")")
		check_all_litmus "$lkmm" "$dir" "$work/$tag/$name" "$tag: $name: checkalllitmus.sh"
	done
done
