#!/usr/bin/env bash
# fidelity-sweep.sh - lkmm against herd7 on random LKMM tests.
#
#   scripts/fidelity-sweep.sh [N [SEED]]        (make fidelity-sweep N=... SEED=...)
#
# Generates N tests (default 1000) from SEED (default 1) with
# build/randlitmus into build/sweep/SEED/, checks them all with lkmm
# (-o: one output file a test), and, when HERD7=/path/to/herd7 is given,
# runs herd7 on each (bounded by HERD7_TIMEOUT seconds of CPU, default 60; its
# outputs are kept in build/sweep/SEED/herd and reused while the test is
# unchanged) and reports every test whose output differs, Time aside.
# MODEL=DIR checks under another model (e.g. build/kernel-model-6.15/
# tools/memory-model); herd7 runs from that directory too.  VALUES=K
# generates with randlitmus -values K (constants stored in 1..K: K=1 makes
# stores of equal values frequent), into build/sweep/SEED-vK/.
# Exit status 1 when some test differs.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-1000}
seed=${2:-1}
model=${MODEL:-$top/build/kernel-model/tools/memory-model}
# herd7's kept outputs are per model: another model's sweep has its own folder.
dir=$top/build/sweep/$seed${VALUES:+-v$VALUES}${MODEL:+-$(basename "$(dirname "$(dirname "$model")")")}
jobs=${JOBS:-$(nproc)}

rm -rf "$dir/tests" "$dir/lkmm"
mkdir -p "$dir/tests" "$dir/lkmm" "$dir/herd"
"$top/build/randlitmus" ${VALUES:+-values "$VALUES"} "$seed" "$n" "$dir/tests"
find "$dir/tests" -name '*.litmus' | sort -V > "$dir/list"
echo "sweep: $n tests from seed $seed in $dir/tests"

start=$(date +%s.%N)
"$top/bin/lkmm" check -q -j "$jobs" -timeout 60 -I "$model" -o "$dir/lkmm" @"$dir/list" || true
echo "sweep: lkmm took $(echo "$(date +%s.%N) - $start" | bc) s"

if [ -z "${HERD7:-}" ]; then
	echo "sweep: no HERD7=/path/to/herd7 given; lkmm's outputs are in $dir/lkmm"
	exit 0
fi

# herd7 on the tests whose kept output is missing or for another text, in
# batches (one herd7 process reads the model once for many tests): its
# output is cut at each "Test NAME" line; -timeout bounds each test's CPU
# time, and a test that printed nothing was not decided.
: > "$dir/todo"
while read -r t; do
	name=$(basename "$t" .litmus)
	if [ -f "$dir/herd/$name.litmus" ] && cmp -s "$t" "$dir/herd/$name.litmus" &&
	   [ -f "$dir/herd/$name.out" ]; then
		continue
	fi
	echo "$t" >> "$dir/todo"
done < "$dir/list"
herd_batch() {
	local t name
	(cd "$model" && nice "$HERD7" -conf linux-kernel.cfg -timeout "${HERD7_TIMEOUT:-60}" "$@") 2>/dev/null |
		awk -v d="$dir/herd" '/^Test / { if (f) close(f); f = d "/" $2 ".out" } f { print > f }'
	for t in "$@"; do
		name=$(basename "$t" .litmus)
		[ -s "$dir/herd/$name.out" ] || echo "herd7: no output (timeout or error)" > "$dir/herd/$name.out"
		cp "$t" "$dir/herd/$name.litmus"
	done
}
export -f herd_batch
export dir model HERD7
start=$(date +%s.%N)
while read -r t; do rm -f "$dir/herd/$(basename "$t" .litmus).out"; done < "$dir/todo"
xargs -P "$jobs" -n 40 bash -c 'herd_batch "$@"' _ < "$dir/todo"
echo "sweep: herd7 on $(wc -l < "$dir/todo") tests took $(echo "$(date +%s.%N) - $start" | bc) s"

# Compare, Time lines and blank lines aside, on copies (a few processes,
# not a few per test).
rm -rf "$dir/cmp" && mkdir -p "$dir/cmp/herd" "$dir/cmp/lkmm"
sed 's|.*/||; s|\.litmus$|.out|' "$dir/list" > "$dir/cmp/names"
(cd "$dir/herd" && xargs cp -t "$dir/cmp/herd" < "$dir/cmp/names")
(cd "$dir/lkmm" && xargs cp -t "$dir/cmp/lkmm" < "$dir/cmp/names") 2>/dev/null || true
(cd "$dir/cmp/herd" && grep -l '^herd7: ' -- *.out || true) > "$dir/undecided"
(cd "$dir/cmp" && sed 's|^|herd/|' ../undecided | xargs rm -f && sed 's|^|lkmm/|' ../undecided | xargs rm -f)
find "$dir/cmp" -name '*.out' -print0 | xargs -0 sed -i -e '/^Time /d' -e '/^$/d'
{ diff -rq "$dir/cmp/herd" "$dir/cmp/lkmm" 2>&1 || true; } | sed -n 's|^Files .*/herd/\(.*\)\.out and .*|\1|p; s|^Only in .*/herd: \(.*\)\.out|\1|p' |
	sed "s|^|$dir/tests/|; s|\$|.litmus|" > "$dir/differ"
differ=$(wc -l < "$dir/differ")
herdfail=$(wc -l < "$dir/undecided")
echo "sweep: $n tests, $differ differ from herd7, $herdfail not decided by herd7 (listed in $dir/differ)"
[ "$differ" -eq 0 ]
