#!/bin/bash
# `make cocci-sweep CODE=1`: `lkmm code` on every report of the Coccinelle
# sweep (build/kernel/cocci-sweep/report.txt, made first if missing), in
# the untouched 6.12 tree, held against the hand triage of docs/coccinelle.md.
#
# A report that names a publication ("... published with cmpxchg() at
# FILE:LINE") is checked as two tasks: the function around the
# publication and the function around the report's line.  A report of a
# failed cmpxchg() names one place: two tasks run the function around it.
# Each run has CODE_TIMEOUT seconds (default 60).
#
# The triage gives each published pointer a verdict (kernel/cocci-triage.txt:
# FIELD race|norace); lkmm code's verdict on a report agrees when it says
# "data race" (Flag data-race, or an uninitialized object reachable) for
# a race, and nothing (Never, no flag) for norace.
#
# Output: build/kernel/cocci-sweep/code.tsv (report, pointer, triage,
# verdict, seconds, first error line) and code-summary.txt.
set -euo pipefail
. "$(dirname "$0")/common.sh"

OUT=${COCCI_OUT:-$KBUILD_ROOT/cocci-sweep}
TRIAGE=$KERNEL_DIR/cocci-triage.txt
LKMM=$LKMM_ROOT/bin/lkmm
PRISTINE=$KBUILD_ROOT/pristine
CODE_TIMEOUT=${CODE_TIMEOUT:-60}

[ -s "$OUT/report.txt" ] || "$(dirname "$0")/cocci-sweep.sh"
"$(dirname "$0")/code-trees.sh"
[ -x "$LKMM" ] || die "$LKMM missing: make all"

# The pointer a report is about: the field after "of", or the global.
pointer_of() {
	sed -n 's/.* \(plain load\|READ_ONCE()\) of \([A-Za-z_0-9]*\).*/\2/p' <<< "$1"
}

triage_of() {
	local v
	v=$(awk -v f="$1" '$1 == f { print $2 }' "$TRIAGE")
	echo "${v:-norace}"
}

start=$(date +%s)
: > "$OUT/code.tsv"
while IFS= read -r report; do
	site=$(cut -d: -f1,2 <<< "$report")
	pub=$(sed -n 's/.* published\( with [^ ]*\)\{0,1\} at \([^ :]*:[0-9]*\).*/\2/p' <<< "$report")
	ptr=$(pointer_of "$report")
	[ -n "$ptr" ] || ptr=$(awk -v s="${site%%:*}" '$3 ~ "^"s":" { sub(/^->/, "", $1); print $1; exit }' \
		"$OUT/publishers.txt")
	if [ -n "$pub" ]; then
		tasks=("$pub" "$site")
	else
		tasks=("$site" "$site")
	fi
	t0=$(date +%s.%N)
	set +e
	out=$(timeout "$CODE_TIMEOUT" "$LKMM" code --tree "$PRISTINE" "${tasks[@]}" 2>&1)
	status=$?
	set -e
	t1=$(date +%s.%N)
	error=
	if [ "$status" -eq 124 ]; then
		verdict=timeout
	elif [ "$status" -eq 3 ]; then
		verdict=limit
		error=$(grep -m1 'lkmm: ' <<< "$out")
	elif [ "$status" -ne 0 ]; then
		verdict=error
		error=$(grep -m1 'error:' <<< "$out" || head -1 <<< "$out")
	elif grep -q '^Flag data-race$' <<< "$out"; then
		verdict=race
	elif grep -qE '^Observation .* (Sometimes|Always) ' <<< "$out"; then
		verdict=reachable
	else
		verdict=clean
	fi
	printf '%s\t%s\t%s\t%s\t%.1f\t%s\n' "$site" "${ptr:--}" "$(triage_of "${ptr:--}")" "$verdict" \
		"$(echo "$t1 - $t0" | bc)" "$error" >> "$OUT/code.tsv"
done < "$OUT/report.txt"
end=$(date +%s)

awk -F'\t' -v secs=$((end - start)) '
	{ n++; v[$4]++
	  if ($4 == "race" || $4 == "reachable" || $4 == "clean") {
		classified++
		said = ($4 == "clean") ? "norace" : "race"
		if (said == $3) agree++; else disagree[$3 " -> " $4]++
	  } }
	END {
		printf "reports: %d; lkmm code ran on all in %d s\n", n, secs
		for (k in v) printf "  %s: %d\n", k, v[k]
		printf "classified: %d of %d; agreeing with the triage: %d\n", classified, n, agree
		for (k in disagree) printf "  disagree (triage -> lkmm code): %s: %d\n", k, disagree[k]
	}' "$OUT/code.tsv" | tee "$OUT/code-summary.txt"
