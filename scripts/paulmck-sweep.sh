#!/usr/bin/env bash
# paulmck-sweep.sh - every C test of Paul McKenney's litmus collection.
#
#   PAULMCK_LITMUS=DIR scripts/paulmck-sweep.sh     (make paulmck-sweep PAULMCK_LITMUS=DIR)
#
# DIR is a checkout of https://github.com/paulmckrcu/litmus.  Checks each
# of its C tests once, in one lkmm process with -j (JOBS, default: every
# CPU) and -timeout 60, as herd7's sweep (tools/memory-model/scripts/
# initlitmushist.sh) is bounded; then prints the wall time, the tests
# decided, those that hit the timeout or were refused, the slowest 20,
# and each verdict held against the test's own "Result:" comment (the
# collection records herd7's verdict there).  Only the summary lines of
# each test are kept (build/paulmck-sweep/summary): the full output has
# every final state, gigabytes for the tests with 2^18 of them.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
src=${PAULMCK_LITMUS:?give PAULMCK_LITMUS=DIR, a checkout of https://github.com/paulmckrcu/litmus}
model=$top/build/kernel-model/tools/memory-model
dir=$top/build/paulmck-sweep
jobs=${JOBS:-$(nproc)}
limit=${SWEEP_TIMEOUT:-60}

rm -rf "$dir" && mkdir -p "$dir"
src=$(cd "$src" && pwd)
find "$src" -name '*.litmus' -print0 | sort -z |
	xargs -0 awk 'FNR == 1 { if (/^C /) print FILENAME; nextfile }' > "$dir/list"
echo "sweep: $(wc -l < "$dir/list") C tests in $src, -j $jobs, -timeout $limit"

start=$EPOCHREALTIME
"$top/bin/lkmm" check -j "$jobs" -timeout "$limit" -I "$model" @"$dir/list" \
	2> "$dir/errors" | grep -E '^(Test|Observation|Time|Flag) ' > "$dir/summary" || true
wall=$(echo "$EPOCHREALTIME - $start" | bc)

decided=$(grep -c '^Observation ' "$dir/summary" || true)
timeouts=$(grep -c 'no verdict within' "$dir/errors" || true)
refused=$(grep -c ': error: ' "$dir/errors" || true)
printf 'sweep: %.0f s wall; %d decided, %d timed out, %d refused (errors in %s)\n' \
	"$wall" "$decided" "$timeouts" "$refused" "$dir/errors"
echo "sweep: the slowest 20 (seconds, test):"
awk '/^Time / { print $3, $2 }' "$dir/summary" | sort -rn | awk 'NR <= 20 { print "  " $0 }'

# The verdict each test's comment records, by test name (the second word
# of its first line, as herd7 names it), in one pass over the files.
tr '\n' '\0' < "$dir/list" | xargs -0 awk '
	function done_file() { if (name != "") print name, result }
	FNR == 1 { done_file(); name = $2; result = "none"; seen = 0 }
	!seen && match($0, /Result: *[A-Za-z]*/) {
		seen = 1
		split(substr($0, RSTART, RLENGTH), w, / +/)
		if (w[2] != "")
			result = w[2]
	}
	END { done_file() }' | sort > "$dir/recorded"
awk '/^Observation / { print $2, $3 }' "$dir/summary" | sort > "$dir/ours"
join "$dir/recorded" "$dir/ours" > "$dir/both"
agree=$(awk '$2 == $3' "$dir/both" | wc -l)
unrecorded=$(awk '$2 == "none"' "$dir/both" | wc -l)
differ=$(awk '$2 != "none" && $2 != $3' "$dir/both" | wc -l)
echo "sweep: against the Result: comments: $agree agree, $differ differ, $unrecorded have none"
awk '$2 != "none" && $2 != $3 { print "  differs:", $0 }' "$dir/both"
