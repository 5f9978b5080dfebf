#!/usr/bin/env bash
# The litmus tests that our kernel series adds (the new .litmus files of
# kernel/patches/): lkmm's output equals herd7's, recorded in
# tests/kernel/litmus-expected/, and each test's "Result:" comment holds,
# DATARACE included, as the kernel's own scripts/checkalllitmus.sh judges
# it with lkmm in herd7's place (the model and scripts of the 6.12 tree,
# the tests alone in litmus-tests/).
source "$(dirname "$0")/../lib/tap.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
expected=$top/tests/kernel/litmus-expected

# Write every .litmus file a patch creates into $work.
awk -v dir="$work" '
	/^diff --git / { out = ""; if ($3 ~ /\.litmus$/) { n = split($3, p, "/"); name = p[n] } else name = ""; next }
	/^new file/ && name != "" { out = dir "/" name; next }
	/^@@/ { body = (out != ""); next }
	body && /^\+/ { print substr($0, 2) > out; next }
	body && !/^[ +-]/ { body = 0 }
' $(find "$top/kernel/patches" -name '*.patch' | sort)
tests=("$work"/*.litmus)
set -- $LKMM_BINARIES
plan $(( ${#tests[@]} * $# * 2 + $# ))
for lkmm in $LKMM_BINARIES; do
	tag=$(basename "$(dirname "$lkmm")")
	for t in "${tests[@]}"; do
		check_litmus "$lkmm" "$tag" "$t" "$expected/$(basename "$t").out" "$work/case"
	done
	judge=$work/judge-$tag
	mkdir -p "$judge/mm/litmus-tests"
	(cd "$model_dir" && cp -r $(ls | grep -v '^litmus-tests$') "$judge/mm/")
	cp "${tests[@]}" "$judge/mm/litmus-tests/"
	check_all_litmus "$lkmm" "$judge/mm" "$judge" \
		"$tag: checkalllitmus.sh verifies the series' ${#tests[@]} tests against their Result: lines"
done
