#!/usr/bin/env bash
# The in-kernel layer of `make check`: `lkmm run` builds every litmus test
# of the kernel's corpus (the patched tree's, so the series' tests too)
# and ours as modules, runs them all in one QEMU boot on 4 vCPUs, and
# holds each state the kernel reached against the model.  Counts are
# small, to keep `make check` short; docs/in-kernel.md has a longer run.
top=$(cd "$(dirname "$0")/../.." && pwd)
tree=$top/build/kernel/src
# The whole output stays in build/run/corpus.txt, the table of docs/in-kernel.md.
out=$top/build/run/corpus.txt
err=$(mktemp)
trap 'rm -f "$err"' EXIT
mkdir -p "$(dirname "$out")"

echo "1..5"
tests=()
for t in "$tree"/tools/memory-model/litmus-tests/*.litmus "$tree"/Documentation/litmus-tests/*/*.litmus \
	 "$top"/litmus/*.litmus; do
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
