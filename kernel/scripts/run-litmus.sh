#!/bin/bash
# The kernel half of `lkmm run`: build the modules lkmm wrote to WORKDIR
# (module sources, Kbuild, tests.list) against the project's patched
# kernel, built first when needed, then load them all, one after the
# other, in a single QEMU boot.  The console goes to WORKDIR/console.log,
# kbuild's output to WORKDIR/kbuild.log; lkmm reads both.
#
# Usage: run-litmus.sh WORKDIR
#
# Environment:
#   LKMM_SMP=N                the guest's vCPUs (default 2)
#   LKMM_RUN_PARAMS="k=v ..." module parameters (nruns, size, ...)
#   LKMM_BOOT_TIMEOUT=secs    as for boot.sh
#   LKMM_KLITMUS_DIR=DIR      also build and run the modules klitmus7
#                             wrote to DIR, after lkmm's, with the same
#                             parameters (make bench compares the two)
set -euo pipefail
. "$(dirname "$0")/common.sh"

SCRIPTS=$KERNEL_DIR/scripts

build_modules() {
	local work=$1 n m
	n=$(wc -l <"$work/tests.list")
	rm -f "$work"/lkmm_t*.o "$work"/*.ko
	log "building $n test modules against $KOBJ"
	# -k compiles every test, but modpost links none once one has failed:
	# the tests that compiled are linked in a second pass without the others.
	if ! kmake M="$work" -k modules >"$work/kbuild.log" 2>&1; then
		log "some modules did not build; lkmm names them (kbuild's output: $work/kbuild.log)"
		while read -r m; do
			[ -f "$work/$m.o" ] || sed -i "/^obj-m += $m\.o\$/d" "$work/Kbuild"
		done <"$work/tests.list"
		kmake M="$work" modules >>"$work/kbuild.log" 2>&1 ||
			log "the modules that compiled did not link either; see $work/kbuild.log"
	fi
}

# klitmus7's own modules (its Makefile is a kbuild file), for comparison.
build_klitmus() {
	local dir=$1
	log "building klitmus7's modules in $dir"
	kmake M="$dir" modules >"$dir/kbuild.log" 2>&1 ||
		die "klitmus7's modules did not build; see $dir/kbuild.log"
}

# busybox, the litmus init, every module that built, klitmus7's if any.
build_initramfs() {
	local work=$1 m
	{
		initramfs_base "$KERNEL_DIR/guest/litmus-init"
		printf '%s\n' "dir /litmus 0755 0 0" "file /litmus/tests.list $work/built.list 0644 0 0"
		while read -r m; do
			echo "file /litmus/$m.ko $work/$m.ko 0644 0 0"
		done <"$work/built.list"
		if [ -n "${LKMM_KLITMUS_DIR:-}" ]; then
			echo "dir /litmus/klitmus 0755 0 0"
			for m in "$LKMM_KLITMUS_DIR"/*.ko; do
				echo "file /litmus/klitmus/${m##*/} $m 0644 0 0"
			done
		fi
	} >"$work/initramfs.list"
	"$KOBJ/usr/gen_init_cpio" "$work/initramfs.list" >"$work/initramfs.cpio"
}

main() {
	[ $# = 1 ] && [ -f "$1/tests.list" ] || die "usage: run-litmus.sh WORKDIR (with tests.list)"
	local work params
	work=$(realpath "$1")
	log "building the kernel (once; later runs reuse it)"
	"$SCRIPTS/kernel-check.sh" --build-only >"$work/kernel-build.log" 2>&1 ||
		die "the kernel did not build; see $work/kernel-build.log"
	build_modules "$work"
	[ -z "${LKMM_KLITMUS_DIR:-}" ] || build_klitmus "$LKMM_KLITMUS_DIR"
	: >"$work/built.list"
	while read -r m; do
		[ ! -f "$work/$m.ko" ] || echo "$m" >>"$work/built.list"
	done <"$work/tests.list"
	build_initramfs "$work"
	params=$(echo "${LKMM_RUN_PARAMS:-}" | tr ' ' ',')
	log "running $(wc -l <"$work/built.list") modules on ${LKMM_SMP:-2} vCPUs"
	rm -f "$work/console.log"
	LKMM_INITRD=$work/initramfs.cpio "$SCRIPTS/boot.sh" "$work/console.log" \
		kunit.enable=0 "lkmm.run=$params"
}

main "$@"
