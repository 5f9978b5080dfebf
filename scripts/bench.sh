#!/usr/bin/env bash
# Time lkmm on the kernel's litmus corpus, test by test, then on issue
# 11's heavy tests and 1,000 generated ones (build/randlitmus); with
# HERD7=/path/to/herd7, time herd7 on the same tests in the same run and
# print the ratio.  BENCH_SET=paulmck adds the paulmckrcu/litmus sample;
# PAULMCK_LITMUS=DIR (a checkout of paulmckrcu/litmus) adds the sweep of
# all of it (scripts/paulmck-sweep.sh).  A heavy test checked alone uses
# every CPU (its search is split among threads, lkmm check's default -j).
#
# Then --suggest (scripts/bench-suggest.sh), and `lkmm run` in the QEMU guest: iterations per second of each test's
# module; with KLITMUS7=/path/to/klitmus7, klitmus7's own modules for the
# same tests run in the same boot with the same parameters, and the ratio
# is printed.  BENCH_KERNEL=0 skips this part (it builds the kernel once).
#
# Wall-clock times on a shared machine are noisy: each test runs
# BENCH_REPEAT times (default 3) and the fastest run counts.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
model=$top/build/kernel-model/tools/memory-model
# lkmm's model cache: the bench's own, warm after the first run.
export LKMM_CACHE_DIR=$top/build/bench-cache
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

# Issue 11's table, row by row.  The heavy rows are bounded by
# BENCH_TIMEOUT seconds (default 60; lkmm's -timeout, herd7's own) and
# print "> N s" when it is hit; BENCH_HEAVY_HERD7=0 runs no herd7 on them
# (it takes more than ten minutes on each).
sample=$top/tests/src/corpus/paulmck-sample/litmus
t10=$sample/auto/C-RW-R+RW-R+RW-G+RW-G+RW-G+RW-G+RW-R+RW-R+RW-R+RW-R.litmus
t16=$sample/auto/C-RW-R+RW-R+RW-G+RW-G+RW-G+RW-G+RW-R+RW-R+RW-R+RW-R+RW-G+RW-G+RW-G+RW-G+RW-R+RW-R.litmus
limit=${BENCH_TIMEOUT:-60}

# One run of a command bounded by $limit seconds: its time, or "> N s".
bounded() {
	local start end t
	start=$EPOCHREALTIME
	"$@" > /dev/null 2>&1 || true
	end=$EPOCHREALTIME
	t=$(echo "$end - $start" | bc -l)
	if [ "$(echo "$t >= $limit" | bc -l)" = 1 ]; then
		echo "> $limit s"
	else
		printf '%.4f\n' "$t"
	fi
}

# A row: its name, lkmm's time and, with HERD7=, herd7's and the ratio.
# The times are given; "light" rows run BENCH_REPEAT times, the fastest counts.
row() {
	local name=$1 l=$2 h=$3 ratio=
	[[ $l == [0-9.]* ]] && l=$(printf '%.4f' "$l")
	[[ $h == [0-9.]* ]] && h=$(printf '%.4f' "$h")
	if [ -z "${HERD7:-}" ]; then
		printf '%-50s %12s\n' "$name" "$l"
		return
	fi
	case "$l$h" in
	*'>'*|*-*) ratio=- ;;
	*) ratio=$(printf '%.1fx' "$(echo "$h / $l" | bc -l)") ;;
	esac
	printf '%-50s %12s %12s %8s\n' "$name" "$l" "$h" "$ratio"
}

# herd7's time on a light row, or "-" without HERD7=.
herd_light() {
	if [ -n "${HERD7:-}" ]; then fastest "$HERD7" -conf linux-kernel.cfg "$@"; else echo -; fi
}

# herd7's time on a heavy row, bounded, or "-" when not run.
herd_heavy() {
	if [ -n "${HERD7:-}" ] && [ "${BENCH_HEAVY_HERD7:-1}" != 0 ]; then
		bounded "$HERD7" -conf linux-kernel.cfg -timeout "$limit" "$@"
	else
		echo -
	fi
}

# Start-up: the mean of 200 runs of lkmm on a small test against as many
# of an empty C program; the target is a difference under 0.5 ms.  The
# model cache is warm (the run before fills it); a cold start, which
# parses the model, for comparison.
mkdir -p "$top/build/bench"
printf 'int main(void) { return 0; }\n' > "$top/build/bench/empty.c"
${CC:-cc} -O2 -o "$top/build/bench/empty" "$top/build/bench/empty.c"
mean_ms() {
	local start end i
	start=$EPOCHREALTIME
	for ((i = 0; i < 200; i++)); do "$@" > /dev/null 2>&1 || true; done
	end=$EPOCHREALTIME
	echo "($end - $start) * 1000 / 200" | bc -l
}
sb=$model/litmus-tests/SB+poonceonces.litmus
"$lkmm" check "$sb" > /dev/null
empty_ms=$(mean_ms "$top/build/bench/empty")
sb_ms=$(mean_ms "$lkmm" check "$sb")
cold_ms=$(mean_ms "$lkmm" check --no-model-cache "$sb")
echo
printf 'start-up: lkmm check SB+poonceonces %.2f ms a run (model cache warm), an empty C program %.2f ms: +%.2f ms\n' \
	"$sb_ms" "$empty_ms" "$(echo "$sb_ms - $empty_ms" | bc -l)"
