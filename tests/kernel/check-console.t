#!/bin/bash
# TAP: kernel/scripts/check-console.sh accepts a clean console log and
# flags each kind of problem in the sample logs under logs/.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CHECK=$HERE/../../kernel/scripts/check-console.sh

# log name | expected exit status | text that must appear in the output
CASES=(
	"clean|0|kunit: 5 passed, 0 failed, 1 skipped"
	"kcsan|1|problem: KCSAN: BUG: KCSAN: data-race in __iomap_dio_rw"
	"lockdep|1|problem: lockdep: WARNING: possible circular locking"
	"warn|1|problem: WARN: WARNING: CPU: 1 PID: 75"
	"atomic-sleep|1|problem: atomic sleep:"
	"oops|1|problem: Oops/panic: Oops:"
	"kunit-fail|1|kunit: 4 passed, 1 failed, 1 skipped"
	"guest-fail|1|problem: guest: lkmm-guest: FAIL: stress ext4"
	"dio-race-fail|1|problem: guest: lkmm-guest: FAIL: dio-race exited 1"
	"no-done|1|never printed \"lkmm-guest: done\""
	"no-ktap|1|problem: KUnit: no KTAP output"
)

echo "1..$(( ${#CASES[@]} * 2 + 1 ))"
n=0
for c in "${CASES[@]}"; do
	IFS='|' read -r name want_rc want_text <<<"$c"
	rc=0
	out=$("$CHECK" "$HERE/logs/$name.log") || rc=$?
	n=$((n + 1))
	if [ "$rc" = "$want_rc" ]; then
		echo "ok $n - $name: exit status $rc"
	else
		echo "not ok $n - $name: exit status $rc, want $want_rc"
	fi
	n=$((n + 1))
	if grep -Fq -- "$want_text" <<<"$out"; then
		echo "ok $n - $name: reports '$want_text'"
	else
		echo "not ok $n - $name: output lacks '$want_text'"
		sed 's/^/# /' <<<"$out"
	fi
done

# Only the KUnit tally may follow the problems: it is the closing line.
n=$((n + 1))
last=$("$CHECK" "$HERE/logs/kcsan.log" | tail -n 1) || true
if [[ $last == "kunit: "* ]]; then
	echo "ok $n - the KUnit tally is the last line"
else
	echo "not ok $n - last line is '$last'"
fi
