# tap.sh - a few lines of TAP for the shell tests run by prove.
#
# Each test script sources this, calls `plan N`, then `ok`/`not_ok` (or
# `check CMD...`) once per case.  The binaries under test are
# $LKMM_BINARIES (default: the optimised build and the ASan+UBSan build).

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
: "${LKMM_BINARIES:=$top/bin/lkmm $top/build/asan/lkmm}"
model_dir=$top/build/kernel-model/tools/memory-model
# The 6.15 model over the same tree (scripts/setup.sh).
model_dir_615=$top/build/kernel-model-6.15/tools/memory-model
kernel_tree=$top/build/kernel-model
test_number=0

plan() { echo "1..$1"; }
ok() { test_number=$((test_number + 1)); echo "ok $test_number - $*"; }
not_ok() { test_number=$((test_number + 1)); echo "not ok $test_number - $*"; }
diag() { sed 's/^/# /' >&2; }
: "${TMPDIR:=/tmp}"
# The model cache of every run under test, never the user's (cache.t
# uses caches of its own).
export LKMM_CACHE_DIR=$top/build/test-cache

# expect NAME STATUS PATTERN CMD...: CMD exits with STATUS and some line
# of its output (stdout and stderr) matches the extended regex PATTERN.
expect() {
	local name=$1 want=$2 pattern=$3 out status
	shift 3
	out=$("$@" 2>&1)
	status=$?
	if [ "$status" -eq "$want" ] && grep -qE -- "$pattern" <<< "$out"; then
		ok "$name"
	else
		not_ok "$name (status $status, wanted $want and /$pattern/)"
		diag <<< "$out"
	fi
}

without_time() { grep -v '^Time '; }

# check_litmus LKMM TAG TEST EXPECTED SCRATCH: two cases: lkmm's output
# equals herd7's (EXPECTED, Time aside), and the Observation is
# what the test's "Result:" comment says.
check_litmus() {
	local lkmm=$1 tag=$2 test=$3 expected=$4 out=$5.out name want
	name=$(basename "$test")
	"$lkmm" check -I "$model_dir" "$test" > "$out" 2>&1
	if diff -u <(without_time < "$expected") <(without_time < "$out") > "$5.diff" 2>&1; then
		ok "$tag: $name as herd7"
	else
		not_ok "$tag: $name as herd7"
		diag < "$5.diff"
	fi
	want=$(sed -n 's/^.*Result: *\([A-Za-z]*\).*$/\1/p' "$test" | head -1)
	if grep -q "^Observation [^ ]* $want " "$out"; then
		ok "$tag: $name is $want, as its Result: comment says"
	else
		not_ok "$tag: $name is $want, as its Result: comment says"
		grep '^Observation' "$out" | diag
	fi
}

# check_litmus_tests EXPECTED_DIR SCRATCH TEST...: the plan, then
# check_litmus for every test and binary; EXPECTED_DIR holds NAME.out.
check_litmus_tests() {
	local expected=$1 scratch=$2 lkmm tag t
	shift 2
	plan $(( $# * $(echo $LKMM_BINARIES | wc -w) * 2 ))
	for lkmm in $LKMM_BINARIES; do
		tag=$(basename "$(dirname "$lkmm")")
		for t in "$@"; do
			check_litmus "$lkmm" "$tag" "$t" "$expected/$(basename "$t").out" "$scratch/case"
		done
	done
}

# check_all_litmus LKMM DIR SCRATCH NAME: the kernel's
# scripts/checkalllitmus.sh, run in the model directory DIR with LKMM in
# herd7's place (a symlink first on PATH), its outputs under SCRATCH; one
# TAP case NAME, ok when it verifies every test against its Result: line.
check_all_litmus() {
	local lkmm=$1 dir=$2 scratch=$3 name=$4 out
	mkdir -p "$scratch/bin" "$scratch/out/litmus-tests"
	ln -sf "$lkmm" "$scratch/bin/herd7"
	out=$(cd "$dir" && LKMM_DESTDIR="$scratch/out" PATH="$scratch/bin:$PATH" \
		scripts/checkalllitmus.sh 2>&1)
	if [ $? -eq 0 ] && grep -q '^All litmus tests verified as was expected' <<< "$out"; then
		ok "$name"
	else
		not_ok "$name"
		tail -20 <<< "$out" | diag
	fi
}
