#!/usr/bin/env bash
# Command line: options in herd7's spelling, the herd7 symlink, model
# lookup order, resource limits and their exit status, --explain.
source "$(dirname "$0")/../lib/tap.sh"
mp=$model_dir/litmus-tests/MP+pooncerelease+poacquireonce.litmus
sb=$model_dir/litmus-tests/SB+poonceonces.litmus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

set -- $LKMM_BINARIES
plan $(( $# * 31 ))


for lkmm in $LKMM_BINARIES; do
	tag=$(basename "$(dirname "$lkmm")")
	ln -sf "$lkmm" "$work/herd7"
	expect "$tag: --version" 0 '^lkmm [0-9]' "$lkmm" --version
	expect "$tag: --help documents the model lookup" 0 'LKMM_MODEL_DIR' "$lkmm" --help
	expect "$tag: unknown option" 2 "unknown option '-frob'" "$lkmm" check -frob "$mp"
	expect "$tag: option without argument" 2 'option -timeout needs an argument' \
		"$lkmm" check "$mp" -timeout
	expect "$tag: bad number" 2 '-max-executions takes a whole number' \
		"$lkmm" check -max-executions lots "$mp"
	expect "$tag: -variant without argument" 2 'option -variant needs an argument' \
		"$lkmm" check "$mp" -variant
	expect "$tag: a cat 'if' on no variant" 2 \
		"linux-kernel.cat:[0-9]+:[0-9]+: error: a variant condition .* expected" \
		bash -c "cp -r '$model_dir' '$TMPDIR/cli-if.$$' &&
			 echo 'let bad = if x then 0 else 0' >> '$TMPDIR/cli-if.$$/linux-kernel.cat' &&
			 '$lkmm' check --no-model-cache -I '$TMPDIR/cli-if.$$' '$mp';
			 status=\$?; rm -rf '$TMPDIR/cli-if.$$'; exit \$status"
	# lkmm code writes such a test when no location is shared: no event
	# at all, so relations of no row (UBSan once caught a zero-length
	# array and a NULL given to qsort() there).
	printf 'C no-events\n\n{}\n\nP0()\n{\n}\n\nP1()\n{\n}\n\nexists (false)\n' > "$work/empty.litmus"
	expect "$tag: a test without a single event" 0 '^Observation no-events Never 0 1$' \
		"$lkmm" check -I "$model_dir" "$work/empty.litmus"
	expect "$tag: unknown command" 2 "unknown command 'frob'" "$lkmm" frob
	expect "$tag: missing file" 2 'cannot read .*no-such.litmus' \
		"$lkmm" check -I "$model_dir" "$work/no-such.litmus"
	# A copy of the binary has no unpacked tree beside it.
	cp "$lkmm" "$work/lkmm-alone"
	expect "$tag: no model anywhere" 2 'cannot find the memory model' \
		env -C "$work" LKMM_MODEL_DIR= "$work/lkmm-alone" check "$mp"
	expect "$tag: -I names a directory without the model" 2 'no linux-kernel.cfg in model directory' \
		"$lkmm" check -I "$work" "$mp"
	expect "$tag: \$LKMM_MODEL_DIR" 0 '^Observation MP\+pooncerelease\+poacquireonce Never 0 3' \
		env -C "$work" LKMM_MODEL_DIR="$model_dir" "$lkmm" check "$mp"
	expect "$tag: herd7 symlink, from the model directory" 0 \
		'^Observation SB\+poonceonces Sometimes 1 3' \
		env -C "$model_dir" "$work/herd7" -conf linux-kernel.cfg "$sb"
	expect "$tag: -max-executions" 3 'more than 2 candidate executions' \
		"$lkmm" check -I "$model_dir" -max-executions 2 "$sb"
	expect "$tag: -max-values" 3 'more than 1 distinct values' \
		"$lkmm" check -I "$model_dir" -max-values 1 "$sb"
	# herd7 7.57 prints these for -speedcheck (checked with a local build).
	expect "$tag: -speedcheck fast stops at the witness" 0 \
		'^Observation SB\+poonceonces Always 1 0' "$lkmm" check -I "$model_dir" -speedcheck fast "$sb"
	expect "$tag: -speedcheck true, no witness" 0 '^Observation MP\+pooncerelease\+poacquireonce Never 0 0' \
		"$lkmm" check -I "$model_dir" -speedcheck true "$mp"
	expect "$tag: --explain says why" 0 "the model's 'happens-before' check rules it out" \
		"$lkmm" check -I "$model_dir" --explain "$mp"
	rm -f "$work/SB+poonceonces.out"
	expect "$tag: -q prints nothing" 0 '^$' "$lkmm" check -I "$model_dir" -q -o "$work" "$sb"
	if grep -q '^Observation SB+poonceonces Sometimes 1 3' "$work/SB+poonceonces.out"; then
		ok "$tag: -o writes NAME.out"
	else
		not_ok "$tag: -o writes NAME.out"
	fi

	# One test's failure is that test's alone; the status is the worst,
	# one test at a time or two.
	printf 'C bad\n{}\nP0(int *x) { WRITE_ONCE(*x 1); }\n' > "$work/bad.litmus"
	for j in 1 2; do
		out=$("$lkmm" check -j $j -I "$model_dir" "$work/bad.litmus" "$sb" \
			"$work/no-such.litmus" "$mp" 2>&1)
		status=$?
		if [ "$status" -eq 2 ] && grep -q "bad.litmus:3:.*error" <<< "$out" &&
		   grep -q '^Observation SB+poonceonces Sometimes 1 3' <<< "$out" &&
		   grep -q 'cannot read .*no-such.litmus' <<< "$out" &&
		   grep -q '^Observation MP+pooncerelease+poacquireonce Never 0 3' <<< "$out"; then
			ok "$tag: -j $j: bad input ends its test alone"
		else
			not_ok "$tag: -j $j: bad input ends its test alone (status $status)"
			diag <<< "$out"
		fi
	done
	printf 'C one\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n' > "$work/one.litmus"
	out=$("$lkmm" check -I "$model_dir" -max-executions 3 "$sb" "$work/bad.litmus" "$work/one.litmus" 2>&1)
	status=$?
	if [ "$status" -eq 3 ] && grep -q 'SB+poonceonces.litmus: more than 3 candidate' <<< "$out" &&
	   grep -q '^Observation one Always 1 0' <<< "$out"; then
		ok "$tag: a limit ends its test alone; status is the worst"
	else
		not_ok "$tag: a limit ends its test alone; status is the worst (status $status)"
		diag <<< "$out"
	fi

	# A limit met while generating the runs frees what the build held
	# (the ASan build's leak checker would fail the exit status).
	out=$("$lkmm" check -I "$model_dir" -max-values 1 "$sb" "$work/bad.litmus" "$mp" 2>&1)
	status=$?
	if [ "$status" -eq 3 ] && [ "$(grep -c 'more than 1 distinct values' <<< "$out")" -eq 2 ] &&
	   grep -q "bad.litmus:3:.*error" <<< "$out" && ! grep -q LeakSanitizer <<< "$out"; then
		ok "$tag: limits while generating runs end their test alone, nothing leaks"
	else
		not_ok "$tag: limits while generating runs end their test alone, nothing leaks (status $status)"
		diag <<< "$out"
	fi

	# @LISTFILE and - give the same output as the paths themselves.
	"$lkmm" check -I "$model_dir" "$sb" "$mp" | without_time > "$work/direct"
	printf '# two tests\n%s\n\n%s  \n' "$sb" "$mp" > "$work/list"
	expect "$tag: @LISTFILE" 0 '' \
		diff "$work/direct" <("$lkmm" check -I "$model_dir" "@$work/list" | without_time)
	expect "$tag: - reads the paths on standard input" 0 '' \
		diff "$work/direct" <(printf '%s\n%s\n' "$sb" "$mp" |
				      "$lkmm" check -I "$model_dir" - | without_time)
	expect "$tag: unreadable @LISTFILE" 2 'cannot read the list of tests .*no-list' \
		"$lkmm" check -I "$model_dir" "@$work/no-list"
	expect "$tag: empty list" 2 'no litmus test given' \
		"$lkmm" check -I "$model_dir" - < /dev/null

	# Memory grows with the input, not its square: 20,000 init items
	# (~400 KB) parse within 1 GB of address space (ASan reserves far more
	# than it uses, so only the plain build is capped).
	big=$work/big-init.litmus
	"$top/tests/src/gen-big-init.sh" 20000 > "$big"
	if [ "$tag" = asan ]; then cap=unlimited; else cap=1048576; fi
	expect "$tag: a test with 20,000 init items parses in bounded memory" 0 'W\[once\] var1=1' \
		bash -c 'ulimit -v "$1"; "$2" parse -I "$3" "$4"' _ "$cap" "$lkmm" "$model_dir" "$big"
	expect "$tag: exit status 4 is documented" 0 '4 on an internal' "$lkmm" --help
done
