#!/bin/bash
# `make kernel-build-each`: build the kernel after each patch of the series
# in turn, as a maintainer bisecting it would, and fail at the first patch
# that does not build or that warns in a file it touches.  The tree is a git
# worktree of $KSRC (one commit per patch, see prepare-tree.sh) in
# build/kernel/each/, built out of tree with the configuration of `make
# kernel-check`; each step recompiles only what its patch touches.
#
# Output: build/kernel/each/build-N.log, and one line per patch.
set -euo pipefail
. "$(dirname "$0")/common.sh"

EACH=$KBUILD_ROOT/each

main() {
	local wt=$EACH/src obj=$EACH/obj n=0 c warnings
	"$KERNEL_DIR/scripts/prepare-tree.sh" --series
	[ -f "$KOBJ/.config" ] || "$KERNEL_DIR/scripts/configure.sh"
	git -C "$KSRC" worktree remove --force "$wt" 2>/dev/null || true
	git -C "$KSRC" worktree prune
	mkdir -p "$EACH" "$obj"
	git -C "$KSRC" worktree add -q --detach "$wt" pristine
	cp "$KOBJ/.config" "$obj/.config"
	for c in $(git -C "$KSRC" rev-list --reverse pristine..HEAD); do
		n=$((n + 1))
		git -C "$wt" checkout -q --detach "$c"
		log "patch $n: $(git -C "$wt" log -1 --format=%s)"
		# -j1 output order is not needed: the log is only searched.
		if ! make -C "$wt" O="$obj" ARCH=x86_64 CC="$(kernel_cc)" -j"$JOBS" \
			olddefconfig bzImage >"$EACH/build-$n.log" 2>&1; then
			die "patch $n does not build on its own; see $EACH/build-$n.log"
		fi
		# Warnings in the files the patch touches (the base may have its own).
		warnings=$(git -C "$wt" diff --name-only "$c~1" "$c" |
			grep -F -f - "$EACH/build-$n.log" | grep -c 'warning:' || true)
		[ "$warnings" = 0 ] ||
			die "patch $n: $warnings compiler warnings in its files; see $EACH/build-$n.log"
		echo "patch $n builds, no warnings: $(git -C "$wt" log -1 --format=%s)"
	done
	git -C "$KSRC" worktree remove --force "$wt"
}

main "$@"
