#!/usr/bin/env bash
# The library (include/lkmm.h, build/liblkmm.a) and `make install`:
# docs/library.md's example, compiled against the library (plain and
# under ASan+UBSan), agrees with `lkmm check` on the kernel's tests and
# reports a malformed test at its place; the library exports the
# header's names and no other; the installed lkmm checks, finds its
# model, emits modules and has its man page, outside the source tree.
source "$(dirname "$0")/../lib/tap.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lkmm=$top/bin/lkmm
tests=$(ls "$model_dir"/litmus-tests/*.litmus | head -12)
plan 11

# The example, as docs/library.md shows it.
sed -n '/^```c$/,/^```$/p' "$top/docs/library.md" | sed '1d;$d' > "$work/example.c"
if cc -std=c11 -Wall -Wextra -Werror -I "$top/include" -o "$work/example" "$work/example.c" \
	"$top/build/liblkmm.a" -pthread 2> "$work/cc.err"; then
	ok "docs/library.md's example compiles against include/lkmm.h and build/liblkmm.a"
else
	not_ok "docs/library.md's example compiles against include/lkmm.h and build/liblkmm.a"
	diag < "$work/cc.err"
fi
# The same under the sanitizers: the library itself built plain, the example's leaks seen.
cc -std=c11 -I "$top/include" -fsanitize=address,undefined -fno-omit-frame-pointer \
	-o "$work/example-asan" "$work/example.c" "$top/build/liblkmm.a" -pthread 2> /dev/null

# What lkmm check prints, in the example's shape: herd7's block, then the explanation.
agree() {
	local bin=$1 fail=0 t
	for t in $tests; do
		(cd "$model_dir" && "$bin" "$t") > "$work/lib.out" 2> "$work/lib.err" || fail=1
		{
			"$lkmm" check -I "$model_dir" --explain "$t" | sed -n '/^Observation/{
				s/^Observation [^ ]* \([A-Za-z]*\) \([0-9]*\) \([0-9]*\)$/\1 \2 \3/p}' |
				sed "s|^|$t |"
			# herd7's blank line after each test is the command line's, not the library's
			"$lkmm" check -I "$model_dir" --explain "$t" | sed '${/^$/d}'
		} > "$work/cli.out"
		if ! diff <(without_time < "$work/cli.out") <(without_time < "$work/lib.out") \
			> "$work/diff"; then
			fail=1
			diag < "$work/diff"
			break
		fi
	done
	return $fail
}
if agree "$work/example"; then
	ok "the example's verdicts and explanations equal lkmm check's (12 kernel tests)"
else
	not_ok "the example's verdicts and explanations equal lkmm check's (12 kernel tests)"
fi
if [ -x "$work/example-asan" ] && agree "$work/example-asan"; then
	ok "the same under ASan+UBSan, no leak"
else
	not_ok "the same under ASan+UBSan, no leak"
fi

# A malformed test: its place and message come back, nothing is printed by the library.
printf 'C bad\n\n{}\n\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1)\n}\n\nexists (x=1)\n' > "$work/bad.litmus"
(cd "$model_dir" && "$work/example" "$work/bad.litmus") > "$work/bad.out" 2> "$work/bad.err"
status=$?
if [ $status -eq 2 ] && grep -qE "^$work/bad.litmus:8:1: " "$work/bad.err" &&
	[ "$(wc -l < "$work/bad.err")" -eq 1 ]; then
	ok "a malformed test is one error at file:line:col, status 2"
else
	not_ok "a malformed test is one error at file:line:col, status 2 (status $status)"
	diag < "$work/bad.err"
fi

# Only the header's names are global in the library.
nm -g --defined-only "$top/build/liblkmm.a" | awk 'NF == 3 { print $3 }' | sort > "$work/exported"
sed -n 's/^[a-z].*[ *]\(lkmm_[a-z_]*\)(.*/\1/p' "$top/include/lkmm.h" | sort > "$work/declared"
if [ -s "$work/declared" ] && diff -u "$work/declared" "$work/exported" > "$work/diff"; then
	ok "build/liblkmm.a exports exactly include/lkmm.h's $(wc -l < "$work/declared") functions"
else
	not_ok "build/liblkmm.a exports exactly include/lkmm.h's functions"
	diag < "$work/diff"
fi

# make install, then the installed lkmm away from the source tree.
prefix=$work/prefix
if make -s -C "$top" install PREFIX="$prefix" > "$work/install.log" 2>&1; then
	ok "make install PREFIX=DIR"
else
	not_ok "make install PREFIX=DIR"
	diag < "$work/install.log"
fi
mkdir "$work/elsewhere"
cp "$model_dir/litmus-tests/SB+poonceonces.litmus" "$work/elsewhere/"
out=$(cd "$work/elsewhere" && env -u LKMM_MODEL_DIR PATH=/usr/bin:/bin "$prefix/bin/lkmm" check \
	SB+poonceonces.litmus 2>&1)
if grep -q '^Observation SB+poonceonces Sometimes 1 3$' <<< "$out"; then
	ok "the installed lkmm checks a test outside the tree with the installed model"
else
	not_ok "the installed lkmm checks a test outside the tree with the installed model"
	diag <<< "$out"
fi
if (cd "$work/elsewhere" && "$prefix/bin/lkmm" run --emit "$work/emitted" \
	SB+poonceonces.litmus > "$work/emit.log" 2>&1) && [ -s "$work/emitted/Kbuild" ]; then
	ok "the installed lkmm run --emit writes the modules"
else
	not_ok "the installed lkmm run --emit writes the modules"
	diag < "$work/emit.log"
fi
if [ -x "$prefix/share/lkmm/kernel/scripts/run-litmus.sh" ] &&
	(cd "$work/elsewhere" && "$prefix/bin/lkmm" run --where) 2>&1 |
	grep -qx "$prefix/share/lkmm"; then
	ok "the installed lkmm run finds the installed harness"
else
	not_ok "the installed lkmm run finds the installed harness"
fi
if [ -s "$prefix/share/man/man1/lkmm.1" ] &&
	man -l "$prefix/share/man/man1/lkmm.1" 2> /dev/null | grep -q 'lkmm check'; then
	ok "the man page is installed and reads"
else
	not_ok "the man page is installed and reads"
fi
if [ -s "$prefix/include/lkmm.h" ] && [ -s "$prefix/lib/liblkmm.a" ] &&
	cc -I "$prefix/include" -o "$work/example-installed" "$work/example.c" \
		"$prefix/lib/liblkmm.a" -pthread 2> /dev/null; then
	ok "the example builds against the installed header and library"
else
	not_ok "the example builds against the installed header and library"
fi
