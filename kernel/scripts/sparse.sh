#!/bin/bash
# `make kernel-sparse`: sparse (kbuild's C=2) over what the series
# changes, on the untouched tree and with the series, as a maintainer
# would before taking it: the C files it changes and those that include
# a header it changes, with build-each's configuration (every subsystem
# the series touches is on).  Fails when the series adds a sparse
# warning; a warning the untouched tree has already does not count.
# Warnings are compared without their line numbers, which the series
# shifts.
#
# Output: build/kernel/sparse/{pristine,series}.log and the new warnings.
set -euo pipefail
. "$(dirname "$0")/common.sh"

SPARSE=$KBUILD_ROOT/sparse

# A header more C files include than this is checked through the series'
# own C files that include it, not through every includer: its inline
# code warns alike in each includer, and what the series adds to it is
# used only where the series changes code.  <linux/fs.h>, which
# call-once's last patch changes, is included by thousands of files;
# sparse on all of them, twice, would take hours on two cores.
MAX_INCLUDERS=100

# includers HEADER: the C files of HEAD that include HEADER directly.
includers() {
	local h=$1
	case $h in
	include/*) git -C "$KSRC" grep -l -F "#include <${h#include/}>" HEAD -- '*.c' ;;
	*) git -C "$KSRC" grep -l -F "#include \"$(basename "$h")\"" HEAD -- \
		":(glob)$(dirname "$h")/*.c" ;;
	esac | sed 's/^HEAD://'
}

# The objects sparse checks: each C file of the kernel proper the series
# changes, and each that includes a header it changes (up to
# MAX_INCLUDERS of them).
checked_objects() {
	local h files
	{
		git -C "$KSRC" diff --name-only pristine HEAD -- '*.c' ':!tools/' ':!scripts/'
		for h in $(git -C "$KSRC" diff --name-only pristine HEAD -- '*.h' ':!tools/'); do
			files=$(includers "$h")
			if [ "$(wc -l <<<"$files")" -gt "$MAX_INCLUDERS" ]; then
				log "$h: $(wc -l <<<"$files") includers, checked through the series' C files"
				continue
			fi
			echo "$files"
		done
	} | grep -v -e '^tools/' -e '^scripts/' -e '^$' | sort -u | sed 's/\.c$/.o/'
}

# check SIDE COMMIT OBJECTS...: sparse on the objects that exist at COMMIT.
check() {
	local side=$1 commit=$2 wt=$SPARSE/$1-src obj=$SPARSE/$1-obj o present=()
	shift 2
	git -C "$KSRC" worktree remove --force "$wt" 2>/dev/null || true
	git -C "$KSRC" worktree prune
	git -C "$KSRC" worktree add -q --detach "$wt" "$commit"
	for o in "$@"; do
		[ -e "$wt/${o%.o}.c" ] && present+=("$o")
	done
	mkdir -p "$obj"
	cp "$SPARSE/config" "$obj/.config"
	log "$side: sparse on ${#present[@]} files"
	make -C "$wt" O="$obj" ARCH=x86_64 CC="$(kernel_cc)" -j"$JOBS" olddefconfig >/dev/null
	# -k: a file the configuration leaves out may not compile alone; the
	# others are still checked, and an error the series adds is a new line.
	make -k -C "$wt" O="$obj" ARCH=x86_64 CC="$(kernel_cc)" -j"$JOBS" C=2 "${present[@]}" \
		>"$SPARSE/$side.log" 2>&1 || true
	git -C "$KSRC" worktree remove --force "$wt"
}

# A log's sparse warnings, without line and column and with the file
# relative to its tree: "FILE: warning: TEXT".
warnings() {
	sed -n 's/^\([^ :]*\):[0-9]*:[0-9]*: \(warning\|error\): /\1: \2: /p' "$1" |
		sed "s#^[^ :]*/\(pristine\|series\)-src/##" | sort -u
}

main() {
	local objects new
	"$KERNEL_DIR/scripts/deps.sh"
	"$KERNEL_DIR/scripts/prepare-tree.sh" --series
	mkdir -p "$SPARSE"
	KOBJ=$SPARSE/config-obj "$KERNEL_DIR/scripts/configure.sh" \
		"$KERNEL_DIR/config/lkmm.config" "$KERNEL_DIR/patches/KCONFIG" \
		"$KERNEL_DIR/config/build-each.config"
	cp "$SPARSE/config-obj/.config" "$SPARSE/config"
	mapfile -t objects < <(checked_objects)
	check pristine pristine "${objects[@]}"
	check series HEAD "${objects[@]}"
	new=$(comm -13 <(warnings "$SPARSE/pristine.log") <(warnings "$SPARSE/series.log"))
	echo "sparse: ${#objects[@]} files; $(warnings "$SPARSE/pristine.log" | wc -l) warnings" \
	     "before the series, $(warnings "$SPARSE/series.log" | wc -l) with it"
	[ -z "$new" ] || die "the series adds sparse warnings:
$new"
	echo "sparse: the series adds no warning"
}

main "$@"
