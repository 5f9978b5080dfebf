# Shared settings for the kernel harness scripts; sourced, never run.
# Every path can be overridden from the environment so that CI and a
# developer can put the (large) build somewhere else.

# The repository root, derived from this file so scripts work from any cwd.
LKMM_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KERNEL_DIR=$LKMM_ROOT/kernel

# Debian's linux-source-6.12 tarball; it unpacks to linux-source-6.12/.
KSRC_TARBALL=${KSRC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
KSRC_TOPDIR=linux-source-6.12

# build/ is ignored by git.  The source tree is a git repository whose tag
# "pristine" is the unpacked tarball; objects go to a separate O= directory
# so resetting the sources never throws away compiled objects.
# In the source tree, builds go to build/kernel; an installed copy
# (PREFIX/share/lkmm, read-only to its users) builds in the user's cache.
if [ -f "$LKMM_ROOT/Makefile" ]; then
	KBUILD_ROOT=${KBUILD_ROOT:-$LKMM_ROOT/build/kernel}
else
	KBUILD_ROOT=${KBUILD_ROOT:-${LKMM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lkmm}/kernel}
fi
KSRC=${KSRC:-$KBUILD_ROOT/src}
KOBJ=${KOBJ:-$KBUILD_ROOT/obj}
KGUEST=${KGUEST:-$KBUILD_ROOT/guest}

# Fixed identity and time stamp: identical inputs give identical
# preprocessed output, which is what lets ccache hit on warm rebuilds.
export KBUILD_BUILD_TIMESTAMP='2024-01-01 00:00:00'
export KBUILD_BUILD_USER=lkmm
export KBUILD_BUILD_HOST=lkmm
export CCACHE_DIR=${CCACHE_DIR:-/var/cache/kbuild-ccache}
# kbuild passes the source tree to gcc as absolute -I paths, which ccache
# hashes; relative to base_dir they become ../src/..., the same in every
# checkout, so a fresh clone elsewhere hits what another one compiled.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$KBUILD_ROOT}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}

# The machine has 2 cores shared with other jobs.
JOBS=${JOBS:-2}

log() {
	printf '%s: %s\n' "$(basename "$0")" "$*" >&2
}

die() {
	log "error: $*"
	exit 1
}

# The entries of every guest initramfs list: the device and system
# mount points, busybox as /bin/sh, and $1 as /init.
initramfs_base() {
	printf '%s\n' "dir /dev 0755 0 0" "nod /dev/console 0600 0 0 c 5 1" \
		"dir /bin 0755 0 0" "dir /proc 0755 0 0" "dir /sys 0755 0 0" \
		"file /bin/busybox /bin/busybox 0755 0 0" "slink /bin/sh busybox 0777 0 0" \
		"file /init $1 0755 0 0"
}

# Compiler command for kbuild: ccache when installed and its cache
# directory is usable, plain gcc otherwise.
kernel_cc() {
	if command -v ccache >/dev/null && mkdir -p "$CCACHE_DIR" 2>/dev/null &&
	   [ -w "$CCACHE_DIR" ]; then
		echo "ccache gcc"
	else
		echo gcc
	fi
}

# make in the kernel tree with the out-of-tree object directory.
kmake() {
	make -C "$KSRC" O="$KOBJ" ARCH=x86_64 CC="$(kernel_cc)" -j"$JOBS" "$@"
}

# Patch file names listed in kernel/patches/series, in order: quilt
# format, so blank lines and '#' comments are skipped.
series_patches() {
	local series=$KERNEL_DIR/patches/series
	[ -f "$series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$series"
}

# The submission directories of kernel/patches, in the order series
# first names them.
series_submissions() {
	series_patches | sed -n 's|/[^/]*$||p' | awk '!seen[$0]++'
}

# The bracketed prefix of file $1's first line, a Subject: line, without
# a "0/N" count: "PATCH", "RFC PATCH".
subject_prefix() {
	sed -n '1s/^Subject: \[\([^]]*\)\].*/\1/p' "$1" | sed 's| *[0-9]*/[0-9]*$||'
}

# Commit the patch files $3... (paths under kernel/patches) one by one on
# top of commit $1 of the tree in $KSRC, without touching its work tree
# (a scratch index), and print the last commit.  Each commit's message is
# the patch's own (git mailinfo), with the trailer $2 added when it is not
# empty.  The caller's GIT array gives the git command and the identity.
commit_patches() {
	local commit=$1 trailer=$2 p tmp idx
	shift 2
	tmp=$(mktemp -d)
	idx=$tmp/index
	GIT_INDEX_FILE=$idx "${GIT[@]}" read-tree "$commit"
	for p in "$@"; do
		[ -f "$KERNEL_DIR/patches/$p" ] || die "series names missing patch $p"
		"${GIT[@]}" mailinfo "$tmp/msg" "$tmp/diff" <"$KERNEL_DIR/patches/$p" >"$tmp/info"
		GIT_INDEX_FILE=$idx "${GIT[@]}" apply --cached --whitespace=nowarn "$tmp/diff" ||
			die "patch $p does not apply (on $(git -C "$KSRC" describe --always --tags "$commit" 2>/dev/null || echo "$commit"))"
		{
			sed -n 's/^Subject: //p' "$tmp/info"
			echo
			cat "$tmp/msg"
		} >"$tmp/message"
		if [ -n "$trailer" ]; then
			git interpret-trailers --in-place --trailer "$trailer" "$tmp/message"
		fi
		commit=$("${GIT[@]}" commit-tree -p "$commit" -F "$tmp/message" \
			"$(GIT_INDEX_FILE=$idx "${GIT[@]}" write-tree)")
	done
	rm -rf "$tmp"
	echo "$commit"
}
