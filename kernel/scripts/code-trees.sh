#!/bin/bash
# The two trees `lkmm code` is tested on (tests/src/code.t): $KSRC with
# the series applied (prepare-tree.sh), and build/kernel/pristine, a git
# worktree of the same repository at the untouched Debian source.
set -euo pipefail
. "$(dirname "$0")/common.sh"

"$(dirname "$0")/prepare-tree.sh" --series
pristine=$KBUILD_ROOT/pristine
if ! git -C "$pristine" rev-parse -q --verify HEAD >/dev/null 2>&1 ||
   [ "$(git -C "$pristine" rev-parse HEAD)" != "$(git -C "$KSRC" rev-parse pristine)" ]; then
	log "making $pristine (the untouched source, a worktree of $KSRC)"
	rm -rf "$pristine"
	git -C "$KSRC" worktree prune
	git -C "$KSRC" worktree add -q --detach "$pristine" pristine
fi
