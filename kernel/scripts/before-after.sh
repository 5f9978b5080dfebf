#!/bin/bash
# `make kernel-before-after`: run the direct-I/O stress with dense KCSAN
# sampling on the unpatched tree and then on the patched one, and count
# the KCSAN reports that involve s_dio_done_wq.  The result is the table
# in docs/kernel-before-after.md.
#
# Both runs use kernel-check's config plus kernel/config/kcsan-hunt.config,
# in a tree and object directory of their own (build/kernel/before-after/),
# so they never disturb kernel-check's; with ccache, only the first run of
# each tree is a cold build.  The KCSAN sampling knobs are written to
# sysfs by the guest just before the stress (lkmm.kcsan_* arguments), so
# the boot and KUnit run at normal speed.
#
# After the stress, each guest loads onetime_race.ko (kernel/guest/
# onetime-race): the same open-coded pattern raced by one kthread per CPU
# thousands of times, first as 6.12 has it (plain loads), then with
# acquire loads; KCSAN's reports in each part are counted on their own.
#
# Environment (defaults in brackets): LKMM_BA_ROUNDS [40],
# LKMM_BA_THREADS [8], LKMM_BA_WRITES [8], LKMM_BA_SKIP_WATCH [50],
# LKMM_BA_UDELAY [200], LKMM_BA_RACE_ROUNDS [2000].
set -euo pipefail
. "$(dirname "$0")/common.sh"

# Everything of this run lives below OUT; kernel-check.sh derives its tree,
# object and guest directories from KBUILD_ROOT.
OUT=$KBUILD_ROOT/before-after
mkdir -p "$OUT"
# Reuse kernel-check's KVM verdict rather than paying for another probe.
[ ! -f "$KBUILD_ROOT/kvm-probe.result" ] || cp "$KBUILD_ROOT/kvm-probe.result" "$OUT/"
export KBUILD_ROOT=$OUT KSRC=$OUT/src KOBJ=$OUT/obj KGUEST=$OUT/guest
export LKMM_CONFIG_EXTRA=$KERNEL_DIR/config/kcsan-hunt.config
export LKMM_ONETIME_RACE=1

# Functions on either side of the s_dio_done_wq accesses, as KCSAN names
# them in its "BUG: KCSAN: data-race in A / B" line.
DIO_WQ_FUNCS='sb_init_dio_done_wq|__iomap_dio_rw|iomap_dio_complete|iomap_dio_done|__blockdev_direct_IO|dio_set_defer_completion|dio_bio_end_aio|generic_shutdown_super'

# run MODE: kernel-check on that tree with the hunting settings; its exit
# status is expected to be non-zero when KCSAN reports, so keep it.
run() {
	local mode=$1 rc=0
	LKMM_ROUNDS=${LKMM_BA_ROUNDS:-40} LKMM_THREADS=${LKMM_BA_THREADS:-8} \
	LKMM_WRITES=${LKMM_BA_WRITES:-8} \
	LKMM_KERNEL_ARGS="lkmm.kcsan_skip_watch=${LKMM_BA_SKIP_WATCH:-50} lkmm.kcsan_udelay_task=${LKMM_BA_UDELAY:-200} lkmm.onetime_race=plain,acquire lkmm.onetime_rounds=${LKMM_BA_RACE_ROUNDS:-2000}" \
		"$KERNEL_DIR/scripts/kernel-check.sh" "--$mode" >"$OUT/$mode.out" 2>&1 || rc=$?
	grep -q '^lkmm-guest: done' "$KGUEST/console-$mode.log" ||
		die "$mode: the guest did not finish; see $OUT/$mode.out"
	echo "$rc"
}

# summary MODE RC: one line per tree plus the distinct KCSAN report titles.
summary() {
	local mode=$1 rc=$2 log=$KGUEST/console-$1.log all dio
	all=$(grep -c 'BUG: KCSAN: ' "$log" || true)
	dio=$(grep 'BUG: KCSAN: ' "$log" | grep -Ec "$DIO_WQ_FUNCS" || true)
	echo "$mode: kernel-check exit $rc, KCSAN reports: $all, of them on s_dio_done_wq paths: $dio;" \
	     "$(grep '^dio-stress: PASS' "$log" | sed 's/^dio-stress: PASS //' | paste -sd ';' -)"
	grep -o 'BUG: KCSAN: .*' "$log" | sort | uniq -c | sed 's/^/    /'
	race_summary "$log"
}

# The KCSAN reports while onetime_race.ko ran, per mode, and its own line.
race_summary() {
	sed 's/^\[ *[0-9.]*\] //' "$1" | awk '
	/^lkmm-guest: onetime_race mode=/ { mode = substr($2, 6); order[++n] = mode; next }
	/^lkmm-guest: onetime_race end/   { mode = ""; next }
	mode != "" && /BUG: KCSAN: /      { reports[mode]++ }
	mode != "" && /^onetime_race: /   { result[mode] = $0 }
	END {
		for (i = 1; i <= n; i++)
			printf "    onetime_race %s: KCSAN reports: %d; %s\n", order[i],
			       reports[order[i]], result[order[i]] ? result[order[i]] : "(no result line)"
	}'
}

main() {
	local before after
	before=$(run pristine)
	after=$(run series)
	{
		echo "settings: rounds=${LKMM_BA_ROUNDS:-40} threads=${LKMM_BA_THREADS:-8} writes=${LKMM_BA_WRITES:-8}" \
		     "kcsan.skip_watch=${LKMM_BA_SKIP_WATCH:-50} kcsan.udelay_task=${LKMM_BA_UDELAY:-200}" \
		     "onetime_race rounds=${LKMM_BA_RACE_ROUNDS:-2000}"
		summary pristine "$before"
		summary series "$after"
	} | tee "$OUT/summary.txt"
}

main "$@"
