#!/bin/bash
# Provide the kernel source tree in $KSRC with exactly our patch series
# applied.
#
# The tarball is unpacked once into a git repository whose tag "pristine"
# is the untouched Debian source.  Each run compares a fingerprint of the
# series with the one recorded when it was last applied; only when they
# differ (or the tree was edited) are the patches applied again, from
# "pristine", as commits built in a scratch index (commit_patches in
# common.sh), and the work tree is
# checked out at the result.  That rewrites only files whose content
# changed, so kbuild recompiles only what the change really affects.
#
# Usage: prepare-tree.sh [--series|--pristine]
#   --series     the series applied (default)
#   --pristine   the untouched Debian source
set -euo pipefail
. "$(dirname "$0")/common.sh"

GIT=(git -C "$KSRC" -c user.name=lkmm -c user.email=lkmm@localhost
     -c core.autocrlf=false -c gc.auto=0)

# Unpack into a temporary directory and rename at the end, so an
# interrupted unpack is never mistaken for a complete tree.
unpack() {
	local tmp=$KBUILD_ROOT/unpack.tmp
	log "unpacking $KSRC_TARBALL"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -C "$tmp" -xf "$KSRC_TARBALL"
	# -f: the tarball is the truth, even files a .gitignore would hide.
	git -C "$tmp/$KSRC_TOPDIR" init -q
	git -C "$tmp/$KSRC_TOPDIR" add -A -f .
	git -C "$tmp/$KSRC_TOPDIR" -c user.name=lkmm -c user.email=lkmm@localhost -c gc.auto=0 \
		commit -q -m "Debian $(basename "$KSRC_TARBALL")"
	git -C "$tmp/$KSRC_TOPDIR" tag pristine
	rm -rf "$KSRC"
	mv "$tmp/$KSRC_TOPDIR" "$KSRC"
	rmdir "$tmp"
}

# Identifies what the tree should contain: the series file and every patch.
fingerprint() {
	local p
	{
		series_patches
		series_patches | while read -r p; do
			sha256sum <"$KERNEL_DIR/patches/$p"
		done
	} | sha256sum | cut -d' ' -f1
}

# Move the work tree to COMMIT.  checkout rewrites only the files that
# differ from what is checked out, so unchanged files keep their mtimes
# and kbuild does not recompile what includes them (a re-applied patch to
# include/linux/fs.h would otherwise rebuild nearly everything).
switch_to() {
	"${GIT[@]}" checkout -q -f --detach "$1"
	# Objects live in $KOBJ, so nothing untracked here is worth keeping.
	"${GIT[@]}" clean -q -f -d -x
}

main() {
	local want stamp=$KSRC/.git/lkmm-applied mode
	case ${1:---series} in
	--series) mode=series ;;
	--pristine) mode=pristine ;;
	*) die "usage: prepare-tree.sh [--series|--pristine]" ;;
	esac
	[ -f "$KSRC_TARBALL" ] || die "$KSRC_TARBALL missing (apt-get install linux-source-6.12)"
	mkdir -p "$KBUILD_ROOT"
	if ! git -C "$KSRC" rev-parse -q --verify pristine >/dev/null 2>&1; then
		unpack
	fi
	if [ "$mode" = pristine ]; then
		want=pristine
	else
		want=$(fingerprint)
	fi
	# A recorded fingerprint is trusted only if nobody edited the tree
	# since; a dirty tree is re-applied from scratch.
	if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] &&
	   [ -z "$("${GIT[@]}" status --porcelain --untracked-files=no)" ]; then
		log "tree up to date ($mode)"
		return
	fi
	rm -f "$stamp"
	if [ "$mode" = pristine ]; then
		switch_to pristine
		log "tree ready (pristine)"
	else
		# A separate assignment, so set -e sees commit_patches fail.
		local commit
		commit=$(commit_patches pristine "" $(series_patches))
		switch_to "$commit"
		log "tree ready (series, $(series_patches | wc -l) patches)"
	fi
	echo "$want" >"$stamp"
}

main "$@"
