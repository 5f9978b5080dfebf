#!/bin/sh
# fuzz-seeds.sh OUT [kernel]: the seed corpus of each fuzz target in
# OUT/TARGET/: the seeds committed in tests/src/fuzz/TARGET/seeds and our
# own test files, where they are; with `kernel`, also what is made from
# the kernel's model under build/ (its litmus tests, .cat and .bell files,
# the 6.15 model and the three edits model-6.15.t makes of it), which the
# repository does not hold.  `make fuzz` uses both; tests/src/fuzz.t, for
# a few seconds a target, our own only.
set -eu
out=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
fuzz=$top/tests/src/fuzz
model=$top/build/kernel-model/tools/memory-model
model615=$top/build/kernel-model-6.15/tools/memory-model

rm -rf "$out"
for t in parse cat check cache log module; do
	mkdir -p "$out/$t"
	[ ! -d "$fuzz/$t/seeds" ] || cp "$fuzz/$t/seeds/"* "$out/$t/"
done

# Files of different trees may share a name: each seed is named by its path.
add() {
	target=$1
	shift
	for f in "$@"; do
		cp "$f" "$out/$target/$(echo "${f#"$top"/}" | tr / _)"
	done
}

own_litmus="$top/litmus/*.litmus $top/tests/src/golden/*.litmus $top/tests/src/run/*.litmus
	$top/tests/src/bad/*.litmus $top/tests/src/corpus/rmw-tags/litmus/*.litmus
	$top/tests/src/fidelity/*.litmus"
for t in parse check module; do
	# shellcheck disable=SC2086 # the globs
	add $t $own_litmus
done
add cat "$top"/src/model/lib/*.cat

[ "${2:-}" = kernel ] || exit 0
kernel_litmus=$(find "$top/build/kernel-model" -name '*.litmus')
for t in parse check module; do
	# shellcheck disable=SC2086 # one path a line, no blanks
	add $t $kernel_litmus
done
"$top/tests/src/gen-big-init.sh" 20000 > "$out/parse/big-init.litmus"
add cat "$model"/*.cat "$model"/*.bell "$model615"/*.cat "$model615"/*.bell
# The edits of tests/src/corpus/model-edits (see its README.md).
sed -e '/(\[M\] ; po ; \[Mb & R\]) |/d; /(\[Mb & W\] ; po ; \[M\]) |/d' \
	"$model615/linux-kernel.cat" > "$out/cat/edit-nomb.cat"
sed -e 's/^let Mb = MB \\ FailedRMW$/let Mb = MB/' \
	"$model615/linux-kernel.bell" > "$out/cat/edit-mbfailed.bell"
