#!/usr/bin/env bash
# Front end: every litmus test of the kernel and of the corpus parses and
# generates events; malformed tests get exit status 2 and the message
# recorded beside them (FILE:LINE:COL: error: ...); `lkmm parse` output
# matches the golden files.
source "$(dirname "$0")/../lib/tap.sh"
cd "$top" || exit 1

corpus=$(find build/kernel-model -name '*.litmus' | sort)
corpus+=" "$(find tests/src/corpus/paulmck-sample/litmus -name '*.litmus' | sort)
bad=$(ls tests/src/bad/*.litmus)
golden=$(ls tests/src/golden/*.litmus)
set -- $LKMM_BINARIES
nbin=$#
plan $(( nbin * ($(echo $corpus | wc -w) + $(echo $bad | wc -w) + $(echo $golden | wc -w)) ))

for lkmm in $LKMM_BINARIES; do
	tag=$(basename "$(dirname "$lkmm")")
	for f in $corpus; do
		if out=$("$lkmm" parse -I "$model_dir" "$f" 2>&1 >/dev/null); then
			ok "$tag: parses $f"
		else
			not_ok "$tag: parses $f"
			echo "$out" | diag
		fi
	done
	for f in $bad; do
		err=$("$lkmm" parse -I "$model_dir" "$f" 2>&1 >/dev/null)
		status=$?
		if [ $status -eq 2 ] && [ "$err" = "$(cat "${f%.litmus}.expected")" ]; then
			ok "$tag: rejects $f"
		else
			not_ok "$tag: rejects $f (status $status)"
			echo "$err" | diag
		fi
	done
	for f in $golden; do
		if diff -u "${f%.litmus}.parse" <("$lkmm" parse -I "$model_dir" "$f" 2>&1) > /tmp/lkmm-golden.$$; then
			ok "$tag: parse output of $f"
		else
			not_ok "$tag: parse output of $f"
			diag < /tmp/lkmm-golden.$$
		fi
		rm -f /tmp/lkmm-golden.$$
	done
done
