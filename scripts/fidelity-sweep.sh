#!/usr/bin/env bash
# fidelity-sweep.sh - lkmm against herd7 on random LKMM tests.
#
#   scripts/fidelity-sweep.sh [N [SEED]]        (make fidelity-sweep N=... SEED=...)
#
# Generates N tests (default 1000) from SEED (default 1) with
# build/randlitmus into build/sweep/SEED/, checks them all with lkmm
# (-o: one output file a test), and, when HERD7=/path/to/herd7 is given,
# runs herd7 on each (bounded by HERD7_TIMEOUT seconds, default 60; its
# outputs are kept in build/sweep/SEED/herd and reused while the test is
# unchanged) and reports every test whose output differs, Time aside.
# Exit status 1 when some test differs.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-1000}
seed=${2:-1}
model=$top/build/kernel-model/tools/memory-model
dir=$top/build/sweep/$seed
jobs=${JOBS:-$(nproc)}

rm -rf "$dir/tests" "$dir/lkmm"
mkdir -p "$dir/tests" "$dir/lkmm" "$dir/herd"
"$top/build/randlitmus" "$seed" "$n" "$dir/tests"
find "$dir/tests" -name '*.litmus' | sort -V > "$dir/list"
echo "sweep: $n tests from seed $seed in $dir/tests"

start=$(date +%s.%N)
"$top/bin/lkmm" check -q -j "$jobs" -timeout 60 -I "$model" -o "$dir/lkmm" @"$dir/list" || true
echo "sweep: lkmm took $(echo "$(date +%s.%N) - $start" | bc) s"

if [ -z "${HERD7:-}" ]; then
	echo "sweep: no HERD7=/path/to/herd7 given; lkmm's outputs are in $dir/lkmm"
	exit 0
fi

# herd7 on the tests whose kept output is missing or for another text.
herd_one() {
	local t=$1 name
	name=$(basename "$t" .litmus)
	if [ -f "$dir/herd/$name.litmus" ] && cmp -s "$t" "$dir/herd/$name.litmus" &&
	   [ -f "$dir/herd/$name.out" ]; then
		return 0
	fi
	(cd "$model" && timeout "${HERD7_TIMEOUT:-60}" nice "$HERD7" -conf linux-kernel.cfg "$t") \
		> "$dir/herd/$name.out" 2>&1 || echo "herd7: status $?" >> "$dir/herd/$name.out"
	cp "$t" "$dir/herd/$name.litmus"
}
export -f herd_one
export dir model HERD7
start=$(date +%s.%N)
xargs -P "$jobs" -I{} bash -c 'herd_one "$@"' _ {} < "$dir/list"
echo "sweep: herd7 took $(echo "$(date +%s.%N) - $start" | bc) s"

differ=0 herdfail=0
: > "$dir/differ"
while read -r t; do
	name=$(basename "$t" .litmus)
	if grep -q '^herd7: status' "$dir/herd/$name.out"; then
		herdfail=$((herdfail + 1))
		continue
	fi
	if ! diff <(grep -v -e '^Time ' -e '^$' "$dir/herd/$name.out") \
		  <(grep -v -e '^Time ' -e '^$' "$dir/lkmm/$name.out" 2>/dev/null) > /dev/null; then
		differ=$((differ + 1))
		echo "$t" >> "$dir/differ"
	fi
done < "$dir/list"
echo "sweep: $n tests, $differ differ from herd7, $herdfail not decided by herd7 (listed in $dir/differ)"
[ "$differ" -eq 0 ]
