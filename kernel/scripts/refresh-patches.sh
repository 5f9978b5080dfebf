#!/bin/bash
# Rewrite every patch of kernel/patches/series in the form the repository
# keeps: git format-patch's, regenerated from the patch applied on top of
# the ones before it (so a hand-edited diff gets its diffstat and index
# lines back), without the author, the date and the mbox separator: the
# patches carry nobody's identity until make kernel-submissions signs
# them for whoever sends them.
#
# Usage: refresh-patches.sh
set -euo pipefail
. "$(dirname "$0")/common.sh"

# core.abbrev fixed: git's default grows with the repository's object
# count, which would change the index lines from one tree to another.
GIT=(git -C "$KSRC" -c core.autocrlf=false -c gc.auto=0 -c core.abbrev=9
     -c user.name=lkmm -c user.email=lkmm@localhost)

"$KERNEL_DIR/scripts/prepare-tree.sh" --pristine
commit=$("${GIT[@]}" rev-parse pristine)
for p in $(series_patches); do
	file=$KERNEL_DIR/patches/$p
	prefix=$(subject_prefix "$file")
	commit=$(commit_patches "$commit" "" "$p")
	"${GIT[@]}" format-patch -1 --stdout --no-signature -N \
		--subject-prefix="${prefix:-PATCH}" "$commit" |
		sed -e '1{/^From [0-9a-f]* /d}' -e '/^From: /,/^Date: /d' >"$file.new"
	mv "$file.new" "$file"
done
log "$(series_patches | wc -l) patches rewritten"
