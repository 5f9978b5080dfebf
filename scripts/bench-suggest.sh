#!/usr/bin/env bash
# bench-suggest.sh - what lkmm check --suggest answers, and how fast.
#
#   scripts/bench-suggest.sh [SEED [COUNT]]        (part of make bench)
#
# 1. The kernel corpus's Sometimes tests (herd7's verdict, from the kept
#    outputs in tests/src/corpus/kernel-herd7): each test's time and the
#    summary line.
# 2. COUNT (default 100) generated Sometimes tests of 3 or 4 processes,
#    from build/randlitmus with SEED (default 31; the test suite's tests
#    use other seeds).  Each is checked again with smp_mb(); after every
#    statement, put there by sed rather than by --suggest, so that whether
#    full ordering forbids the outcome is known independently; then the
#    answers are counted by that split, with their times.
# 3. The same for the Sometimes tests of 3 or 4 processes of the
#    paulmckrcu/litmus sample (tests/src/corpus/paulmck-sample): written
#    by people, most of them forbidden once every access is ordered, where
#    the generated ones hardly ever are.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
seed=${1:-31}
count=${2:-100}
lkmm=$top/bin/lkmm
model=${MODEL:-$top/build/kernel-model/tools/memory-model}
work=$top/build/bench-suggest
rm -rf "$work" && mkdir -p "$work/gen" "$work/picked"

# The summary line and the seconds --suggest took on a test.
answer() {
	local start out
	start=$EPOCHREALTIME
	out=$("$lkmm" check -I "$model" --suggest "$1" | sed -n 's/^Suggestion: //p' | tail -1)
	printf '%s\t%.2f\n' "$out" "$(echo "$EPOCHREALTIME - $start" | bc -l)"
}

echo "--suggest on the kernel's Sometimes tests (default budget: 5 s, processes + 2 edits)"
printf '%-60s %8s  %s\n' test seconds answer
grep -rl '^Observation .* Sometimes' "$top/tests/src/corpus/kernel-herd7" | sort |
while read -r out; do
	rel=${out#"$top/tests/src/corpus/kernel-herd7/"}
	rel=${rel%.out}
	test=$top/build/kernel-model/$rel
	IFS=$'\t' read -r summary secs < <(answer "$test")
	printf '%-60s %8s  %s\n' "$(basename "$rel" .litmus)" "$secs" "$summary"
done

# Generated tests: Sometimes ones of 3 or 4 processes, the first $count.
"$top/build/randlitmus" "$seed" $((count * 20)) "$work/gen"
n=0
for t in $(ls "$work/gen"/*.litmus | sort -V); do
	procs=$(grep -c '^P[0-9]*(' "$t")
	[ "$procs" -ge 3 ] || continue
	"$lkmm" check -I "$model" "$t" 2>/dev/null | grep -q '^Observation .* Sometimes ' || continue
	cp "$t" "$work/picked/"
	n=$((n + 1))
	[ "$n" -lt "$count" ] || break
done

# smp_mb(); after every statement of a process body (a line ending in ';'
# other than a declaration without an initializer), the init section and
# the condition untouched.
all_mb() {
	sed -e '/^P[0-9]*(/,/^}/{/^[[:space:]]*\(int\|atomic_t\|spinlock_t\|struct\)[[:space:]*][^=]*;[[:space:]]*$/b
		s/;[[:space:]]*$/; smp_mb();/}' "$1"
}

# The answers on the tests given, split by whether smp_mb() everywhere forbids.
split_table() {
	local t name split summary secs
	: > "$work/answers"
	mkdir -p "$work/mb"
	for t in "$@"; do
		name=$(basename "$t" .litmus)
		all_mb "$t" > "$work/mb/$name.litmus"
		if "$lkmm" check -I "$model" "$work/mb/$name.litmus" 2>/dev/null |
		   grep -q '^Observation .* Never '; then
			split=forbids
		else
			split=allows
		fi
		IFS=$'\t' read -r summary secs < <(answer "$t")
		printf '%s\t%s\t%s\t%s\n' "$name" "$split" "${summary%% *}" "$secs" >> "$work/answers"
	done
	printf '%-32s %6s %10s %10s\n' "smp_mb() everywhere / answer" tests "mean s" "max s"
	awk -F'\t' '{ k = $2 " / " $3; n[k]++; s[k] += $4; if ($4 > m[k]) m[k] = $4 }
		END { for (k in n) printf "%-32s %6d %10.2f %10.2f\n", k, n[k], s[k] / n[k], m[k] }' \
		"$work/answers" | sort
}

echo
echo "--suggest on $n generated Sometimes tests of 3-4 processes (randlitmus seed $seed)"
split_table "$work/picked"/*.litmus

sample=$top/tests/src/corpus/paulmck-sample
picked=$(grep -rl '^Observation .* Sometimes' "$sample/herd7" | sort |
	sed "s|^$sample/herd7/|$sample/litmus/|; s|\.out\$||" |
	while read -r t; do
		procs=$(grep -c '^P[0-9]*(' "$t")
		[ "$procs" -ge 3 ] && [ "$procs" -le 4 ] && echo "$t"
	done)
echo
echo "--suggest on the $(echo "$picked" | wc -l) Sometimes tests of 3-4 processes of the paulmckrcu/litmus sample"
split_table $picked
echo "(answers: fixed = a verified fix, sc-reachable = no ordering can forbid it,"
echo " none = none within the edits, budget = the time ran out first)"
