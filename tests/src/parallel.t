#!/usr/bin/env bash
# Beyond one process: GNU parallel hands the corpus sample's paths to
# several lkmm processes (on this machine, -S :, as it would over ssh with
# --sshloginfile), and the merged output equals one sequential run's.
source "$(dirname "$0")/../lib/tap.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

find "$top/tests/src/corpus/paulmck-sample/litmus" -name '*.litmus' | sort | head -120 > "$work/list"
set -- $LKMM_BINARIES
plan $#

for lkmm in $LKMM_BINARIES; do
	tag=$(basename "$(dirname "$lkmm")")
	"$lkmm" check -I "$model_dir" "@$work/list" 2>&1 | grep -v '^Time ' > "$work/sequential"
	parallel --will-cite -S : -k --pipe -N 10 "$lkmm" check -I "$model_dir" - < "$work/list" 2>&1 |
		grep -v '^Time ' > "$work/parallel"
	if [ -s "$work/sequential" ] && diff -u "$work/sequential" "$work/parallel" > "$work/diff"; then
		ok "$tag: GNU parallel's merged output equals the sequential run"
	else
		not_ok "$tag: GNU parallel's merged output equals the sequential run"
		diag < "$work/diff"
	fi
done
