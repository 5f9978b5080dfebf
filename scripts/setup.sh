#!/usr/bin/env bash
# Make this machine ready for the README's commands, and do nothing when it
# already is: install the Debian packages that are missing (as root; otherwise
# print the apt-get line and stop), then unpack the kernel's memory model and
# litmus tests from Debian's linux-source package into build/kernel-model/,
# and beside it build/kernel-model-6.15/: the same files with the seven
# patches of "LKMM updates for v6.15" applied (the model of every kernel
# since 6.15, which no Debian 12 package carries; the patches are read
# from the project's shared folder, $LKMM_SHARED_DIR, else ../shared
# beside the checkout, else /work/shared).
#
# Usage: scripts/setup.sh [checker|all|fuzz|web]   (default: checker)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-checker}

# Packages the checker and its tests need, by Debian name; the kernel
# harness checks its own (kernel/scripts/deps.sh).
# libclang-dev: `lkmm code` reads kernel C through it (bin/lkmm-code only);
# clang, lld, llvm, flex, bison, libelf-dev: it prepares a tree (make LLVM=1 prepare).
checker_packages=(build-essential libcmocka-dev linux-source-6.12 xz-utils perl time bc patch
	libclang-dev clang lld llvm flex bison libelf-dev)
fuzz_packages=(clang libclang-rt-14-dev)
# What only the tests need: GNU parallel spreads a corpus (tests/src/parallel.t);
# Graphviz parses --graph's files, xmllint (libxml2-utils) --svg's, chromium
# loads --html's page, and patch applies --suggest's diffs (tests/src/explain.t).
# Coccinelle's spatch runs the project's one-time-init rule (tests/kernel/cocci.t);
# python3-ply lets checkpatch.pl check SPDX lines (tests/kernel/submissions.t).
test_packages=(parallel graphviz libxml2-utils chromium patch coccinelle python3-ply)
# The web playground (`make web`, docs/web.md): emscripten builds it (its
# JS tools need node-acorn), chromium runs its test (tests/web/web.t, with
# node 20 or later, which speaks to it over the DevTools protocol).
web_packages=(emscripten node-acorn chromium)

missing_packages() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || echo "$p"
	done
}

install_packages() {
	local missing
	missing=$(missing_packages "$@")
	[ -z "$missing" ] && return 0
	# shellcheck disable=SC2086
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: missing packages; as root, run:" >&2
		echo "  apt-get update && apt-get install -y --no-install-recommends" $missing >&2
		exit 1
	fi
	echo "setup: installing" $missing
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
}

# Unpack only what the checker reads; the stamp records the package version
# so that a new linux-source upload is unpacked again.
unpack_model() {
	local tarball=/usr/src/linux-source-6.12.tar.xz
	local dest=$top/build/kernel-model
	local version
	version=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	if [ -f "$dest/VERSION" ] && [ "$(cat "$dest/VERSION")" = "$version" ]; then
		return 0
	fi
	echo "setup: unpacking tools/memory-model and Documentation/litmus-tests from $tarball"
	rm -rf "$dest"
	mkdir -p "$dest"
	tar -C "$dest" --strip-components=1 -xJf "$tarball" \
		linux-source-6.12/tools/memory-model \
		linux-source-6.12/Documentation/litmus-tests
	echo "$version" > "$dest/VERSION"
}

shared_dir() {
	local d
	for d in "${LKMM_SHARED_DIR:-}" "$top/../shared" /work/shared; do
		if [ -n "$d" ] && [ -d "$d/models/linux-6.15/patches" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

# The 6.12 files with the 6.15 series applied in order, each cleanly
# (patch fails on any hunk that does not apply); again when the 6.12 tree
# or a patch changes.
make_model_615() {
	local shared patches dest=$top/build/kernel-model-6.15 stamp p
	if ! shared=$(shared_dir); then
		echo "setup: no models/linux-6.15/patches in \$LKMM_SHARED_DIR, $top/../shared or /work/shared:" >&2
		echo "  the tests of the 6.15 model need them" >&2
		return 1
	fi
	patches=$shared/models/linux-6.15/patches
	stamp=$(cat "$top/build/kernel-model/VERSION" "$patches"/*.patch | md5sum)
	if [ -f "$dest/STAMP" ] && [ "$(cat "$dest/STAMP")" = "$stamp" ]; then
		return 0
	fi
	echo "setup: making build/kernel-model-6.15 (the 6.12 model with $patches/*.patch)"
	rm -rf "$dest"
	cp -r "$top/build/kernel-model" "$dest"
	rm -f "$dest/VERSION"
	for p in "$patches"/*.patch; do
		patch -s -p1 -d "$dest" < "$p"
	done
	echo "$stamp" > "$dest/STAMP"
}

case $what in
checker) install_packages "${checker_packages[@]}"; unpack_model
	 make_model_615 || true ;;
all)     install_packages "${checker_packages[@]}" "${test_packages[@]}" "${fuzz_packages[@]}" \
		"${web_packages[@]}"; unpack_model
	 make_model_615
	 "$top/kernel/scripts/deps.sh" ;;
fuzz)    install_packages "${checker_packages[@]}" "${fuzz_packages[@]}"; unpack_model ;;
web)     install_packages "${checker_packages[@]}" "${web_packages[@]}"; unpack_model ;;
*) echo "usage: $0 [checker|all|fuzz|web]" >&2; exit 2 ;;
esac
