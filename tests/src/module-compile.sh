#!/bin/sh
# module-compile.sh KERNEL_OBJ TEST...: `lkmm run --emit` the tests and
# build their modules against the kernel build tree KERNEL_OBJ (read
# only: kbuild writes in the modules' directory), as the module fuzz
# target cannot afford to for each input.  Prints each module that does
# not compile, with the compiler's first lines; exit 1 if one does not.
# Tests lkmm refuses are not written, and are no failure here.
#   tests/src/module-compile.sh build/kernel/obj build/fuzz/seeds/module/*
set -u
obj=$1
shift
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

"$top/bin/lkmm" run -I "$top/build/kernel-model/tools/memory-model" --cpus 64 \
	--emit "$dir" "$@" > /dev/null 2> "$dir/emit.log"
echo "$(wc -l < "$dir/tests.list") of $# tests emitted"
# -k: every module that compiles does, whatever the others do.
make -k -C "$obj" M="$dir" modules > "$dir/kbuild.log" 2>&1
status=0
i=0
for t in "$@"; do
	m=$(printf 'lkmm_t%03d' "$i")
	i=$((i + 1))
	grep -qx "$m" "$dir/tests.list" || continue
	if [ ! -f "$dir/$m.ko" ]; then
		echo "$t: $m.c does not compile:"
		grep "$m.c:.*error" "$dir/kbuild.log" | head -5
		status=1
	fi
done
echo "$(ls "$dir"/*.ko 2>/dev/null | wc -l) modules built"
exit $status
