#!/usr/bin/env bash
# Every core and beyond one machine: -j N checks N tests at once and prints
# exactly what -j 1 prints (Time lines aside); GNU parallel hands the
# corpus sample's paths to several lkmm processes (on this machine, -S :,
# as it would over ssh with --sshloginfile), and the merged output equals
# one sequential run's.  Each test's error messages, too, come in the
# order given, on standard error.
source "$(dirname "$0")/../lib/tap.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

find "$top/tests/src/corpus/paulmck-sample/litmus" -name '*.litmus' | sort | head -120 > "$work/list"
ls "$model_dir"/litmus-tests/*.litmus "$kernel_tree"/Documentation/litmus-tests/*/*.litmus > "$work/kernel"
# Good and malformed tests, taken in turn.
paste -d '\n' <(ls "$model_dir"/litmus-tests/*.litmus | head -13) <(ls "$top"/tests/src/bad/*.litmus) \
	> "$work/mixed"
# One test alone: -j splits its search among threads.
heavy=$top/tests/src/corpus/paulmck-sample/litmus/manual/kernel/C-seqlock.litmus
cat "$work/list" "$work/kernel" > "$work/alone"
echo "$heavy" >> "$work/alone"
# Twins: their runs taken in order, also in the jobs of a split search.
ls "$top"/tests/src/fidelity/twins-*.litmus >> "$work/alone"
# A model whose type error shows only when an execution is judged.
cp -r "$model_dir" "$work/badmodel"
printf '\nacyclic (rf | W) as mistyped\n' >> "$work/badmodel/linux-kernel.cat"
set -- $LKMM_BINARIES
plan $(( $# * 8 ))

for lkmm in $LKMM_BINARIES; do
	tag=$(basename "$(dirname "$lkmm")")
	"$lkmm" check -j 1 -I "$model_dir" "@$work/list" 2>&1 | grep -v '^Time ' > "$work/sequential"
	"$lkmm" check -j 4 -I "$model_dir" "@$work/list" 2>&1 | grep -v '^Time ' > "$work/threads"
	if [ -s "$work/sequential" ] && diff -u "$work/sequential" "$work/threads" > "$work/diff"; then
		ok "$tag: -j 4 prints what -j 1 prints, in the order given"
	else
		not_ok "$tag: -j 4 prints what -j 1 prints, in the order given"
		diag < "$work/diff"
	fi
	"$lkmm" check -j 1 -I "$model_dir" --explain "@$work/kernel" | grep -v '^Time ' > "$work/e1"
	"$lkmm" check -j 3 -I "$model_dir" --explain "@$work/kernel" | grep -v '^Time ' > "$work/e3"
	if [ -s "$work/e1" ] && diff -u "$work/e1" "$work/e3" > "$work/diff"; then
		ok "$tag: ... with the explanations too"
	else
		not_ok "$tag: ... with the explanations too"
		diag < "$work/diff"
	fi
	"$lkmm" check -j 1 -I "$model_dir" "@$work/mixed" > "$work/out1" 2> "$work/err1"
	status1=$?
	"$lkmm" check -j 4 -I "$model_dir" "@$work/mixed" > "$work/out4" 2> "$work/err4"
	status4=$?
	if [ "$(grep -c error: "$work/err1")" -ge 13 ] && [ "$status1" = "$status4" ] &&
		diff -u <(grep -v '^Time ' "$work/out1") <(grep -v '^Time ' "$work/out4") > "$work/diff" &&
		diff -u "$work/err1" "$work/err4" >> "$work/diff"; then
		ok "$tag: -j 4 on good and bad tests: standard output and error as -j 1's"
	else
		not_ok "$tag: -j 4 on good and bad tests: standard output and error as -j 1's"
		diag < "$work/diff"
	fi
	expect "$tag: -j keeps each test's failure its own, the worst status wins" 3 \
		'^Observation MP\+pooncerelease\+poacquireonce Never' \
		"$lkmm" check -j 2 -I "$model_dir" -max-executions 6 \
		"$model_dir/litmus-tests/IRIW+fencembonceonces+OnceOnce.litmus" \
		"$model_dir/litmus-tests/MP+pooncerelease+poacquireonce.litmus"
	while read -r f; do
		"$lkmm" check -j 1 -I "$model_dir" "$f" 2>&1
		echo "status $?"
	done < "$work/alone" | grep -v '^Time ' > "$work/alone1"
	while read -r f; do
		"$lkmm" check -j 3 -I "$model_dir" "$f" 2>&1
		echo "status $?"
	done < "$work/alone" | grep -v '^Time ' > "$work/alone3"
	if [ "$(grep -c '^Observation' "$work/alone1")" -ge 150 ] &&
		diff -u "$work/alone1" "$work/alone3" > "$work/diff"; then
		ok "$tag: one test, its search split among 3 threads, prints what -j 1 prints"
	else
		not_ok "$tag: one test, its search split among 3 threads, prints what -j 1 prints"
		diag < "$work/diff"
	fi
	"$lkmm" check -j 1 -I "$model_dir" -max-executions 300 "$heavy" > "$work/lim1" 2>&1
	status1=$?
	"$lkmm" check -j 2 -I "$model_dir" -max-executions 300 "$heavy" > "$work/lim2" 2>&1
	status2=$?
	if [ "$status1" = 3 ] && [ "$status2" = 3 ] && diff -u "$work/lim1" "$work/lim2" > "$work/diff"; then
		ok "$tag: a limit counts for the whole split search: one message, status 3"
	else
		not_ok "$tag: a limit counts for the whole split search (status $status1, $status2)"
		diag < "$work/diff"
	fi
	"$lkmm" check -j 1 --no-model-cache -I "$work/badmodel" "$heavy" > "$work/bad1" 2>&1
	status1=$?
	"$lkmm" check -j 2 --no-model-cache -I "$work/badmodel" "$heavy" > "$work/bad2" 2>&1
	status2=$?
	if [ "$status1" = 2 ] && [ "$status2" = 2 ] && grep -q 'linux-kernel.cat:.*error:' "$work/bad2" &&
		diff -u "$work/bad1" "$work/bad2" > "$work/diff"; then
		ok "$tag: a model error in a search thread is reported once, as with -j 1"
	else
		not_ok "$tag: a model error in a search thread (status $status1, $status2)"
		cat "$work/bad2" "$work/diff" | diag
	fi
	parallel --will-cite -S : -k --pipe -N 10 "$lkmm" check -I "$model_dir" - < "$work/list" 2>&1 |
		grep -v '^Time ' > "$work/parallel"
	if [ -s "$work/sequential" ] && diff -u "$work/sequential" "$work/parallel" > "$work/diff"; then
		ok "$tag: GNU parallel's merged output equals the sequential run"
	else
		not_ok "$tag: GNU parallel's merged output equals the sequential run"
		diag < "$work/diff"
	fi
done
