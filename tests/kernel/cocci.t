#!/usr/bin/env bash
# TAP: scripts/coccinelle/locks/onetime_init.cocci, as the series adds it
# (kernel/patches/0009-*), finds what it is meant to find:
#   - on tests/kernel/cocci/onetime_init.c, one function per recipe of
#     "One-time init" in recipes.txt, it reports exactly the lines marked
#     BAD, with the messages of onetime_init.expected, in report and org
#     mode, and marks the failed-cmpxchg() uses in context mode;
#   - on the pristine 6.12 files that name s_dio_done_wq, it reports the
#     plain tests of s_dio_done_wq in all three readers and not the
#     teardown in generic_shutdown_super();
#   - after the series' first patch (the minimal fix) and after the whole
#     series, it reports nothing there.
# Needs the kernel tree (kernel/scripts/prepare-tree.sh) and spatch
# (Debian's coccinelle; scripts/setup.sh all installs it).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/kernel/scripts/common.sh"

RULE=scripts/coccinelle/locks/onetime_init.cocci
FIXTURE=$top/tests/kernel/cocci/onetime_init.c
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

plan 9

# spatch as `make coccicheck` runs it, plus the rule's Options: line.
spatch_rule() {
	local mode=$1
	shift
	spatch --very-quiet -D "$mode" --cocci-file "$scratch/rule.cocci" \
		$(sed -n 's|^// Options:||p' "$scratch/rule.cocci") "$@"
}

# tree_run NAME COMMIT: the rule over COMMIT's files that name
# s_dio_done_wq, and <linux/lazy_init.h> once the series adds it, parsed
# one by one as `make coccicheck` does.
tree_run() {
	local dir=$scratch/$1
	mkdir -p "$dir"
	{
		git -C "$KSRC" grep -l -w s_dio_done_wq "$2" -- '*.c' '*.h' | sed "s/^$2://"
		git -C "$KSRC" ls-tree --name-only "$2" -- include/linux/lazy_init.h
	} | xargs git -C "$KSRC" archive "$2" -- | tar -x -C "$dir"
	(cd "$dir" && spatch_rule report --jobs "$JOBS" --chunksize 1 --dir .) 2>"$dir.err" |
		sed 's|^\./||; s| at \./| at |' >"$dir.out"
}

if ! command -v spatch >/dev/null; then
	for i in $(seq 9); do not_ok "spatch is not installed (scripts/setup.sh all)"; done
	exit 0
fi
if ! "$top/kernel/scripts/prepare-tree.sh" --series >"$scratch/prepare.log" 2>&1 ||
   ! git -C "$KSRC" show "HEAD:$RULE" >"$scratch/rule.cocci" 2>>"$scratch/prepare.log"; then
	for i in $(seq 9); do not_ok "the series tree with $RULE"; done
	diag <"$scratch/prepare.log"
	exit 0
fi

# 1-2: the fixture, report mode.
cp "$FIXTURE" "$scratch/onetime_init.c"
(cd "$scratch" && spatch_rule report onetime_init.c) >"$scratch/fixture.out" 2>&1
bad=$(grep -n 'BAD \*/' "$FIXTURE" | cut -d: -f1 | paste -sd' ')
reported=$(sed -n 's/^onetime_init\.c:\([0-9]*\):.*/\1/p' "$scratch/fixture.out" | paste -sd' ')
if [ -n "$bad" ] && [ "$bad" = "$reported" ]; then
	ok "fixture: reports exactly the lines marked BAD ($bad)"
else
	not_ok "fixture: reported lines '$reported', BAD lines '$bad'"
	diag <"$scratch/fixture.out"
fi
if diff -u "${FIXTURE%.c}.expected" "$scratch/fixture.out" >"$scratch/fixture.diff"; then
	ok "fixture: the reports are those of onetime_init.expected"
else
	not_ok "fixture: the reports are those of onetime_init.expected"
	diag <"$scratch/fixture.diff"
fi

# 3: org mode gives the same reports as TODO items.
(cd "$scratch" && spatch_rule org onetime_init.c) >"$scratch/fixture.org" 2>&1
org=$(sed -n 's/^\* TODO \[\[view:onetime_init\.c::face=ovl-face1::linb=\([0-9]*\)::.*/\1/p' \
	"$scratch/fixture.org" | paste -sd' ')
if [ "$org" = "$bad" ]; then
	ok "fixture: org mode lists the same lines"
else
	not_ok "fixture: org mode lists '$org'"
	diag <"$scratch/fixture.org"
fi

# 4: context mode marks the two uses of a failed cmpxchg().
(cd "$scratch" && spatch_rule context onetime_init.c) >"$scratch/fixture.ctx" 2>&1
marked=$(grep -c '^-.*BAD' "$scratch/fixture.ctx")
if [ "$marked" -eq 2 ] && grep -q '^-.*return old;' "$scratch/fixture.ctx" &&
   grep -q '^-.*READ_ONCE(h->reread)' "$scratch/fixture.ctx"; then
	ok "fixture: context mode marks the uses of a failed cmpxchg()"
else
	not_ok "fixture: context mode marks the uses of a failed cmpxchg() ($marked lines)"
	diag <"$scratch/fixture.ctx"
fi

# 5-6: the pristine tree.
tree_run pristine pristine
readers=$(grep 'plain load of s_dio_done_wq' "$scratch/pristine.out" |
	sed 's/:.*//' | sort -u | paste -sd' ')
if [ "$readers" = "fs/backing-file.c fs/direct-io.c fs/iomap/direct-io.c" ] &&
   grep -q 'published with cmpxchg() at fs/super.c:' "$scratch/pristine.out"; then
	ok "pristine: s_dio_done_wq's plain tests reported in all three readers"
else
	not_ok "pristine: s_dio_done_wq's plain tests reported in '$readers'"
	cat "$scratch/pristine.out" "$scratch/pristine.err" | diag
fi
if [ "$(grep -c . "$scratch/pristine.out")" -eq 4 ] && ! grep -q '^fs/super.c' "$scratch/pristine.out"; then
	ok "pristine: four reports, none for the teardown in fs/super.c"
else
	not_ok "pristine: four reports, none for the teardown in fs/super.c"
	diag <"$scratch/pristine.out"
fi

# 7: after the minimal fix alone.
first=$(git -C "$KSRC" rev-list --reverse pristine..HEAD | head -n 1)
tree_run first "$first"
if [ -s "$scratch/first.err" ] || [ -s "$scratch/first.out" ]; then
	not_ok "after patch 1 (acquire loads): reports"
	cat "$scratch/first.out" "$scratch/first.err" | diag
else
	ok "after patch 1 (acquire loads): no report"
fi

# 8-9: after the whole series.
tree_run series HEAD
if [ -s "$scratch/series.err" ] || grep -q s_dio_done_wq "$scratch/series.out"; then
	not_ok "after the series: s_dio_done_wq reported"
	cat "$scratch/series.out" "$scratch/series.err" | diag
else
	ok "after the series: s_dio_done_wq not reported"
fi
if [ -f "$scratch/series/include/linux/lazy_init.h" ] && [ ! -s "$scratch/series.out" ]; then
	ok "after the series: no report at all, lazy_init.h included"
else
	not_ok "after the series: no report at all, lazy_init.h included"
	diag <"$scratch/series.out"
fi
