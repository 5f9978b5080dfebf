#!/bin/bash
# Make sure the Debian packages the kernel harness needs are installed.
# As root, install the missing ones; otherwise print the apt-get line and
# fail, because nothing below can work without them.
set -euo pipefail
. "$(dirname "$0")/common.sh"

# package:command-or-file that proves it is installed.  Checking a file
# rather than dpkg state keeps this fast and also accepts tools that came
# from elsewhere in the image.
REQUIRED=(
	linux-source-6.12:"$KSRC_TARBALL"
	build-essential:/usr/share/build-essential/essential-packages-list
	bc:bc
	bison:bison
	flex:flex
	libelf-dev:/usr/include/gelf.h
	libssl-dev:/usr/include/openssl/ssl.h
	xz-utils:xz
	ccache:ccache
	git:git
	qemu-system-x86:qemu-system-x86_64
	busybox-static:/bin/busybox
	e2fsprogs:mkfs.ext4
	python3:python3
	perl:prove
	sparse:sparse
)

present() {
	case $1 in
	/*) [ -e "$1" ] ;;
	*) command -v "$1" >/dev/null ;;
	esac
}

missing_packages() {
	local entry
	for entry in "${REQUIRED[@]}"; do
		present "${entry#*:}" || echo "${entry%%:*}"
	done
}

# Debian's busybox (not busybox-static) is dynamic and useless in our
# initramfs, so insist on a static binary.
check_static_busybox() {
	if file_is_dynamic /bin/busybox; then
		die "/bin/busybox is dynamically linked; install busybox-static"
	fi
}

file_is_dynamic() {
	# The ELF program header of a dynamic executable names an interpreter.
	LC_ALL=C readelf -l "$1" 2>/dev/null | grep -q 'Requesting program interpreter'
}

main() {
	local missing
	missing=$(missing_packages | tr '\n' ' ')
	if [ -n "$missing" ]; then
		local cmd="apt-get install -y --no-install-recommends $missing"
		if [ "$(id -u)" != 0 ]; then
			die "missing packages; run as root: apt-get update && $cmd"
		fi
		log "installing: $missing"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		# shellcheck disable=SC2086 # word splitting of the list is wanted
		apt-get install -y -qq --no-install-recommends $missing >/dev/null
	fi
	check_static_busybox
}

main "$@"
