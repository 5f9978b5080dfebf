#!/usr/bin/env bash
# The in-kernel layer of `make check`: `lkmm run` builds every litmus test
# of the kernel's corpus (the patched tree's, so the series' tests too)
# and ours as modules, runs them all in one QEMU boot on 4 vCPUs, and
# holds each state the kernel reached against the model.  Counts are
# small, to keep `make check` short; docs/in-kernel.md has a longer run.
# Then the RMW tests of tests/src/corpus/rmw-tags (atomic_andnot() and
# friends as kernel code) in a second boot, held against the 6.15 model.
top=$(cd "$(dirname "$0")/../.." && pwd)
tree=$top/build/kernel/src
# The whole output stays in build/run/corpus.txt, the table of docs/in-kernel.md.
out=$top/build/run/corpus.txt
err=$(mktemp)
trap 'rm -f "$err"' EXIT
mkdir -p "$(dirname "$out")"

echo "1..8"
tests=()
for t in "$tree"/tools/memory-model/litmus-tests/*.litmus "$tree"/Documentation/litmus-tests/*/*.litmus \
	 "$top"/litmus/*.litmus "$top"/tests/src/run/atomic-once.litmus; do
	tests+=("$t")
done
"$top/bin/lkmm" run --cpus 4 --runs 2 --size 1000 "${tests[@]}" >"$out" 2>"$err"
status=$?
summary=$(grep '^Summary:' "$out")
if [ "$status" = 0 ]; then
	echo "ok 1 - lkmm run on ${#tests[@]} tests: $summary"
else
	echo "not ok 1 - lkmm run on ${#tests[@]} tests exited $status"
	tail -n 40 "$err" | sed 's/^/# /'
fi
blocks=$(grep -c '^Test .* \(Allowed\|Forbidden\|Required\)$' "$out")
if [ "$blocks" = "${#tests[@]}" ]; then
	echo "ok 2 - a klitmus7 block for each of the ${#tests[@]} tests"
else
	echo "not ok 2 - $blocks klitmus7 blocks for ${#tests[@]} tests"
fi
if grep -q '; 0 model violations$' <<<"$summary" && ! grep -q '^FORBIDDEN' "$out"; then
	echo "ok 3 - no state the model forbids"
else
	echo "not ok 3 - states the model forbids"
	grep -B30 '^FORBIDDEN' "$out" | sed 's/^/# /'
fi
# x86 keeps stores in a store buffer: store buffering shows, even in TCG.
if grep -q '^Observation SB+poonceonces Sometimes' "$out"; then
	echo "ok 4 - store buffering (SB+poonceonces) is observed"
else
	echo "not ok 4 - store buffering (SB+poonceonces) is not observed"
	grep -A8 '^Test SB+poonceonces' "$out" | sed 's/^/# /'
fi
console=$top/build/run/console.log
if [ -f "$console" ] && ! grep -E 'BUG:|WARNING:|Oops|possible recursive locking|circular locking|rcu_.*stall' "$console" >"$err"; then
	echo "ok 5 - the guest's console has no BUG, WARNING, lockdep report or RCU stall"
else
	echo "not ok 5 - the guest's console reports trouble ($console)"
	sed 's/^/# /' "$err"
fi

# The 6.15 model (scripts/setup.sh), whose RMWs are tagged as the .def says.
out615=$top/build/run/rmw-tags-6.15.txt
rmw_tests=("$top"/tests/src/corpus/rmw-tags/litmus/*.litmus)
"$top/bin/lkmm" run -I "$top/build/kernel-model-6.15/tools/memory-model" --cpus 4 --runs 2 \
	--size 1000 "${rmw_tests[@]}" >"$out615" 2>"$err"
status=$?
summary=$(grep '^Summary:' "$out615")
if [ "$status" = 0 ] && grep -q "^Summary: ${#rmw_tests[@]} tests run, 0 not run;.*; 0 model violations\$" <<<"$summary"; then
	echo "ok 6 - lkmm run on the ${#rmw_tests[@]} RMW tests under the 6.15 model: $summary"
else
	echo "not ok 6 - lkmm run on the RMW tests under the 6.15 model exited $status: $summary"
	tail -n 40 "$err" | sed 's/^/# /'
	grep -B30 '^FORBIDDEN' "$out615" | sed 's/^/# /'
fi
blocks=$(grep -c '^Test .* \(Allowed\|Forbidden\|Required\)$' "$out615")
if [ "$blocks" = "${#rmw_tests[@]}" ]; then
	echo "ok 7 - a klitmus7 block for each RMW test, atomic_andnot() ones included"
else
	echo "not ok 7 - $blocks klitmus7 blocks for ${#rmw_tests[@]} RMW tests"
fi
# herd7 7.58 under the 6.15 model: andnot is Always (r0=7, then u=4).
if grep -q '^Observation andnot Always ' "$out615"; then
	echo "ok 8 - atomic_fetch_andnot() in the kernel does what the 6.15 model says (andnot: Always)"
else
	echo "not ok 8 - atomic_fetch_andnot() in the kernel: $(grep '^Observation andnot' "$out615")"
fi
