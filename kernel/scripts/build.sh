#!/bin/bash
# Build bzImage in $KOBJ from the configured tree (ccache when available).
set -euo pipefail
. "$(dirname "$0")/common.sh"

main() {
	[ -f "$KOBJ/.config" ] || die "$KOBJ/.config missing; run configure.sh first"
	log "building bzImage with CC='$(kernel_cc)' -j$JOBS in $KOBJ"
	kmake -s bzImage
	log "built $KOBJ/arch/x86/boot/bzImage"
}

main "$@"
