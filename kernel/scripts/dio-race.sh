#!/bin/bash
# `make kernel-dio-race` (not part of `make check`): how many workqueues
# sb_init_dio_done_wq() creates per fresh superblock when the first
# asynchronous O_DIRECT writes after a mount race each other, before the
# series (Debian's untouched 6.12: allocate, publish with cmpxchg(), the
# losers destroy theirs) and after it (call-once patch 5: allocate under
# call_once()'s mutex).
#
# Both kernels are the production-like ones of `kernel-check.sh --prod`
# (lkmm.config, prod.config, and the series' KCONFIG after), built by it
# with --build-only in its own object directories (prod-obj-pristine,
# prod-obj-series; the second is the one `make kernel-check` boots), with
# no measurement-only change: the guest counts the workqueues through
# tracepoints (lkmm.config turns on CONFIG_FTRACE).  Each "dio/<dev>"
# workqueue is WQ_MEM_RECLAIM, so alloc_workqueue() starts a rescuer
# kthread for it and destroy_workqueue() stops it; dio-race
# (kernel/guest/dio-race/dio-race.c) counts them with task:task_newtask
# and sched:sched_process_exit.  Its guest (own initramfs,
# kernel/guest/dio-race/init, KUnit off) runs R rounds of: mount ext4, N
# threads io_submit() one 4 KiB O_DIRECT overwrite each at the same moment
# (released by a flag they spin on), wait, unmount.  Each mount is a new
# superblock with no s_dio_done_wq.
#
# The run after the series must show exactly one workqueue per superblock,
# none destroyed before the unmount (dio-race's "one" mode: the script
# fails otherwise); before it, dio-race only counts.
#
# Usage: dio-race.sh [--build-only | --boot-only] [before] [after]
#   --build-only  build the two kernels and the guest, boot nothing
#   --boot-only   boot the kernels already built (switching the shared
#                 tree between pristine and series makes kbuild recompile
#                 what the series touches, with ccache, in each object
#                 directory)
#   before, after only that side (default: both)
#
# Environment: LKMM_DIO_RACE_ROUNDS [100], LKMM_DIO_RACE_THREADS [8],
# LKMM_SMP [4] vCPUs.  The two totals go to stdout and to
# $KBUILD_ROOT/dio-race.txt; the per-round lines are in the console logs
# ($KBUILD_ROOT/dio-race-guest/console-{before,after}.log).
set -euo pipefail
. "$(dirname "$0")/common.sh"

export KGUEST=$KBUILD_ROOT/dio-race-guest
SCRIPTS=$KERNEL_DIR/scripts
SRC=$KERNEL_DIR/guest/dio-race
ROUNDS=${LKMM_DIO_RACE_ROUNDS:-100}
THREADS=${LKMM_DIO_RACE_THREADS:-8}
export LKMM_SMP=${LKMM_SMP:-4}

# The program, an initramfs with it and its init, the ext4 disk (the
# boot opens both disks; the second stays unused).  $1: an object
# directory with usr/gen_init_cpio.
build_guest() {
	mkdir -p "$KGUEST"
	gcc -std=c11 -Wall -Wextra -Werror -O2 -static -pthread \
		-I"$KERNEL_DIR/guest" -o "$KGUEST/dio-race" "$SRC/dio-race.c"
	{
		initramfs_base "$SRC/init"
		printf '%s\n' "dir /mnt 0755 0 0" "file /dio-race $KGUEST/dio-race 0755 0 0"
	} >"$KGUEST/initramfs.list"
	"$1/usr/gen_init_cpio" "$KGUEST/initramfs.list" >"$KGUEST/initramfs.cpio"
	rm -f "$KGUEST/ext4.img" "$KGUEST/vfat.img"
	truncate -s 64M "$KGUEST/ext4.img" "$KGUEST/vfat.img"
	mkfs.ext4 -q -F "$KGUEST/ext4.img"
}

# run SIDE MODE EXPECT: boot the prod-obj-MODE kernel with dio-race in
# EXPECT mode; print its total line, prefixed with SIDE.
run() {
	local side=$1 mode=$2 expect=$3 console=$KGUEST/console-$1.log
	KOBJ=$KBUILD_ROOT/prod-obj-$mode LKMM_INITRD=$KGUEST/initramfs.cpio \
		"$SCRIPTS/boot.sh" "$console" kunit.enable=0 \
		"lkmm.dio_race_rounds=$ROUNDS" "lkmm.dio_race_threads=$THREADS" \
		"lkmm.dio_race_expect=$expect" ||
		die "boot failed; console log: $console"
	grep -q '^dio-race: total: ' "$console" ||
		die "dio-race gave no total; console log: $console"
	printf '%-6s (%s) %s\n' "$side" "$mode" \
		"$(sed -n 's/\r$//; s/^dio-race: total: //p' "$console")"
	grep -q '^dio-race: PASS' "$console" ||
		die "$side: dio-race did not pass; console log: $console"
}

main() {
	local mode=all sides=() side
	for side; do
		case $side in
		--build-only) mode=build ;;
		--boot-only) mode=boot ;;
		before|after) sides+=("$side") ;;
		*) die "usage: dio-race.sh [--build-only | --boot-only] [before] [after]" ;;
		esac
	done
	[ ${#sides[@]} -gt 0 ] || sides=(before after)
	if [ "$mode" != boot ]; then
		"$SCRIPTS/kernel-check.sh" --prod --pristine --build-only
		"$SCRIPTS/kernel-check.sh" --prod --build-only
	fi
	# gen_init_cpio is a host tool, the same in both object directories.
	if [ -x "$KBUILD_ROOT/prod-obj-series/usr/gen_init_cpio" ]; then
		build_guest "$KBUILD_ROOT/prod-obj-series"
	else
		build_guest "$KBUILD_ROOT/prod-obj-pristine"
	fi
	[ "$mode" != build ] || return 0
	{
		echo "dio-race: $ROUNDS rounds, $THREADS threads, $LKMM_SMP vCPUs"
		for side in "${sides[@]}"; do
			case $side in
			before) run before pristine any ;;
			after) run after series one ;;
			esac
		done
	} | tee "$KBUILD_ROOT/dio-race.txt"
}

main "$@"
