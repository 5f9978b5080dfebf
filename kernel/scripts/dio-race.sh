#!/bin/bash
# `make kernel-dio-race` (not part of `make check`): how many workqueues
# sb_init_dio_done_wq() creates per fresh superblock when the first
# asynchronous O_DIRECT writes after a mount race each other.
#
# Builds the series on the production-like config (lkmm.config,
# prod.config, the series' KCONFIG) with one measurement-only change on
# top, kernel/guest/dio-race/count.diff (not in kernel/patches/series):
# sb_init_dio_done_wq() prints one line per workqueue it allocated, saying
# whether its cmpxchg() published it or lost and destroys it, and
# generic_shutdown_super() one line per superblock.  The guest
# (its own initramfs, kernel/guest/dio-race/init) runs dio-race: R rounds
# of mount ext4, N threads io_submit() one 4 KiB O_DIRECT overwrite each
# at the same moment (released by a flag they spin on), wait, unmount.
# Each mount is a new superblock with no s_dio_done_wq.  The counts come
# from the patch's lines on the console (superblocks shut down,
# workqueues created, losers destroyed), split into rounds by the marks
# dio-race writes to /dev/kmsg.  (ext4's own "mounted filesystem" lines
# are rate-limited: they stop after about 30 mounts.)  Each workqueue is
# WQ_MEM_RECLAIM, so each created and destroyed one also started and
# stopped a rescuer kthread.
#
# The tree's fs/super.c is patched only for the build and restored on
# exit; objects and guest files go to their own directories
# ($KBUILD_ROOT/dio-race-obj, dio-race-guest).
#
# Usage: dio-race.sh [--build-only]
#
# Environment: LKMM_DIO_RACE_ROUNDS [100], LKMM_DIO_RACE_THREADS [8],
# LKMM_SMP [4] vCPUs.  Per-round table to stdout and to
# $KBUILD_ROOT/dio-race.txt.
set -euo pipefail
. "$(dirname "$0")/common.sh"

export KOBJ=$KBUILD_ROOT/dio-race-obj KGUEST=$KBUILD_ROOT/dio-race-guest
SCRIPTS=$KERNEL_DIR/scripts
SRC=$KERNEL_DIR/guest/dio-race
ROUNDS=${LKMM_DIO_RACE_ROUNDS:-100}
THREADS=${LKMM_DIO_RACE_THREADS:-8}
export LKMM_SMP=${LKMM_SMP:-4}

restore_tree() {
	git -C "$KSRC" checkout -q -- fs/super.c 2>/dev/null || true
}

build_kernel() {
	"$SCRIPTS/deps.sh"
	"$SCRIPTS/prepare-tree.sh" --series
	trap restore_tree EXIT
	git -C "$KSRC" apply "$SRC/count.diff" ||
		die "count.diff does not apply to the series"
	"$SCRIPTS/configure.sh" "$KERNEL_DIR/config/lkmm.config" \
		"$KERNEL_DIR/config/prod.config" "$KERNEL_DIR/patches/KCONFIG"
	"$SCRIPTS/build.sh"
	restore_tree
}

# The program, an initramfs with it and its init, the ext4 disk (the
# boot opens both disks; the second stays unused).
build_guest() {
	mkdir -p "$KGUEST"
	gcc -std=c11 -Wall -Wextra -Werror -O2 -static -pthread \
		-I"$KERNEL_DIR/guest" -o "$KGUEST/dio-race" "$SRC/dio-race.c"
	{
		initramfs_base "$SRC/init"
		printf '%s\n' "dir /mnt 0755 0 0" "file /dio-race $KGUEST/dio-race 0755 0 0"
	} >"$KGUEST/initramfs.list"
	"$KOBJ/usr/gen_init_cpio" "$KGUEST/initramfs.list" >"$KGUEST/initramfs.cpio"
	rm -f "$KGUEST/ext4.img" "$KGUEST/vfat.img"
	truncate -s 64M "$KGUEST/ext4.img" "$KGUEST/vfat.img"
	mkfs.ext4 -q -F "$KGUEST/ext4.img"
}

# Per round: superblocks shut down, workqueues created, losers destroyed;
# then the totals.
tally() {
	awk '
	/dio-race: round [0-9]+ begin/ { s = $0; sub(/.*round /, "", s); r = s + 0; inround = 1; next }
	/dio-race: round [0-9]+ end/ { inround = 0; next }
	!inround { next }
	/dio-race: vda: superblock shut down/ { sb[r]++ }
	/dio-race: vda: created a workqueue/ { wq[r]++ }
	/dio-race: vda: created a workqueue, lost/ { lost[r]++ }
	END {
		printf "%6s %11s %10s %10s\n", "round", "superblocks", "created", "destroyed"
		for (i = 1; i in sb || i in wq; i++) {
			printf "%6d %11d %10d %10d\n", i, sb[i], wq[i], lost[i]
			n++; tsb += sb[i]; twq += wq[i]; tl += lost[i]
			if (lost[i]) withloser++
			if (lost[i] > maxl) maxl = lost[i]
		}
		printf "total: %d rounds, %d superblocks, %d workqueues created, %d destroyed as losers (%d rounds with a loser, at most %d in one round)\n", n, tsb, twq, tl, withloser, maxl
	}' "$1"
}

main() {
	build_kernel
	build_guest
	[ "${1:-}" != --build-only ] || return 0
	local console=$KGUEST/console.log out=$KBUILD_ROOT/dio-race.txt
	LKMM_INITRD=$KGUEST/initramfs.cpio "$SCRIPTS/boot.sh" "$console" \
		kunit.enable=0 printk.devkmsg=on "lkmm.dio_race_rounds=$ROUNDS" \
		"lkmm.dio_race_threads=$THREADS" ||
		die "boot failed; console log: $console"
	grep -q '^dio-race: PASS' "$console" ||
		die "dio-race did not pass; console log: $console"
	# pr_info() is not rate-limited; only a console that fell behind the
	# log buffer would lose lines.  (ext4's own messages are rate-limited
	# and say "callbacks suppressed": harmless here.)
	! grep -q 'messages dropped' "$console" ||
		die "the console lost kernel messages; the counts would be short"
	{
		echo "dio-race: $ROUNDS rounds, $THREADS threads, $LKMM_SMP vCPUs"
		tally "$console"
	} | tee "$out"
}

main "$@"
