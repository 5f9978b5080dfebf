#!/bin/bash
# Judge a guest console log.  Prints one line per problem found, then the
# KUnit tally as its last line ("kunit: P passed, F failed, S skipped"),
# and exits 1 if anything is wrong:
#   - a KCSAN report, a lockdep or RCU-lockdep splat, a sleeping-in-atomic
#     BUG, any other WARN, BUG, Oops or panic;
#   - a KUnit test that is "not ok", or no KUnit results at all;
#   - the guest did not finish ("lkmm-guest: done") or reported a FAIL.
#
# Usage: check-console.sh CONSOLE_LOG
#
# KUnit results are counted at the leaves of the KTAP tree: a result line
# is a leaf unless the result line before it is nested deeper (then it is
# the summary of that suite or parameterised test).
set -euo pipefail

scan() {
	# printk time stamps and the serial port's CRs are noise here.
	sed -e 's/\r$//' -e 's/^\[ *[0-9]*\.[0-9]*\] //' "$1" | awk '
	function problem(kind) {
		printf "problem: %s: %s\n", kind, $0
		problems++
	}
	/BUG: KCSAN: /                                       { problem("KCSAN"); next }
	/BUG: sleeping function called from invalid context/ { problem("atomic sleep"); next }
	/^(WARNING|BUG): .*([Ll]ock|RCU)/                   { problem("lockdep"); next }
	/^INFO: (possible|lockdep)/                          { problem("lockdep"); next }
	/^WARNING: CPU: [0-9]+ PID: /                        { problem("WARN"); next }
	/^BUG: |kernel BUG at /                              { problem("BUG"); next }
	/^Oops: |^Kernel panic - /                           { problem("Oops/panic"); next }
	/^lkmm-guest: FAIL/                                  { problem("guest"); next }
	/^lkmm-guest: done$/                                 { done = 1; next }
	/^KTAP version /                                     { ktap = 1; next }
	/^ *(not )?ok [0-9]+ / {
		match($0, /^ */)
		depth = RLENGTH
		leaf = (last_depth == "" || last_depth <= depth)
		last_depth = depth
		if (!leaf)
			next
		if ($0 ~ /^ *not ok /) {
			problem("KUnit")
			failed++
		} else if ($0 ~ /# SKIP/) {
			skipped++
		} else {
			passed++
		}
	}
	END {
		if (!ktap) {
			print "problem: KUnit: no KTAP output in the log"
			problems++
		}
		if (!done) {
			print "problem: guest: never printed \"lkmm-guest: done\" (hang, crash or timeout?)"
			problems++
		}
		printf "kunit: %d passed, %d failed, %d skipped\n", passed, failed, skipped
		exit (problems > 0)
	}'
}

main() {
	[ $# = 1 ] && [ -f "$1" ] || { echo "usage: check-console.sh CONSOLE_LOG" >&2; exit 2; }
	scan "$1"
}

main "$@"
