#!/usr/bin/env bash
# The fuzz targets (tests/src/fuzz_*.c, built by the Makefile), a few
# seconds each on our own seeds (tests/src/fuzz-seeds.sh), and every input
# a long run once crashed on, in tests/src/fuzz/TARGET/regress/, replayed:
# each must end without a crash, a leak or undefined behaviour.  `make
# fuzz` runs them for minutes, on the kernel's files too.
source "$(dirname "$0")/../lib/tap.sh"
targets="parse cat check cache log module"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

plan $(( $(wc -w <<< "$targets") * 2 ))
"$top/tests/src/fuzz-seeds.sh" "$work/seeds"
for t in $targets; do
	bin=$top/build/fuzz/fuzz_$t
	mkdir -p "$work/corpus-$t"
	if out=$(cd "$work" && "$bin" -max_total_time=3 -timeout=10 -rss_limit_mb=2048 \
			-close_fd_mask=3 "$work/corpus-$t" "$work/seeds/$t" 2>&1); then
		ok "$t: 3 seconds of fuzzing from $(ls "$work/seeds/$t" | wc -l) seeds: no crash, leak or UB"
	else
		not_ok "$t: 3 seconds of fuzzing: no crash, leak or UB"
		tail -40 <<< "$out" | diag
	fi
	regress=$top/tests/src/fuzz/$t/regress
	if [ ! -d "$regress" ]; then
		ok "$t: no input has crashed it yet"
	elif out=$(cd "$work" && "$bin" -close_fd_mask=1 "$regress"/* 2>&1); then
		ok "$t: the $(ls "$regress" | wc -l) inputs that once crashed it pass"
	else
		not_ok "$t: the inputs that once crashed it pass"
		tail -40 <<< "$out" | diag
	fi
done
