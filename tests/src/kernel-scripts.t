#!/usr/bin/env bash
# The kernel's own scripts accept lkmm in herd7's place: with a herd7
# symlink to lkmm first on PATH, tools/memory-model/scripts/checkalllitmus.sh
# verifies every litmus test against its "Result:" comment.
source "$(dirname "$0")/../lib/tap.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

set -- $LKMM_BINARIES
plan $#

for lkmm in $LKMM_BINARIES; do
	tag=$(basename "$(dirname "$lkmm")")
	mkdir -p "$work/$tag/out/litmus-tests"
	ln -sf "$lkmm" "$work/$tag/herd7"
	out=$(cd "$model_dir" && LKMM_DESTDIR="$work/$tag/out" PATH="$work/$tag:$PATH" \
		scripts/checkalllitmus.sh 2>&1)
	if [ $? -eq 0 ] && grep -q '^All litmus tests verified as was expected' <<< "$out"; then
		ok "$tag: checkalllitmus.sh"
	else
		not_ok "$tag: checkalllitmus.sh"
		tail -20 <<< "$out" | diag
	fi
done
