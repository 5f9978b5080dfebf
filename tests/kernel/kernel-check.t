#!/usr/bin/env bash
# The kernel layer of `make check`: `make kernel-check` builds the patched
# kernel, boots it in QEMU and judges the console (KUnit, KCSAN, lockdep,
# WARN, BUG, Oops); see docs/kernel.md.  One TAP case; on failure the tail
# of its output follows as diagnostics.
top=$(cd "$(dirname "$0")/../.." && pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "1..1"
if make -C "$top" --no-print-directory kernel-check > "$log" 2>&1; then
	echo "ok 1 - make kernel-check: $(tail -n 1 "$log")"
	grep '^time:' "$log" | sed 's/^/# /'
else
	echo "not ok 1 - make kernel-check"
	tail -n 40 "$log" | sed 's/^/# /'
fi
