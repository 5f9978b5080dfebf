#!/bin/bash
# Build bzImage in $KOBJ from the configured tree (ccache when available),
# and Module.symvers, which `lkmm run` needs to build modules against it.
set -euo pipefail
. "$(dirname "$0")/common.sh"

main() {
	[ -f "$KOBJ/.config" ] || die "$KOBJ/.config missing; run configure.sh first"
	log "building bzImage with CC='$(kernel_cc)' -j$JOBS in $KOBJ"
	kmake -s bzImage modules
	log "built $KOBJ/arch/x86/boot/bzImage"
}

main "$@"
