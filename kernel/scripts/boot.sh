#!/bin/bash
# Boot the built kernel with the guest initramfs in QEMU (2 vCPUs unless
# LKMM_SMP says otherwise) and write the serial console to LOG.  Exits with QEMU's status (124 when
# the timeout hit).
#
# Usage: boot.sh LOG [EXTRA_KERNEL_ARGS...]
#
# Environment:
#   LKMM_ACCEL=auto|kvm|tcg  auto (default) uses KVM only after a probe
#                            boot with it reached userspace; on hosts
#                            whose /dev/kvm cannot run an ordinary guest
#                            (PVM) QEMU aborts or hangs there.  Delete
#                            build/kernel/kvm-probe.result to probe again.
#   LKMM_BOOT_TIMEOUT=secs   whole-boot limit (default 1200)
#   LKMM_SMP=N               vCPUs (default 2)
#   LKMM_INITRD=FILE         another initramfs (lkmm run's), instead of
#                            the one mkguest.sh makes
#   LKMM_ROUNDS, LKMM_THREADS, LKMM_WRITES
#                            dio-stress rounds, threads, writes (20, 4, 8)
set -euo pipefail
. "$(dirname "$0")/common.sh"

BZIMAGE=$KOBJ/arch/x86/boot/bzImage

# Run QEMU; $1 accelerator, $2 timeout, $3 log, $4 vCPUs, $5 initramfs,
# rest kernel args.
qemu() {
	local accel=$1 limit=$2 out=$3 smp=$4 initrd=$5 cpu=max
	shift 5
	[ "$accel" = kvm ] && cpu=host
	timeout --foreground -k 10 "$limit" \
		qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -smp "$smp" -m 1G \
		-nographic -no-reboot \
		-kernel "$BZIMAGE" -initrd "$initrd" \
		-drive file="$KGUEST/ext4.img",if=virtio,format=raw,snapshot=on \
		-drive file="$KGUEST/vfat.img",if=virtio,format=raw,snapshot=on \
		-append "console=ttyS0 loglevel=7 panic=-1 $*" \
		</dev/null >"$out" 2>&1
}

# KVM is used only when a short boot with it (KUnit off) reaches the
# guest's userspace.  The verdict is remembered per host kernel and QEMU
# version: where KVM is broken the probe costs a full timeout.
pick_accel() {
	case ${LKMM_ACCEL:-auto} in
	kvm|tcg) echo "$LKMM_ACCEL"; return ;;
	auto) ;;
	*) die "LKMM_ACCEL must be auto, kvm or tcg" ;;
	esac
	local cache=$KBUILD_ROOT/kvm-probe.result host
	host="$(uname -r) $(qemu-system-x86_64 --version | head -n 1)"
	if [ -f "$cache" ] && [ "$(head -n 1 "$cache")" = "$host" ]; then
		tail -n 1 "$cache"
		return
	fi
	local accel=tcg
	if [ -r /dev/kvm ] && [ -w /dev/kvm ] &&
	   qemu kvm 30 "$KGUEST/kvm-probe.log" 2 "$KGUEST/initramfs.cpio" \
		lkmm.probe=1 kunit.enable=0 &&
	   grep -q '^lkmm-guest: done' "$KGUEST/kvm-probe.log"; then
		accel=kvm
	fi
	printf '%s\n%s\n' "$host" "$accel" >"$cache"
	log "KVM probe boot: using $accel (remembered in $cache)"
	echo "$accel"
}

main() {
	[ $# -ge 1 ] || die "usage: boot.sh LOG [KERNEL_ARGS...]"
	local out=$1 accel rc=0 smp=${LKMM_SMP:-2}
	local initrd=${LKMM_INITRD:-$KGUEST/initramfs.cpio}
	shift
	[ -f "$BZIMAGE" ] || die "$BZIMAGE missing; build the kernel first"
	[ -f "$KGUEST/initramfs.cpio" ] || die "guest files missing; run mkguest.sh"
	[ -f "$initrd" ] || die "no initramfs $initrd"
	accel=$(pick_accel)
	log "booting with $accel, $smp vCPUs; console -> $out"
	qemu "$accel" "${LKMM_BOOT_TIMEOUT:-1200}" "$out" "$smp" "$initrd" \
		"lkmm.rounds=${LKMM_ROUNDS:-20}" "lkmm.threads=${LKMM_THREADS:-4}" \
		"lkmm.writes=${LKMM_WRITES:-8}" "$@" || rc=$?
	[ "$rc" = 124 ] && log "QEMU timed out after ${LKMM_BOOT_TIMEOUT:-1200}s"
	return "$rc"
}

main "$@"
