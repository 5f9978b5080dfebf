#!/bin/bash
# `make kernel-bench`: the series' kernel in a production-like config (no
# KCSAN, lockdep or other debugging: kernel/config/prod.config on top of
# lkmm.config), built in build/kernel/prod-obj/ and booted as `make
# kernel-check` boots its kernel; then the lazy_init KUnit benchmark's fast
# paths as ratios to a bare READ_ONCE() check (docs/kernel-series.md).
set -euo pipefail
. "$(dirname "$0")/common.sh"

export KOBJ=$KBUILD_ROOT/prod-obj KGUEST=$KBUILD_ROOT/prod-guest
export LKMM_CONFIG_EXTRA=$KERNEL_DIR/config/prod.config

# ns per call of one line of the benchmark, e.g. "READ_ONCE() check" (a
# basic regular expression: its parentheses and '+' match themselves).
ns_per_call() {
	sed -n "s/.*lazy_init_benchmark: $1: *\\([0-9.]*\\) ns per call.*/\\1/p" "$2" | tail -1
}

main() {
	local console=$KGUEST/console-series.log base what ns
	"$KERNEL_DIR/scripts/kernel-check.sh" || die "the production-config kernel failed its checks"
	base=$(ns_per_call 'READ_ONCE() check' "$console")
	[ -n "$base" ] || die "no benchmark lines in $console"
	printf '%-30s %12s %10s\n' "fast path" "ns per call" "ratio"
	for what in 'lazy_once_call() done' 'lazy_ptr_get() published' 'READ_ONCE() check' \
		    'mutex_lock()+mutex_unlock()'; do
		ns=$(ns_per_call "$what" "$console")
		printf '%-30s %12s %9.2fx\n' "$what" "$ns" "$(echo "$ns / $base" | bc -l)"
	done
}

main "$@"
