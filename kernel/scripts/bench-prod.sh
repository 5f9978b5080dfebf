#!/bin/bash
# `make kernel-bench`: the series on the production-like config
# (`kernel-check.sh --prod`: kernel/config/prod.config on top of
# lkmm.config, no KCSAN, lockdep or sleep checks, -O2): asynchronous
# O_DIRECT writes per second in the guest (dio-bench, on ext4 and on
# vfat), the median of LKMM_BENCH_RUNS runs, on the unpatched tree and on
# the series, with the ratio after/before.  (The series' KUnit suite has
# no benchmark: the call_once RFC keeps timings out of its tests.)
# The table goes to stdout and to $KBUILD_ROOT/kernel-bench.txt; the runs
# are recorded in docs/kernel-series.md.
#
# Environment: LKMM_BENCH_RUNS [5] runs per filesystem and kernel,
# LKMM_BENCH_SECONDS [5] seconds per run, LKMM_BENCH_DEPTH [32] writes in
# flight.
set -euo pipefail
. "$(dirname "$0")/common.sh"

GUEST=$KBUILD_ROOT/prod-guest
RUNS=${LKMM_BENCH_RUNS:-5}

# boot MODE: build that tree in the prod config, boot it with dio-bench
# instead of the stress, and check the console as kernel-check does.
boot() {
	local mode=$1 flag=
	[ "$mode" = series ] || flag=--$mode
	LKMM_KERNEL_ARGS="lkmm.bench=$RUNS lkmm.bench_seconds=${LKMM_BENCH_SECONDS:-5} lkmm.bench_depth=${LKMM_BENCH_DEPTH:-32}" \
		"$KERNEL_DIR/scripts/kernel-check.sh" --prod $flag >&2 ||
		die "the $mode kernel (prod config) failed its checks"
}

# Median writes/s of dio-bench on filesystem $1 in console log $2.
median_writes() {
	sed -n "s/.*dio-bench: $1: .*: \\([0-9]*\\) writes\\/s.*/\\1/p" "$2" | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

direct_io() {
	local fs before after
	printf '%-6s %16s %16s %8s   (median of %s runs)\n' fs "before writes/s" "after writes/s" ratio "$RUNS"
	for fs in ext4 vfat; do
		before=$(median_writes "$fs" "$GUEST/console-pristine.log")
		after=$(median_writes "$fs" "$GUEST/console-series.log")
		[ -n "$before" ] && [ -n "$after" ] || die "no dio-bench results for $fs"
		printf '%-6s %16s %16s %7.3fx\n' "$fs" "$before" "$after" "$(echo "$after / $before" | bc -l)"
	done
}

main() {
	boot pristine
	boot series
	direct_io | tee "$KBUILD_ROOT/kernel-bench.txt"
}

main "$@"