printf 'start-up without the model cache (--no-model-cache): %.2f ms, +%.2f ms\n' \
	"$cold_ms" "$(echo "$cold_ms - $empty_ms" | bc -l)"

echo
if [ -n "${HERD7:-}" ]; then
	printf '%-50s %12s %12s %8s\n' "issue 11's table" lkmm herd7 ratio
else
	printf '%-50s %12s\n' "issue 11's table" lkmm
fi
ntests=$(echo $tests | wc -w)
row "kernel corpus, one process per test ($ntests)" "$total_lkmm" "$total_herd"
row "kernel corpus, one process for all" "$all_lkmm" "${all_herd:--}"
row "T10 (auto/, 10 procs, full)" "$(fastest "$lkmm" check "$t10")" "$(herd_light "$t10")"
row "T16 (16 procs) -speedcheck true" \
	"$(bounded "$lkmm" check -timeout "$limit" -speedcheck true "$t16")" \
	"$(herd_heavy -speedcheck true "$t16")"
row "T16 (16 procs) full" "$(bounded "$lkmm" check -timeout "$limit" "$t16")" \
	"$(herd_heavy "$t16")"
row "manual/kernel/C-seqlock" "$(fastest "$lkmm" check "$sample/manual/kernel/C-seqlock.litmus")" \
	"$(herd_light "$sample/manual/kernel/C-seqlock.litmus")"
row "manual/kernel/C-ManfredSpraul-L1G2xchg" \
	"$(bounded "$lkmm" check -timeout "$limit" \
		"$sample/manual/kernel/C-ManfredSpraul-L1G2xchg.litmus")" \
	"$(herd_heavy "$sample/manual/kernel/C-ManfredSpraul-L1G2xchg.litmus")"

# Generated tests (build/randlitmus, BENCH_GEN_SEED, default 4242), all in
# one process each: the per-test cost of small tests, the fidelity
# sweep's kind.
gen=$top/build/bench/generated
rm -rf "$gen" && mkdir -p "$gen"
"$top/build/randlitmus" "${BENCH_GEN_SEED:-4242}" 1000 "$gen" > /dev/null
gen_tests=$(find "$gen" -name '*.litmus' | sort)
row "1,000 generated tests, one process for all" "$(fastest "$lkmm" check $gen_tests)" \
	"$(herd_light $gen_tests)"

# The 6.15 model (lkmmv2: no fences around a fully ordered RMW, tags
# filtered by the bell) against the 6.12 one, on the same tests: the
# ratio is 6.12's time over 6.15's (above 1: the new model is faster).
model_615=$top/build/kernel-model-6.15/tools/memory-model
if [ -d "$model_615" ]; then
	echo
	printf '%-50s %12s %12s %8s\n' "the 6.15 model against the 6.12 one" 6.12 6.15 ratio
	models_row() {
		local name=$1 old new
		shift
		old=$(fastest "$lkmm" check -I "$model" "$@")
		new=$(fastest "$lkmm" check -I "$model_615" "$@")
		printf '%-50s %12.4f %12.4f %7.2fx\n' "$name" "$old" "$new" "$(echo "$old / $new" | bc -l)"
	}
	models_row "kernel corpus, one process for all ($ntests)" $tests
	models_row "paulmck sample, one process for all" \
		$(find "$sample" -name '*.litmus' ! -name 'C-RW-R+RW-R+RW-G+RW-G+RW-G+RW-G+RW-R*' | sort)
	models_row "manual/kernel/C-ManfredSpraul-L1G2xchg" \
		"$sample/manual/kernel/C-ManfredSpraul-L1G2xchg.litmus"
	models_row "manual/kernel/C-seqlock" "$sample/manual/kernel/C-seqlock.litmus"
fi

# --suggest's answers and times (BENCH_SUGGEST=0 skips them).
if [ "${BENCH_SUGGEST:-1}" != 0 ]; then
	echo
	"$top/scripts/bench-suggest.sh"
fi

# The whole of paulmckrcu/litmus, when a checkout is given.
if [ -n "${PAULMCK_LITMUS:-}" ]; then
	echo
	"$top/scripts/paulmck-sweep.sh"
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
