# tap.sh - a few lines of TAP for the shell tests run by prove.
#
# Each test script sources this, calls `plan N`, then `ok`/`not_ok` (or
# `check CMD...`) once per case.  The binaries under test are
# $LKMM_BINARIES (default: the optimised build and the ASan+UBSan build).

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
: "${LKMM_BINARIES:=$top/bin/lkmm $top/build/asan/lkmm}"
model_dir=$top/build/kernel-model/tools/memory-model
kernel_tree=$top/build/kernel-model
test_number=0

plan() { echo "1..$1"; }
ok() { test_number=$((test_number + 1)); echo "ok $test_number - $*"; }
not_ok() { test_number=$((test_number + 1)); echo "not ok $test_number - $*"; }
diag() { sed 's/^/# /'; }
: "${TMPDIR:=/tmp}"
