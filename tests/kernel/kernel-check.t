#!/usr/bin/env bash
# The kernel layer of `make check`, as `make kernel-check` runs it: build the
# patched kernel, boot it in QEMU and judge the console (KUnit, KCSAN,
# lockdep, WARN, BUG, Oops; see docs/kernel.md), once with the checkers on
# and once on the production-like config.  One TAP case per config; on
# failure the tail of its output follows as diagnostics.
top=$(cd "$(dirname "$0")/../.." && pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

configs=("debug:" "prod:--prod")
echo "1..${#configs[@]}"
n=0
for c in "${configs[@]}"; do
	n=$((n + 1))
	name=${c%%:*} flag=${c#*:}
	# shellcheck disable=SC2086 # $flag is one option or none
	if "$top/kernel/scripts/kernel-check.sh" $flag > "$log" 2>&1; then
		echo "ok $n - kernel-check $name config: $(tail -n 1 "$log")"
		grep '^time:' "$log" | sed 's/^/# /'
	else
		echo "not ok $n - kernel-check $name config"
		tail -n 40 "$log" | sed 's/^/# /'
	fi
done
