#!/usr/bin/env bash
# --suggest's vocabulary, on small tests written for it (tests/src/suggest/):
# each kind of edit proposed where it is the cheapest fix, its diff applied
# with patch(1) and checked again, and, for a forbidden outcome, the
# orderings that could be weaker.
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/fix.sh"
here=$(dirname "$0")/suggest
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

set -- $LKMM_BINARIES
plan $(( $# * 56 ))

for lkmm in $LKMM_BINARIES; do
	tag=$(basename "$(dirname "$lkmm")")
	expect "$tag: beside a value-less RMW, smp_mb__before_atomic() or smp_mb__after_atomic() rather than smp_mb()" 0 \
		'^  1\. \(cost 4: smp_mb__(before|after)_atomic\(\) 2 \+ smp_mb__(before|after)_atomic\(\) 2\) smp_mb__(before_atomic\(\) before P0 line 17|after_atomic\(\) before P0 line 18), smp_mb__(before_atomic\(\) before P1 line 26|after_atomic\(\) before P1 line 27):$' \
		"$lkmm" check -I "$model_dir" --suggest --suggest-timeout 0 "$here/SB+atomicinc.litmus"
	fix_applies "$tag: ... and that smp_mb__*_atomic() diff forbids the outcome" \
		"$lkmm" "$here/SB+atomicinc.litmus" 1
	expect "$tag: a published pointer: rcu_assign_pointer(), at the price of a release" 0 \
		'^  2\. \(cost 1\) WRITE_ONCE\(\) made rcu_assign_pointer\(\) at P0 line 17:$' \
		"$lkmm" check -I "$model_dir" --suggest --suggest-timeout 0 "$here/MP+ptr.litmus"
	fix_applies "$tag: ... and the rcu_assign_pointer() diff forbids the outcome" \
		"$lkmm" "$here/MP+ptr.litmus" 2
	expect "$tag: plain accesses: a release and an acquire made of them at once" 0 \
		'^  1\. \(cost 2: smp_store_release\(\) 1 \+ smp_load_acquire\(\) 1\) smp_store_release\(\) at P0 line 15, smp_load_acquire\(\) at P1 line 23:$' \
		"$lkmm" check -I "$model_dir" --suggest --suggest-timeout 0 "$here/MP+plain-ordered.litmus"
	fix_applies "$tag: ... and that diff forbids the outcome" "$lkmm" "$here/MP+plain-ordered.litmus" 1
	# The cheapest fix says which edit orders which pair of the execution
	# that reaches the outcome; for twins, what the other edits are for.
	"$lkmm" check -I "$model_dir" --suggest --suggest-timeout 0 \
		"$model_dir/litmus-tests/MP+poonceonces.litmus" > "$work/w" 2>&1
	expect "$tag: why the fix works: the writer's pair, by its release" 0 \
		'^    P0 line 14 then line 15: by smp_store_release\(\) at P0 line 15$' cat "$work/w"
	expect "$tag: ... the reader's pair, by its acquire" 0 \
		'^    P1 line 23 then line 24: by smp_load_acquire\(\) at P1 line 23$' cat "$work/w"
	expect "$tag: ... named as the usual release-acquire publication" 0 \
		'^    This is the usual way to publish data: a release on the store that publishes it, an acquire on the load that checks for it\.$' \
		cat "$work/w"
	"$lkmm" check -I "$model_dir" --suggest "$model_dir/litmus-tests/SB+poonceonces.litmus" \
		> "$work/sb" 2>&1
	if grep -q '^  Nothing cheaper forbids it' "$work/sb" && ! grep -q 'usual way to publish' "$work/sb"; then
		ok "$tag: SB's full barriers are not called a publication"
	else
		not_ok "$tag: SB's full barriers are not called a publication"
		diag < "$work/sb"
	fi
	expect "$tag: ... and DCL-broken's other edits are for the twins' swapped parts" 0 \
		'^    and smp_load_acquire\(\) at P0 line 21, smp_store_release\(\) at P1 line 46: the same edits in the other processes that run this code \(each can play either part\)$' \
		"$lkmm" check -I "$model_dir" --suggest --suggest-timeout 0 --suggest-max 2500 \
		"$model_dir/../../Documentation/litmus-tests/locking/DCL-broken.litmus"
	# The cheapest fixes are diffs; a dearer one is an alternative: its
	# changed lines, as they would read.
	"$lkmm" check -I "$model_dir" --suggest --suggest-timeout 0 "$here/MP+ptr.litmus" > "$work/w" 2>&1
	expect "$tag: a dearer fix is told with the code it changes" 0 \
		'^    P0 line 17: `smp_wmb\(\);` inserted before `WRITE_ONCE\(\*p, x\);`$' \
		grep -A1 '^  3\. (cost 2) smp_wmb() before P0 line 17:$' "$work/w"
	expect "$tag: ... and only the cheapest ones get a diff" 0 '^2$' grep -c '^    --- ' "$work/w"
	expect "$tag: after a lock taken after an unlock, smp_mb__after_unlock_lock() (Z6.0's Never sibling)" 0 \
		'^  1\. \(cost 1\) smp_mb__after_unlock_lock\(\) before P1 line 26:$' \
		"$lkmm" check -I "$model_dir" --suggest --suggest-timeout 0 \
		"$model_dir/litmus-tests/Z6.0+pooncelock+pooncelock+pombonce.litmus"
	expect "$tag: the prices of the edits shown head the fixes, where the first cost is read" 0 \
		'^  Changes that forbid it, cheapest first \(cost: each edit.s rough relative price, weighing arm64 and PowerPC, where ordering costs most, and x86, smp_store_release\(\) 1, rcu_assign_pointer\(\) 1, smp_wmb\(\) 2; on x86 only smp_mb\(\) costs anything: x86 keeps every order but a store before a later load\):$' \
		cat "$work/w"
	"$lkmm" check -I "$model_dir" --suggest "$here/MP+fencemb+fencermb.litmus" > "$work/w" 2>&1
	expect "$tag: a forbidden outcome: a smp_mb() where smp_wmb() is enough, and what makes it safe" 0 \
		'^  P0 line 16 `smp_mb\(\);`: smp_mb\(\) weakened to smp_wmb\(\): still forbidden, so smp_wmb\(\) is enough, and cheaper, cost 2 against 3 \(on the explanation.s chain it stands between two stores, P0 line 15 `WRITE_ONCE\(\*x, 1\);` and line 17 `WRITE_ONCE\(\*y, 1\);`, which smp_wmb\(\) keeps in order; the rest of that chain holds by P1 line 29 `smp_rmb\(\);`\)$' \
		cat "$work/w"
	# smp_rmb() not enough, beside smp_wmb() enough, is noise (readers).
	expect "$tag: ... and where smp_wmb() is enough, smp_rmb() not being so is not said" 1 \
		'^$' grep 'weakened to smp_rmb' "$work/w"
	expect "$tag: ... and a release of the store after it, cheaper still (a smp_mb() where a release suffices)" 0 \
		'^  P0 line 16 `smp_mb\(\);`: replaced by smp_store_release\(\) at line 17 `WRITE_ONCE\(\*y, 1\);`: still forbidden, so that is enough, and cheaper \(cost 1 against 3\)$' \
		cat "$work/w"
	expect "$tag: ... a fully ordered xchg() where xchg_release() is enough" 0 \
		'^  P0 line 18 `r0 = xchg\(z, 1\);`: xchg\(\) weakened to xchg_release\(\): still forbidden, so xchg_release\(\) is enough, and cheaper$' \
		cat "$work/w"
	# The reviewer's fix of double-checked locking, four edits on two CPUs
	# (the default set size: processes + 2); a variant bound, not a time,
	# so that a slow machine finds it too.
	expect "$tag: DCL-broken: acquire on the lockless read, release on the flag store, on each CPU (cost 2: one function)" 0 \
		'^  1\. \(cost 2: smp_load_acquire\(\) 1 \+ smp_store_release\(\) 1; the same 2 edits in each of the processes that share this code\) smp_load_acquire\(\) at P0 line 21, smp_store_release\(\) at P0 line 27, smp_load_acquire\(\) at P1 line 40, smp_store_release\(\) at P1 line 46:$' \
		"$lkmm" check -I "$model_dir" --suggest --suggest-timeout 0 --suggest-max 2500 \
		"$model_dir/../../Documentation/litmus-tests/locking/DCL-broken.litmus"
	"$lkmm" check -I "$model_dir" --suggest --suggest-timeout 0 --suggest-max 2500 \
		"$model_dir/../../Documentation/litmus-tests/locking/DCL-broken.litmus" > "$work/w" 2>&1
	if grep -A1 '^  (Processes that are the same code are changed alike: in the kernel they are one function, so an edit made in each counts once in a change.s cost\.)$' "$work/w" |
		grep -q '^  Changes that forbid it, cheapest first (cost: ' &&
	   ! grep '^  [0-9]*\. (cost' "$work/w" |
		awk '{ if (gsub(/P0 line/, "") != gsub(/P1 line/, "")) bad = 1 } END { exit !bad }'; then
		ok "$tag: DCL-broken's two CPUs run the same code: every fix changes both alike"
	else
		not_ok "$tag: DCL-broken's two CPUs run the same code: every fix changes both alike"
		diag < "$work/w"
	fi
	if grep -q '^  [0-9]\. (cost [0-9].*smp_rmb() before' "$work/w" &&
	   ! grep -q '^  [0-9]\. (cost [0-9].*smp_mb() before' "$work/w"; then
		ok "$tag: DCL-broken: smp_mb() where smp_rmb() already fixes it is not another way"
	else
		not_ok "$tag: DCL-broken: smp_mb() where smp_rmb() already fixes it is not another way"
		diag < "$work/w"
	fi
	# Each edit made alike in the twins counts once; a dearer alternative
	# quotes its line once for both.
	if grep '^  [0-9]*\. (cost' "$work/w" | awk '
		{ n = 0; s = $0
		  n += 3 * gsub(/smp_mb\(\) (before|after) P0/, "", s); n += 2 * gsub(/smp_[rw]mb\(\) (before|after) P0/, "", s)
		  n += 2 * gsub(/smp_mb__after_spinlock\(\) (before|after) P0/, "", s)
		  n += gsub(/smp_mb__after_unlock_lock\(\) (before|after) P0/, "", s)
		  n += gsub(/smp_(load_acquire|store_release)\(\) at P0/, "", s)
		  match($0, /\(cost [0-9]+/); if (substr($0, RSTART + 6, RLENGTH - 6) != "" n) bad = 1 }
		END { exit bad }' &&
	   grep -q '^    P0 line 27 and P1 line 46: `smp_store_release(flag, 1);` in place of `WRITE_ONCE(\*flag, 1);`$' "$work/w"; then
		ok "$tag: DCL-broken: a change's cost counts each twin edit once, dearer ones quoted"
	else
		not_ok "$tag: DCL-broken: a change's cost counts each twin edit once, dearer ones quoted"
		diag < "$work/w"
	fi
	# A lock both sides take, the fix a driver writer reaches for first,
	# is tried and checked; not where a process takes a lock already.
	expect "$tag: an allowed outcome: one lock around every process's statements, tried" 0 \
		'^  Or one lock on every side: with each process.s statements between spin_lock\(shared_lock\) and spin_unlock\(shared_lock\) \(P0 and P1\), it is forbidden too \(checked\): the critical sections run one at a time, each seeing everything the one before it did\.  A lock costs more than the barriers above \(an atomic RMW and a release on each CPU, and a CPU waits while another holds it\); where both sides already take one lock around these accesses, they need no barrier for them\.$' \
		"$lkmm" check -I "$model_dir" --suggest "$model_dir/litmus-tests/SB+poonceonces.litmus"
	expect "$tag: ... not where a process takes a lock already" 1 '' \
		grep -q '^  Or one lock' "$work/w"
	expect "$tag: MP: every initialising store goes before the publishing one" 0 \
		'; every store that initialises the data, plain ones too, goes before the publishing one \(' \
		"$lkmm" check -I "$model_dir" --explain "$model_dir/litmus-tests/MP+onceassign+derefonce.litmus"
	# The same fix with its fence in another place is said once, as an "or".
	expect "$tag: DCL-broken: a fence before a branch is named after the statement before it, as the other place of a fence" 0 \
		'^    or the same change with its fences moved: smp_rmb\(\) after P0 line 21, smp_rmb\(\) after P1 line 40 instead \(the rest as above\):$' \
		cat "$work/w"
	expect "$tag: ... and its changed line is told by that statement too" 0 \
		'^    P0 line 21 and P1 line 40: `smp_rmb\(\);` inserted after `r0 = READ_ONCE\(\*flag\);`$' \
		cat "$work/w"
	expect "$tag: SB needs full barriers, and the answer says nothing cheaper works" 0 \
		'^  Nothing cheaper forbids it \(every cheaper set was tried: smp_store_release\(\), smp_load_acquire\(\), smp_rmb\(\), smp_wmb\(\) wherever they fit, and smp_mb\(\) in fewer places\): it needs a full barrier' \
		"$lkmm" check -I "$model_dir" --suggest "$model_dir/litmus-tests/SB+poonceonces.litmus"
	expect "$tag: ... and \"In short\" says so up front" 0 \
		'^  In short: to forbid it, use smp_mb\(\) before P0 line 18 \(`r0 = READ_ONCE\(\*y\);`\), smp_mb\(\) before P1 line 26 \(`r0 = READ_ONCE\(\*x\);`\) \(change 1 below\); nothing cheaper and no fewer barriers forbid it\.$' \
		"$lkmm" check -I "$model_dir" --explain --suggest "$model_dir/litmus-tests/SB+poonceonces.litmus"
	# A smp_mb() right after a WRITE_ONCE() is one smp_store_mb(): said
	# as the same fix, and that text forbids the outcome on its own.
	"$lkmm" check -I "$model_dir" --suggest "$model_dir/litmus-tests/SB+poonceonces.litmus" \
		> "$work/w" 2>&1
	expect "$tag: SB: the fix also as smp_store_mb(), the call the kernel writes there" 0 \
		'^    P0 line 17: `smp_store_mb\(\*x, 1\);` in place of `WRITE_ONCE\(\*x, 1\);` and the smp_mb\(\) after it$' \
		grep -A1 '^    or the same with smp_store_mb(), a store and smp_mb() in one call:$' "$work/w"
	sed 's/WRITE_ONCE(\*\([xy]\), 1);/smp_store_mb(*\1, 1);/' \
		"$model_dir/litmus-tests/SB+poonceonces.litmus" > "$work/SB+storemb.litmus"
	expect "$tag: ... and SB with smp_store_mb() in both processes is forbidden" 0 \
		'^Observation SB\+poonceonces Never 0 ' \
		"$lkmm" check -I "$model_dir" "$work/SB+storemb.litmus"
	expect "$tag: a forbidden outcome: smp_mb() tried in place of smp_mb__after_spinlock(), and found dearer" 0 \
		'^  P1 line 27 `smp_mb__after_spinlock\(\);`: smp_mb__after_spinlock\(\) replaced by smp_mb\(\): still forbidden, but dearer \(cost 3 against 2\): the same full barrier on arm64 and PowerPC, but smp_mb\(\) costs on x86 too, where smp_mb__after_spinlock\(\) is free; so keep smp_mb__after_spinlock\(\)$' \
		"$lkmm" check -I "$model_dir" --suggest \
		"$model_dir/litmus-tests/Z6.0+pooncelock+poonceLock+pombonce.litmus"
	# Only RCU uses smp_mb__after_unlock_lock(): it is not offered in
	# place of smp_mb__after_spinlock(), though the model lets it do.
	"$lkmm" check -I "$model_dir" --explain --suggest \
		"$model_dir/litmus-tests/Z6.0+pooncelock+poonceLock+pombonce.litmus" > "$work/w" 2>&1
	if grep -q '^  P1 line 27 `smp_mb__after_spinlock();`: removed: the outcome becomes possible, so this ordering is needed$' "$work/w" &&
	   ! grep -q 'weakened to smp_mb__after_unlock_lock' "$work/w" &&
	   grep -qxF '  In short: to keep it forbidden, keep:' "$work/w" &&
	   grep -qxF '    - P0 and P1 both taking mylock;' "$work/w" &&
	   grep -qxF '    - P1 line 27 `smp_mb__after_spinlock();` as it is (removing it would let it happen; smp_store_release() at line 29 cannot replace it);' "$work/w" &&
	   grep -qxF '    - P2 line 38 `smp_mb();` as it is (needed too; neither smp_rmb() nor smp_wmb() can replace it).' "$work/w"; then
		ok "$tag: a forbidden outcome: smp_mb__after_spinlock() needed, with no RCU-only weakening offered"
	else
		not_ok "$tag: a forbidden outcome: smp_mb__after_spinlock() needed, with no RCU-only weakening offered"
		diag < "$work/w"
	fi
	expect "$tag: a needed smp_mb() after a WRITE_ONCE(): the smp_store_mb() that is the same" 0 \
		'^  P2 line 38 `smp_mb\(\);`: removed: the outcome becomes possible, so this ordering is needed; together with the store before it, it may also be written `smp_store_mb\(\*z, 2\);`$' \
		"$lkmm" check -I "$model_dir" --suggest "$model_dir/litmus-tests/Z6.0+pooncelock+poonceLock+pombonce.litmus"
	expect "$tag: a forbidden outcome's answer ends with its line for scripts: orderings needed, and cheaper" 0 \
		'^Suggestion: forbidden, needs 1, cheaper 1$' \
		bash -c "'$lkmm' check -I '$model_dir' --suggest '$model_dir/litmus-tests/ISA2+pooncelock+pooncelock+pombonce.litmus' | grep -v '^$' | tail -1"
	expect "$tag: ... with none of either when the test has no ordering to vary" 0 \
		'^Suggestion: forbidden, needs 0, cheaper 0$' \
		bash -c "'$lkmm' check -I '$model_dir' --suggest '$model_dir/litmus-tests/MP+polocks.litmus' | grep -v '^$' | tail -1"
	expect "$tag: ... and a release of the store after it, tried in its place, said not enough" 0 \
		'^  P1 line 27 `smp_mb__after_spinlock\(\);`: replaced by smp_store_release\(\) at line 29 `WRITE_ONCE\(\*z, 1\);`: the outcome becomes possible, so that is not enough$' \
		cat "$work/w"
	expect "$tag: a forbidden outcome: first, what the code relies on, the lock hand-offs of its chains too" 0 \
		'^  The outcome is forbidden\.  It needs P1 line 27 `smp_mb__after_spinlock\(\);` and P2 line 38 `smp_mb\(\);` \(weaken or remove any one of them and it can happen: below\)\.  It also relies on the lock hand-off from P0 line 19 `spin_unlock\(mylock\);` to P1 line 26 `spin_lock\(mylock\);` \(and, had P1 taken the lock first, the one back from P1 line 30 `spin_unlock\(mylock\);` to P0 line 16 `spin_lock\(mylock\);`\)\.$' \
		"$lkmm" check -I "$model_dir" --suggest \
		"$model_dir/litmus-tests/Z6.0+pooncelock+poonceLock+pombonce.litmus"
	expect "$tag: ... an address dependency of the chain" 0 \
		'^  The outcome is forbidden\.  It needs P0 line 19 `rcu_assign_pointer\(\*p, x\);` \(weaken or remove it and it can happen: below\)\.  It also relies on the address dependency of P1 line 29 `r1 = READ_ONCE\(\*r0\);` on P1 line 28 `r0 = rcu_dereference\(\*p\);`; keep the dependency: use the loaded value itself, not one the compiler can know is equal to it: after `if \(r0 == &obj\)`, it may load through &obj rather than r0, and that load no longer waits for line 28\.$' \
		"$lkmm" check -I "$model_dir" --suggest "$model_dir/litmus-tests/MP+onceassign+derefonce.litmus"
	"$lkmm" check -I "$model_dir" --suggest "$here/MP+lock-alone.litmus" > "$work/w" 2>&1
	if grep -qE '^  The outcome is forbidden\.  It needs P0 line 18 `smp_store_release\(flag, 1\);` and P1 line 26 `r0 = smp_load_acquire\(flag\);` \(weaken or remove any one of them and it can happen: below\)\.$' "$work/w" &&
	   ! grep -q 'hand-off' "$work/w"; then
		ok "$tag: ... but not a lock that no chain hands on"
	else
		not_ok "$tag: ... but not a lock that no chain hands on"
		diag < "$work/w"
	fi
	expect "$tag: ... a test with no ordering to vary, only a lock" 0 \
		'^  The outcome is forbidden\.  The test has no acquire, release, ordered RMW or fence to weaken\.  It relies on the lock hand-off from P0 line 21 `spin_unlock\(mylock\);` to P1 line 29 `spin_lock\(mylock\);` \(and, had P1 taken the lock first, the one back from P1 line 31 `spin_unlock\(mylock\);` to P0 line 19 `spin_lock\(mylock\);`\)\.$' \
		"$lkmm" check -I "$model_dir" --suggest "$model_dir/litmus-tests/MP+polocks.litmus"
	expect "$tag: ... where a release and an acquire in the lock's place keep it forbidden, that is said, verified" 0 \
		'^  Without the lock \(mylock removed from P0 and P1\): smp_store_release\(\) at P0 line 20 and smp_load_acquire\(\) at P1 line 30: still forbidden \(cost 2: smp_store_release\(\) 1 \+ smp_load_acquire\(\) 1\): that is the ordering the lock gives here\.  The lock costs more \(an atomic RMW and a release on each CPU\), but it also keeps the critical sections apart: keep it wherever they must be\.$' \
		"$lkmm" check -I "$model_dir" --suggest "$model_dir/litmus-tests/MP+polocks.litmus"
	expect "$tag: ... and where they do not (ISA2: the lock orders more than a release and an acquire)" 0 \
		'^  Without the lock \(mylock removed from P0 and P1\): smp_store_release\(\) at P0 line 16 and smp_load_acquire\(\) at P1 line 25 are not enough: the outcome becomes possible \(after an acquire, a store that is not a release carries nothing on to a third CPU; a lock.s hand-off does: LOCKING in explanation\.txt\)\.  With smp_store_release\(\) at P1 line 26 too: still forbidden \(cost 3\), as a release passes on the stores its CPU has seen\.$' \
		"$lkmm" check -I "$model_dir" --suggest \
		"$model_dir/litmus-tests/ISA2+pooncelock+pooncelock+pombonce.litmus"
	expect "$tag: ISA2: smp_mb() weakened to smp_rmb() is safe, and it rests on the lock hand-off" 0 \
		'^  P2 line 36 `smp_mb\(\);`: smp_mb\(\) weakened to smp_rmb\(\): still forbidden, so smp_rmb\(\) is enough, and cheaper, cost 2 against 3 \(on the explanation.s chain it stands between two loads, P2 line 35 `r2 = READ_ONCE\(\*z\);` and line 37 `r1 = READ_ONCE\(\*x\);`, which smp_rmb\(\) keeps in order; the rest of that chain holds by the lock hand-off from P0 line 17 `spin_unlock\(mylock\);` to P1 line 24 `spin_lock\(mylock\);`\)$' \
		"$lkmm" check -I "$model_dir" --suggest \
		"$model_dir/litmus-tests/ISA2+pooncelock+pooncelock+pombonce.litmus"
	# The cheapest replacement as a diff, which patch(1) applies and the
	# checker still finds forbidding the outcome.
	"$lkmm" check -I "$model_dir" --suggest \
		"$model_dir/litmus-tests/ISA2+pooncelock+pooncelock+pombonce.litmus" |
		sed -n '/^  The cheapest replacement of P2 line 36 `smp_mb();`, smp_load_acquire() at line 35, as a diff (enough for these accesses; keep smp_mb() if code around it also needs a store before it ordered before a load after it, which only a full barrier does):$/,/^  [^ ]/p' |
		sed -n 's/^    //p' > "$work/cheaper.diff"
	cp "$model_dir/litmus-tests/ISA2+pooncelock+pooncelock+pombonce.litmus" "$work/ISA2.litmus"
	if [ -s "$work/cheaper.diff" ] && patch -s "$work/ISA2.litmus" < "$work/cheaper.diff" &&
	   grep -q 'r2 = smp_load_acquire(z);' "$work/ISA2.litmus" && ! grep -q 'smp_mb' "$work/ISA2.litmus" &&
	   "$lkmm" check -I "$model_dir" "$work/ISA2.litmus" | grep -q '^Observation ISA2+pooncelock+pooncelock+pombonce Never'; then
		ok "$tag: a needed smp_mb() with a cheaper replacement: that replacement as a diff that applies and still forbids it"
	else
		not_ok "$tag: a needed smp_mb() with a cheaper replacement: that replacement as a diff that applies and still forbids it"
		diag < "$work/cheaper.diff"
	fi
	expect "$tag: a needed smp_mb() after a load: an acquire of that load tried instead, and cheaper" 0 \
		'^  P2 line 36 `smp_mb\(\);`: replaced by smp_load_acquire\(\) at line 35 `r2 = READ_ONCE\(\*z\);`: still forbidden, so that is enough, and cheaper \(cost 1 against 3\)$' \
		"$lkmm" check -I "$model_dir" --suggest \
		"$model_dir/litmus-tests/ISA2+pooncelock+pooncelock+pombonce.litmus"
	expect "$tag: ... and \"In short\" keeps the lock first, the fence with its cheaper replacements" 0 \
		'^  In short: to keep it forbidden, keep P0 and P1 both taking mylock and P2 line 36 `smp_mb\(\);`, or the cheaper smp_load_acquire\(\) at line 35 in its place \(smp_rmb\(\) is enough too\)\.$' \
		"$lkmm" check -I "$model_dir" --suggest \
		"$model_dir/litmus-tests/ISA2+pooncelock+pooncelock+pombonce.litmus"
	expect "$tag: ... or says that the needed orderings stay as they are (Z6.0)" 0 \
		'^  Without the lock \(mylock removed from P0 and P1, and line 27 `smp_mb__after_spinlock\(\);` with it\): smp_store_release\(\) at P0 line 18 and smp_mb\(\) after P1 line 28: still forbidden \(cost 4: smp_store_release\(\) 1 \+ smp_mb\(\) 3\): that is the ordering the lock and line 27 `smp_mb__after_spinlock\(\);` give here\.  The lock costs more \(an atomic RMW and a release on each CPU\), but it also keeps the critical sections apart: keep it wherever they must be\.$' \
		"$lkmm" check -I "$model_dir" --suggest \
		"$model_dir/litmus-tests/Z6.0+pooncelock+poonceLock+pombonce.litmus"
	expect "$tag: ... the price of a fence the trials name, beside the common ones" 0 \
		'^  Cost: each edit.s rough relative price, weighing arm64 and PowerPC, where ordering costs most, and x86 \(smp_load_acquire\(\) 1, smp_store_release\(\) 1, smp_rmb\(\) 2, smp_wmb\(\) 2, smp_mb\(\) 3, smp_mb__after_spinlock\(\) 2 \(a full barrier.s price on arm64 and PowerPC, but free on x86, whose locks and atomic RMWs are full barriers already\); on x86 only smp_mb\(\) costs anything: x86 keeps every order but a store before a later load\)\.$' \
		"$lkmm" check -I "$model_dir" --suggest \
		"$model_dir/litmus-tests/Z6.0+pooncelock+poonceLock+pombonce.litmus"
	if "$lkmm" check -I "$model_dir" --suggest \
		"$model_dir/litmus-tests/Z6.0+pooncelock+poonceLock+pombonce.litmus" |
		grep -q 'replaced by smp_load_acquire'; then
		not_ok "$tag: ... and not where no load comes before the fence (Z6.0's P2: a store, then smp_mb())"
	else
		ok "$tag: ... and not where no load comes before the fence (Z6.0's P2: a store, then smp_mb())"
	fi
	expect "$tag: ... and the reader's side: rcu_dereference() against READ_ONCE()" 0 \
		'^  P1 line 28 `r0 = rcu_dereference\(\*p\);`: rcu_dereference\(\) weakened to READ_ONCE\(\): still forbidden, but keep rcu_dereference\(\) for an RCU-protected pointer, under rcu_read_lock\(\): lockdep and sparse check it\.  \(READ_ONCE\(\) orders a load through the pointer it returns too, so the model sees no difference\.\)  rcu_read_lock\(\) orders nothing here: it keeps the object alive while the updater waits for a grace period \(synchronize_rcu\(\), kfree_rcu\(\)\) before freeing it\.$' \
		"$lkmm" check -I "$model_dir" --suggest "$model_dir/litmus-tests/MP+onceassign+derefonce.litmus"
	# Four CPUs, each a store then a load: the cheapest-first search runs
	# out of variants long before four smp_mb() (cost 12); the fix found by
	# taking away the fences the outcome does not need is told instead.
	"$lkmm" check -I "$model_dir" --suggest --suggest-timeout 0 --suggest-max 100 \
		"$top/tests/src/corpus/paulmck-sample/litmus/auto/C-WR-R+WR-R+WR-R+WR-R.litmus" \
		> "$work/w" 2>&1
	if grep -q '^  1\. (cost 12: smp_mb() 3 + smp_mb() 3 + smp_mb() 3 + smp_mb() 3) smp_mb() before P0 line 24, smp_mb() before P1 line 33, smp_mb() before P2 line 42, smp_mb() before P3 line 51:$' "$work/w" &&
	   grep -qx "Suggestion: fixed 1" "$work/w"; then
		ok "$tag: out of budget, the fix from smp_mb() everywhere with each unneeded one taken away"
	else
		not_ok "$tag: out of budget, the fix from smp_mb() everywhere with each unneeded one taken away"
		diag < "$work/w"
	fi
	"$lkmm" check -I "$model_dir" --suggest "$here/MP+plain.litmus" > "$work/w" 2>&1
	expect "$tag: a data race: the racing plain store marked WRITE_ONCE()" 0 \
		'^  P0 line 17 `\*buf = 1;`: the plain store made WRITE_ONCE\(\)$' cat "$work/w"
	expect "$tag: ... the racing plain load READ_ONCE(), and the private one left plain" 0 \
		'^  P1 line 27 `r1 = \*buf;`: the plain load made READ_ONCE\(\)$' \
		sh -c "! grep -q 'r2 = \\*z;\`: the plain' '$work/w' && cat '$work/w'"
	sed -n '/^  The model flags/,/^  The outcome/s/^    //p' "$work/w" > "$work/fix.diff"
	cp "$here/MP+plain.litmus" "$work/MP+plain.litmus"
	if patch -s "$work/MP+plain.litmus" < "$work/fix.diff" &&
	   ! "$lkmm" check -I "$model_dir" "$work/MP+plain.litmus" | grep -q '^Flag data-race'; then
		ok "$tag: ... and that diff leaves no data race"
	else
		not_ok "$tag: ... and that diff leaves no data race"
		diag < "$work/fix.diff"
	fi
done
