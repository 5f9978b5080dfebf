#!/usr/bin/env bash
# The litmus tests that our kernel series adds (the new .litmus files of
# kernel/patches/): lkmm's output equals herd7's, recorded in
# tests/kernel/litmus-expected/, and each test's "Result:" comment holds.
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
check_litmus_tests "$expected" "$work" "$work"/*.litmus
