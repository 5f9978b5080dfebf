#!/bin/bash
# `make kernel-check`: build the patched kernel, boot it in QEMU, run the
# KUnit suites, the direct-I/O stress and dio-race (racing first direct
# I/Os on fresh mounts must create one workqueue per superblock), and
# judge the console log.
#
# Usage: kernel-check.sh [--pristine] [--prod] [--build-only]
#   --pristine    the same on the unpatched Debian tree (for kernel-before-after
#                 and kernel-bench)
#   --prod        the production-like config: kernel/config/prod.config on
#                 top (no KCSAN, lockdep or sleep checks, -O2), with its own
#                 object and guest directories
#   --build-only  stop once the kernel and the guest files are built (for
#                 run-litmus.sh, which boots its own guest)
#
# Every step's wall time goes to $KBUILD_ROOT/times-<config>-<mode>.txt; the
# last line of output is the KUnit tally from check-console.sh.
set -euo pipefail
. "$(dirname "$0")/common.sh"

SCRIPTS=$KERNEL_DIR/scripts

# step NAME COMMAND...: run and record how long it took.
# Callers test its status, which turns off set -e inside: keep the
# command's status by hand.
step() {
	local name=$1 start end rc=0
	shift
	start=$(date +%s.%N)
	"$@" || rc=$?
	end=$(date +%s.%N)
	printf 'time: %-10s %6.1f s\n' "$name" "$(echo "$end - $start" | bc)" | tee -a "$TIMES" >&2
	return "$rc"
}

# The series' own Kconfig symbols exist only once its patches are applied.
# LKMM_CONFIG_EXTRA names one more fragment (kernel-before-after uses it).
fragments() {
	echo "$KERNEL_DIR/config/lkmm.config"
	[ "$CONFIG" != prod ] || echo "$KERNEL_DIR/config/prod.config"
	[ -z "${LKMM_CONFIG_EXTRA:-}" ] || echo "$LKMM_CONFIG_EXTRA"
	if [ "$MODE" = series ] && [ -n "$(series_patches)" ]; then
		echo "$KERNEL_DIR/patches/KCONFIG"
	fi
}

# The in-tree KTAP parser is the second opinion on the KUnit output: it
# also catches malformed or truncated KTAP.  It needs an absolute path.
kunit_parse() {
	# Only KTAP lines: a driver's message printed in the middle of the
	# KTAP output (the keyboard probe does) makes kunit.py see a crash.
	local log=$KGUEST/kunit-ktap.log
	grep -E '^\[ *[0-9.]+\] +(KTAP version|ok |not ok |# |[0-9]+\.\.)' "$1" >"$log" || true
	log=$(realpath "$log")
	if ! python3 "$KSRC/tools/testing/kunit/kunit.py" parse "$log" \
		>"$KGUEST/kunit-parse.txt" 2>&1; then
		tail -n 20 "$KGUEST/kunit-parse.txt" >&2
		log "kunit.py parse reports failures (full output: $KGUEST/kunit-parse.txt)"
		return 1
	fi
}

main() {
	local build_only= arg
	MODE=series CONFIG=debug
	for arg; do
		case $arg in
		--pristine) MODE=pristine ;;
		--prod) CONFIG=prod ;;
		--build-only) build_only=1 ;;
		*) die "unknown option $arg" ;;
		esac
	done
	if [ "$CONFIG" = prod ]; then
		# The two trees differ in a header most files include: an object
		# directory each keeps switching between them incremental.
		export KOBJ=$KBUILD_ROOT/prod-obj-$MODE KGUEST=$KBUILD_ROOT/prod-guest
	fi
	mkdir -p "$KBUILD_ROOT"
	TIMES=$KBUILD_ROOT/times-$CONFIG-$MODE.txt
	: >"$TIMES"
	local console=$KGUEST/console-$MODE.log rc=0

	step deps "$SCRIPTS/deps.sh" || return 1
	step tree "$SCRIPTS/prepare-tree.sh" "--$MODE" || return 1
	# shellcheck disable=SC2046 # one fragment path per line, no spaces
	step configure "$SCRIPTS/configure.sh" $(fragments) || return 1
	step build "$SCRIPTS/build.sh" || return 1
	step guest "$SCRIPTS/mkguest.sh" || return 1
	[ -z "$build_only" ] || return 0
	# The untouched tree's cmpxchg() creates a workqueue per racing first
	# direct I/O: there dio-race only counts (kernel/guest/init).
	local args=("${LKMM_KERNEL_ARGS[@]}")
	[ "$MODE" != pristine ] || args+=(lkmm.dio_race_expect=any)
	step boot "$SCRIPTS/boot.sh" "$console" "${args[@]}" || rc=1
	step kunit-py kunit_parse "$console" || rc=1
	"$SCRIPTS/check-console.sh" "$console" || rc=1
	if [ "$rc" != 0 ]; then
		log "FAILED ($CONFIG config, $MODE); console log: $console"
	fi
	return "$rc"
}

# Extra kernel arguments for the boot (the before/after run passes KCSAN
# tuning here), split on spaces.
read -r -a LKMM_KERNEL_ARGS <<<"${LKMM_KERNEL_ARGS:-}"
main "$@"
