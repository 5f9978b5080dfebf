#!/usr/bin/env bash
# Random LKMM tests made by build/randlitmus (tests/src/randlitmus.c), each
# with herd7's output beside it (NAME.litmus.out, from a local herdtools7
# build): lkmm's output must equal herd7's, Time aside, for every one.
# tests/src/random: 7.57 under the 6.12 model, kept from `make
# fidelity-sweep` runs so that no class of disagreement found there comes
# back; tests/src/random-6.15: 7.58 under the 6.15 model;
# tests/src/random-values: 7.58 under the 6.12 model, tests made with
# randlitmus -values, where two stores write one value (issue 25).  One lkmm
# process checks each set (-j, -o DIR), for each binary under test.
source "$(dirname "$0")/../lib/tap.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

old_tests=("$top"/tests/src/random/*.litmus)
new_tests=("$top"/tests/src/random-6.15/*.litmus)
values_tests=("$top"/tests/src/random-values/*.litmus)
set -- $LKMM_BINARIES
plan $(( $# * (${#old_tests[@]} + ${#new_tests[@]} + ${#values_tests[@]}) ))

# check_set DIR MODEL: every test of DIR, checked under MODEL, as herd7.
check_set() {
	local dir=$1 model=$2 set=${1##*/} lkmm tag out t name
	local tests=("$dir"/*.litmus)

	rm -rf "$work/want" "$work/list"
	printf '%s\n' "${tests[@]}" > "$work/list"
	# Expected outputs, Time and blank lines aside, normalised once.
	mkdir -p "$work/want"
	(cd "$dir" && for t in "${tests[@]}"; do echo "${t##*/}.out"; done |
		tar -cf - -T - | tar -C "$work/want" --transform 's/\.litmus\.out$/.out/' -xf -)
	find "$work/want" -name '*.out' -print0 | xargs -0 sed -i -e '/^Time /d' -e '/^$/d'
	for lkmm in $LKMM_BINARIES; do
		tag=$(basename "$(dirname "$lkmm")")
		out=$work/$tag-$set
		mkdir -p "$out"
		"$lkmm" check -q -I "$model" -o "$out" @"$work/list" > "$work/log" 2>&1
		find "$out" -name '*.out' -print0 | xargs -0 -r sed -i -e '/^Time /d' -e '/^$/d'
		declare -A bad=()
		while read -r name; do
			bad[$name]=1
		done < <({ diff -rq "$work/want" "$out" 2>&1 || true; } |
			 sed -n 's|^Files .*/want/\(.*\)\.out and .*|\1|p; s|^Only in .*/want: \(.*\)\.out|\1|p')
		for t in "${tests[@]}"; do
			name=${t##*/}; name=${name%.litmus}
			if [ -z "${bad[$name]:-}" ]; then
				ok "$tag: $set/$name as herd7"
			else
				not_ok "$tag: $set/$name as herd7"
				diff -u "$work/want/$name.out" "$out/$name.out" 2>&1 | diag
			fi
		done
		unset bad
	done
}

check_set "$top/tests/src/random" "$model_dir"
check_set "$top/tests/src/random-6.15" "$model_dir_615"
check_set "$top/tests/src/random-values" "$model_dir"
