#!/usr/bin/env bash
# The model of Linux 6.15 and later (variant lkmmv2, tags declared by the
# model; build/kernel-model-6.15, made by scripts/setup.sh): lkmm's output
# equals herd7 7.58's, every line but Time,
#   - for the kernel's 47 tests (corpus/kernel-herd7-6.15),
#   - for the RMW tests of corpus/rmw-tags under the 6.15 and the 6.12
#     model, and those of corpus/rmw-macros (each RMW macro in message
#     passing) under the 6.15 model and the 6.12 one with -variant lkmmv2
#     (the 6.12 model lacks some macros: those tests are errors),
#   - under three edits of the 6.15 model (corpus/model-edits/README.md),
#     one of them read without and with -variant lkmmv2 from the same
#     model cache, which must keep the two apart.
source "$(dirname "$0")/../lib/tap.sh"
here=$top/tests/src/corpus
edits=$here/model-edits
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# same NAME MODEL TEST EXPECTED [ARGS...]: lkmm's output equals EXPECTED.
same() {
	local name=$1 model=$2 test=$3 expected=$4
	shift 4
	if diff -u <(without_time < "$expected") \
		<(cd "$model" && "$lkmm" check -I . "$@" "$test" 2>&1 | without_time) \
		> "$work/diff" 2>&1; then
		ok "$name"
	else
		not_ok "$name"
		diag < "$work/diff"
	fi
}

# same_or_unknown NAME MODEL TEST EXPECTED [ARGS...]: as same, or, where
# herd7 knew no macro, lkmm says so at the call, exit status 2.
same_or_unknown() {
	local name=$1 model=$2 test=$3 expected=$4 macro
	if grep -q 'Unknown macro' "$expected"; then
		macro=$(sed -n 's/.*Unknown macro \([a-z_]*\).*/\1/p' "$expected")
		shift 4
		expect "$name: no $macro there" 2 \
			"/$(sed 's/[+.]/\\&/g' <<< "${test##*/}"):[0-9]+:[0-9]+: error: Unknown macro $macro\$" \
			"$lkmm" check -I "$model" "$@" "$test"
	else
		same "$@"
	fi
}

make_edit() {
	local edit=$1 file=$2 script=$3
	cp -r "$model_dir_615" "$work/$edit"
	sed -i -e "$script" "$work/$edit/$file"
	if cmp -s "$work/$edit/$file" "$model_dir_615/$file"; then
		echo "edit $edit changed nothing in $file" >&2
		exit 1
	fi
}
make_edit nomb linux-kernel.cat '/(\[M\] ; po ; \[Mb & R\]) |/d; /(\[Mb & W\] ; po ; \[M\]) |/d'
make_edit mbfailed linux-kernel.bell 's/^let Mb = MB \\ FailedRMW$/let Mb = MB/'
make_edit novariant linux-kernel.cfg '/^variant lkmmv2$/d'

kernel_tests=$(cd "$here/kernel-herd7-6.15" && find . -name '*.out' | sort)
rmw_tests=$(cd "$here/rmw-tags/litmus" && ls)
macro_tests=$(cd "$here/rmw-macros/litmus" && ls)
edit_tests=$(cd "$edits/litmus" && ls)
nkernel=$(wc -w <<< "$kernel_tests")
nrmw=$(wc -w <<< "$rmw_tests")
nmacro=$(wc -w <<< "$macro_tests")
nedit=$(wc -w <<< "$edit_tests")
set -- $LKMM_BINARIES
plan $(( $# * (nkernel + 2 * nrmw + 2 * nmacro + 4 * (nkernel + nrmw + nedit)) ))

for lkmm in $LKMM_BINARIES; do
	tag=$(basename "$(dirname "$lkmm")")
	for out in $kernel_tests; do
		t=${out%.out}
		same "$tag: 6.15: ${t#./}" "$model_dir_615" "$kernel_tree/$t" \
			"$here/kernel-herd7-6.15/$out"
	done
	for t in $rmw_tests; do
		same "$tag: 6.15: rmw-tags/$t" "$model_dir_615" "$here/rmw-tags/litmus/$t" \
			"$here/rmw-tags/herd7-6.15/$t.out"
		same_or_unknown "$tag: 6.12: rmw-tags/$t" "$model_dir" "$here/rmw-tags/litmus/$t" \
			"$here/rmw-tags/herd7-6.12/$t.out"
	done
	for t in $macro_tests; do
		same "$tag: 6.15: rmw-macros/$t" "$model_dir_615" "$here/rmw-macros/litmus/$t" \
			"$here/rmw-macros/herd7-6.15/$t.out"
		same_or_unknown "$tag: 6.12 -variant lkmmv2: rmw-macros/$t" "$model_dir" \
			"$here/rmw-macros/litmus/$t" "$here/rmw-macros/herd7-6.12-lkmmv2/$t.out" \
			-variant lkmmv2
	done
	for edit in nomb mbfailed novariant novariant-v2; do
		variant=()
		[ "$edit" = novariant-v2 ] && variant=(-variant lkmmv2)
		for out in $kernel_tests; do
			t=${out%.out}
			same "$tag: $edit: ${t#./}" "$work/${edit%-v2}" "$kernel_tree/$t" \
				"$edits/herd7/$edit/$out" "${variant[@]}"
		done
		for t in $rmw_tests; do
			same "$tag: $edit: rmw-tags/$t" "$work/${edit%-v2}" "$here/rmw-tags/litmus/$t" \
				"$edits/herd7/$edit/rmw-tags/$t.out" "${variant[@]}"
		done
		for t in $edit_tests; do
			same "$tag: $edit: edits/$t" "$work/${edit%-v2}" "$edits/litmus/$t" \
				"$edits/herd7/$edit/edits/$t.out" "${variant[@]}"
		done
	done
done
