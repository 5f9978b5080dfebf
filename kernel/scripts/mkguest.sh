#!/bin/bash
# Build what the guest needs into $KGUEST: the static stress, benchmark
# and dio-race programs, the initramfs (made with the kernel's own usr/gen_init_cpio, so
# no root and no cpio package are needed) and the two disk images; with
# LKMM_ONETIME_RACE=1 (kernel-before-after) also onetime_race.ko.
set -euo pipefail
. "$(dirname "$0")/common.sh"

GUEST_SRC=$KERNEL_DIR/guest

build_programs() {
	local prog
	for prog in dio-stress dio-bench; do
		gcc -std=c11 -Wall -Wextra -Werror -O2 -static -pthread \
			-o "$KGUEST/$prog" "$GUEST_SRC/$prog.c"
	done
	gcc -std=c11 -Wall -Wextra -Werror -O2 -static -pthread -I"$GUEST_SRC" \
		-o "$KGUEST/dio-race" "$GUEST_SRC/dio-race/dio-race.c"
}

# gen_init_cpio is a host tool the kernel build itself makes (for the
# built-in initramfs), so it exists once bzImage does.
build_initramfs() {
	[ -x "$KOBJ/usr/gen_init_cpio" ] || die "$KOBJ/usr/gen_init_cpio missing; build the kernel first"
	{
		initramfs_base "$GUEST_SRC/init"
		printf '%s\n' "dir /mnt 0755 0 0" "file /dio-stress $KGUEST/dio-stress 0755 0 0" \
			"file /dio-bench $KGUEST/dio-bench 0755 0 0" \
			"file /dio-race $KGUEST/dio-race 0755 0 0"
	} >"$KGUEST/initramfs.list"
	if [ -n "${LKMM_ONETIME_RACE:-}" ]; then
		echo "file /onetime_race.ko $KGUEST/onetime-race/onetime_race.ko 0644 0 0" \
			>>"$KGUEST/initramfs.list"
	fi
	"$KOBJ/usr/gen_init_cpio" "$KGUEST/initramfs.list" >"$KGUEST/initramfs.cpio"
}

# The KCSAN race module (kernel/guest/onetime-race), built against the
# kernel in $KOBJ, in a copy so that the sources stay clean.
build_race_module() {
	local dir=$KGUEST/onetime-race
	rm -rf "$dir"
	cp -r "$GUEST_SRC/onetime-race" "$dir"
	kmake M="$dir" modules >"$dir/kbuild.log" 2>&1 ||
		die "onetime_race.ko did not build; see $dir/kbuild.log"
}

# QEMU opens them with snapshot=on, so every boot starts from these.
build_disks() {
	rm -f "$KGUEST/ext4.img" "$KGUEST/vfat.img"
	truncate -s 64M "$KGUEST/ext4.img" "$KGUEST/vfat.img"
	mkfs.ext4 -q -F "$KGUEST/ext4.img"
}

main() {
	mkdir -p "$KGUEST"
	build_programs
	[ -z "${LKMM_ONETIME_RACE:-}" ] || build_race_module
	build_initramfs
	build_disks
	log "guest files ready in $KGUEST"
}

main "$@"
