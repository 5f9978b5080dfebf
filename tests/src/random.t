#!/usr/bin/env bash
# Random LKMM tests made by build/randlitmus (tests/src/randlitmus.c), each
# with herd7 7.57's output beside it (NAME.litmus.out, from a local
# herdtools7 build): lkmm's output must equal herd7's, Time aside, for
# every one.  They were kept from `make fidelity-sweep` runs so that no
# class of disagreement found there comes back.  One lkmm process checks
# them all (-j, -o DIR), for each binary under test.
source "$(dirname "$0")/../lib/tap.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tests=("$top"/tests/src/random/*.litmus)
set -- $LKMM_BINARIES
plan $(( $# * ${#tests[@]} ))

printf '%s\n' "${tests[@]}" > "$work/list"
# Expected outputs, Time and blank lines aside, normalised once.
mkdir -p "$work/want"
(cd "$top/tests/src/random" && for t in "${tests[@]}"; do echo "${t##*/}.out"; done |
	tar -cf - -T - | tar -C "$work/want" --transform 's/\.litmus\.out$/.out/' -xf -)
find "$work/want" -name '*.out' -print0 | xargs -0 sed -i -e '/^Time /d' -e '/^$/d'
for lkmm in $LKMM_BINARIES; do
	tag=$(basename "$(dirname "$lkmm")")
	out=$work/$tag
	mkdir -p "$out"
	"$lkmm" check -q -I "$model_dir" -o "$out" @"$work/list" > "$work/log" 2>&1
	find "$out" -name '*.out' -print0 | xargs -0 -r sed -i -e '/^Time /d' -e '/^$/d'
	declare -A bad=()
	while read -r name; do
		bad[$name]=1
	done < <({ diff -rq "$work/want" "$out" 2>&1 || true; } |
		 sed -n 's|^Files .*/want/\(.*\)\.out and .*|\1|p; s|^Only in .*/want: \(.*\)\.out|\1|p')
	for t in "${tests[@]}"; do
		name=${t##*/}; name=${name%.litmus}
		if [ -z "${bad[$name]:-}" ]; then
			ok "$tag: random/$name as herd7"
		else
			not_ok "$tag: random/$name as herd7"
			diff -u "$work/want/$name.out" "$out/$name.out" 2>&1 | diag
		fi
	done
	unset bad
done
