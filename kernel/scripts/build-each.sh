#!/bin/bash
# `make kernel-build-each`: build the kernel after each patch of the series
# in turn, as a maintainer bisecting it would, and fail at the first patch
# that does not build, that warns in a file it touches, or whose C files
# the build did not compile (a patch to a file the config leaves out would
# otherwise "build" without being compiled at all).  The tree is a git
# worktree of $KSRC (one commit per patch, see prepare-tree.sh) in
# build/kernel/each/, built out of tree with kernel-check's configuration
# plus kernel/config/build-each.config, which enables the subsystems the
# series touches; each step recompiles only what its patch touches.
#
# Output: build/kernel/each/build-N.log, and one line per patch.
set -euo pipefail
. "$(dirname "$0")/common.sh"

EACH=$KBUILD_ROOT/each

# The configuration, made once on the whole series (its own Kconfig
# symbols exist only there) and copied before every step: olddefconfig
# at an early patch drops the symbols of later ones from .config, and a
# step that kept that .config would never build their code.
make_config() {
	KOBJ=$EACH/config-obj "$KERNEL_DIR/scripts/configure.sh" \
		"$KERNEL_DIR/config/lkmm.config" "$KERNEL_DIR/patches/KCONFIG" \
		"$KERNEL_DIR/config/build-each.config"
	cp "$EACH/config-obj/.config" "$EACH/config"
}

# check_compiled N COMMIT STAMP: every C file COMMIT changes in the kernel
# proper (not tools/ or scripts/, which the kernel build does not compile)
# has an object newer than STAMP, or it changes nothing that needs one.
check_compiled() {
	local n=$1 c=$2 stamp=$3 f
	for f in $(git -C "$EACH/src" diff --diff-filter=AM --name-only "$c~1" "$c" -- '*.c' \
			':!tools/' ':!scripts/'); do
		[ "$EACH/obj/${f%.c}.o" -nt "$stamp" ] ||
			die "patch $n: $f was not compiled; enable it in kernel/config/build-each.config"
	done
}

main() {
	local wt=$EACH/src obj=$EACH/obj n=0 c warnings
	"$KERNEL_DIR/scripts/prepare-tree.sh" --series
	git -C "$KSRC" worktree remove --force "$wt" 2>/dev/null || true
	git -C "$KSRC" worktree prune
	mkdir -p "$EACH" "$obj"
	make_config
	git -C "$KSRC" worktree add -q --detach "$wt" pristine
	for c in $(git -C "$KSRC" rev-list --reverse pristine..HEAD); do
		n=$((n + 1))
		git -C "$wt" checkout -q --detach "$c"
		log "patch $n: $(git -C "$wt" log -1 --format=%s)"
		cp "$EACH/config" "$obj/.config"
		touch "$EACH/step-start"
		# -j1 output order is not needed: the log is only searched.
		if ! make -C "$wt" O="$obj" ARCH=x86_64 CC="$(kernel_cc)" -j"$JOBS" \
			olddefconfig bzImage modules >"$EACH/build-$n.log" 2>&1; then
			die "patch $n does not build on its own; see $EACH/build-$n.log"
		fi
		check_compiled "$n" "$c" "$EACH/step-start"
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
