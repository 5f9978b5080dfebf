#!/usr/bin/env bash
# Time lkmm on the kernel's litmus corpus, test by test; with
# HERD7=/path/to/herd7, time herd7 on the same tests in the same run and
# print the ratio.  BENCH_SET=paulmck adds the paulmckrcu/litmus sample.
#
# Then `lkmm run` in the QEMU guest: iterations per second of each test's
# module; with KLITMUS7=/path/to/klitmus7, klitmus7's own modules for the
# same tests run in the same boot with the same parameters, and the ratio
# is printed.  BENCH_KERNEL=0 skips this part (it builds the kernel once).
#
# Wall-clock times on a shared machine are noisy: each test runs
# BENCH_REPEAT times (default 3) and the fastest run counts.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
model=$top/build/kernel-model/tools/memory-model
repeat=${BENCH_REPEAT:-3}
lkmm=$top/bin/lkmm

tests=$(find "$model/litmus-tests" "$top/build/kernel-model/Documentation/litmus-tests" \
	-name '*.litmus' | sort)
if [ "${BENCH_SET:-}" = paulmck ]; then
	tests+=" "$(find "$top/tests/src/corpus/paulmck-sample/litmus" -name '*.litmus' | sort)
fi

# Fastest of $repeat runs of a command, in seconds.  $EPOCHREALTIME keeps
# the clock reads out of the measured time (no date(1), no subshell).
fastest() {
	local best= start end t i
	for ((i = 0; i < repeat; i++)); do
		start=$EPOCHREALTIME
		"$@" > /dev/null 2>&1 || true
		end=$EPOCHREALTIME
		t=$(echo "$end - $start" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then
			best=$t
		fi
	done
	echo "$best"
}

# herd7 finds linux-kernel.cfg in the current directory; so may lkmm.
cd "$model"

total_lkmm=0
total_herd=0
slower=0
if [ -n "${HERD7:-}" ]; then
	printf '%-70s %10s %10s %8s\n' test lkmm herd7 ratio
else
	printf '%-70s %10s\n' test lkmm
fi
for t in $tests; do
	name=${t#"$top"/}
	l=$(fastest "$lkmm" check "$t")
	total_lkmm=$(echo "$total_lkmm + $l" | bc -l)
	if [ -n "${HERD7:-}" ]; then
		h=$(fastest "$HERD7" -conf linux-kernel.cfg "$t")
		total_herd=$(echo "$total_herd + $h" | bc -l)
		ratio=$(echo "$h / $l" | bc -l)
		[ "$(echo "$l > $h" | bc -l)" = 1 ] && slower=$((slower + 1))
		printf '%-70s %10.4f %10.4f %7.1fx\n' "$name" "$l" "$h" "$ratio"
	else
		printf '%-70s %10.4f\n' "$name" "$l"
	fi
done
# The whole set in one invocation, so that start-up costs count once.
all_lkmm=$(fastest "$lkmm" check $tests)
if [ -n "${HERD7:-}" ]; then
	all_herd=$(fastest "$HERD7" -conf linux-kernel.cfg $tests)
	printf '%-70s %10.4f %10.4f %7.1fx\n' "TOTAL (one process per test)" "$total_lkmm" \
		"$total_herd" "$(echo "$total_herd / $total_lkmm" | bc -l)"
	printf '%-70s %10.4f %10.4f %7.1fx\n' "TOTAL (one process for all tests)" "$all_lkmm" \
		"$all_herd" "$(echo "$all_herd / $all_lkmm" | bc -l)"
	echo "tests where lkmm was slower than herd7: $slower"
else
	printf '%-70s %10.4f\n' "TOTAL (one process per test)" "$total_lkmm"
	printf '%-70s %10.4f\n' "TOTAL (one process for all tests)" "$all_lkmm"
fi

[ "${BENCH_KERNEL:-1}" = 0 ] && exit 0

# In the guest.  Iterations per second from each module's own clock: ours
# from its "lkmm-run: end ... ns=" line, klitmus7's from its Time line.
runs=${BENCH_RUNS:-10}
size=${BENCH_SIZE:-20000}
kernel_tests="$model/litmus-tests/SB+poonceonces.litmus
$model/litmus-tests/MP+pooncerelease+poacquireonce.litmus
$model/litmus-tests/LB+poonceonces.litmus"
work=$top/build/bench
rm -rf "$work" && mkdir -p "$work"
if [ -n "${KLITMUS7:-}" ]; then
	mkdir -p "$work/klitmus"
	"$KLITMUS7" -o "$work/klitmus" $kernel_tests
	export LKMM_KLITMUS_DIR=$work/klitmus
fi
echo
echo "lkmm run: $runs runs of $size iterations per test, $(nproc) vCPUs (TCG)"
"$lkmm" run --runs "$runs" --size "$size" $kernel_tests > "$work/run.txt" 2>&1 ||
	{ cat "$work/run.txt"; exit 1; }
console=$top/build/run/console.log
iterations=$((runs * size))
if [ -n "${KLITMUS7:-}" ]; then
	printf '%-40s %14s %14s %8s\n' test "lkmm it/s" "klitmus7 it/s" ratio
else
	printf '%-40s %14s\n' test "lkmm it/s"
fi
for t in $kernel_tests; do
	name=$(basename "$t" .litmus)
	ns=$(sed -n "s/.*lkmm-run: end $name .* ns=\([0-9]*\).*/\1/p" "$console" | head -1)
	ours=$(echo "$iterations * 1000000000 / $ns" | bc)
	if [ -n "${KLITMUS7:-}" ]; then
		secs=$(sed -n '/running klitmus7/,$p' "$console" |
			sed -n "s/^Time $name \([0-9.]*\).*/\1/p" | head -1)
		theirs=$(echo "$iterations / $secs" | bc)
		printf '%-40s %14d %14d %7.2fx\n' "$name" "$ours" "$theirs" \
			"$(echo "$ours / $theirs" | bc -l)"
	else
		printf '%-40s %14d\n' "$name" "$ours"
	fi
done
grep '^Summary' "$work/run.txt"
