#!/usr/bin/env bash
# See why: --explain on the whole kernel corpus (every step of a cycle
# names a source line and a relation the reader can look up), --suggest
# (the fixes the corpus' own Never siblings use, the orderings a Never
# test needs), --graph (Graphviz's dot parses every file we write), --svg
# (drawn by lkmm itself, with no dot on the PATH: well-formed XML that
# draws what the dot file says) and --html (a real headless browser
# loads the page and shows each test).
source "$(dirname "$0")/../lib/tap.sh"
source "$(dirname "$0")/../lib/fix.sh"
tests=$(ls "$model_dir"/litmus-tests/*.litmus "$kernel_tree"/Documentation/litmus-tests/*/*.litmus)
ntests=$(wc -w <<< "$tests")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Sometimes test, then a line its suggestion must hold: the edits of the
# Never sibling named beside it (a cheaper subset of them, for ISA2).
siblings=(
	"MP+poonceonces" "smp_store_release() at P0 line 15, smp_load_acquire() at P1 line 23"
	"MP+poonceonces" "smp_wmb() before P0 line 15, smp_rmb() before P1 line 24"
	"SB+poonceonces" "smp_mb() before P0 line 18, smp_mb() before P1 line 26"
	"LB+poonceonces" "smp_load_acquire() at P0 line 16, smp_store_release() at P1 line 25"
	"R+poonceonces" "smp_mb() before P0 line 16, smp_mb() before P1 line 24"
	"S+poonceonces" "smp_wmb() before P0 line 17, smp_load_acquire() at P1 line 24"
	"WRC+poonceonces+Once" "smp_store_release() at P1 line 23, smp_rmb() before P2 line 32"
	"IRIW+poonceonces+OnceOnce" "smp_mb() before P1 line 26, smp_mb() before P3 line 40"
	"ISA2+poonceonces" "smp_store_release() at P0 line 17, smp_store_release() at P1 line 25, smp_load_acquire() at P2 line 33"
)

set -- $LKMM_BINARIES
plan $(( $# * (2 * ntests + ${#siblings[@]} / 2 + 54) ))

# explained TEST: the verdict in words comes first; every numbered step
# names a line of a process and no step is of an unknown relation; the
# cycle ends where it began; a load's value is said once; the legend
# says where each word used is explained, and --glossary defines
# exactly the words used.
explained() {
	local out=$1 steps used listed
	sed -n '/^Explanation:$/{n;p;q}' "$out" | grep -q '^  \(Forbidden\|Allowed\): the outcome (' ||
		{ echo "the verdict is not the first line"; return 1; }
	if grep -E '\(reads [^)]*\) reads (the initial value|[^ ]+=[^ ]+, stored by)' "$out"; then
		echo "a value said twice"; return 1
	fi
	used=$( { sed -n 's/^  [0-9]*\. .* \[\([^]]*\)\]\.$/\1/p' "$out"
		  grep '^  Chain:' "$out" | grep -o ' ->[^ ]*' | sed 's/^ ->//'
		  sed -n "s/.*[Tt]he model's '\([^']*\)' check.*/\1/p" "$out"; } | sort -u)
	if [ -n "$glossary" ]; then
		listed=$(sed -n '/^  Words used/,$s/^    \([^ :]*\)[:. ].*/\1/p' "$out" | sort -u)
	else
		listed=$(sed -n 's/^  Where the model.s words used here are explained ([^)]*): \(.*\)\.  (Run with --glossary to have each defined here\.)$/\1/p' "$out" |
			 sed 's/; /\n/g' | sed 's/: .*//; s/, /\n/g' | sort -u)
	fi
	[ "$used" = "$listed" ] ||
		{ printf 'legend: words used:\n%s\nlisted:\n%s\n' "$used" "$listed"; return 1; }
	steps=$(grep '^  [0-9]*\. ' "$out")
	if grep -q '^  Step by step' "$out"; then
		[ -n "$steps" ] || { echo "no steps"; return 1; }
		if grep -v 'P[0-9]* line [0-9]*' <<< "$steps"; then
			echo "a step names no line"; return 1
		fi
		if grep -E '\[(inverse of )?\?' <<< "$steps"; then
			echo "a step of an unknown relation"; return 1
		fi
		grep -q "^  That leads back to P[0-9]* line\|^  The model's '.*' check forbids this" "$out" ||
			{ echo "no conclusion"; return 1; }
	elif grep -q '^  It happens\( when\|, in one of\| in 2 executions\)' "$out"; then
		grep -q "interleaving\|If each CPU ran its statements in program order" "$out" || { echo "no word on ordering"; return 1; }
	else
		grep -q 'No run of the processes' "$out" || { echo "nothing explained"; return 1; }
	fi
}

xml_unescape() { sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&amp;/\&/g'; }

# svg_agrees DOT SVG LITMUS: the picture draws the dot graph: a column
# per process of the test, its name at the top, its events down it in
# program order; every node of the graph a box with the same lines;
# every edge a path, with the same label in the same colour; a rejected
# candidate's cycle in red.
svg_agrees() {
	local dot=$1 svg=$2 procs
	procs=$(grep -c '^P[0-9][0-9]* *(' "$3")
	[ "$(grep -c '^<text class="process"' "$svg")" = "$procs" ] ||
		{ echo "not one column header for each of the $procs processes"; return 1; }
	awk '
		/^<text class="process"/ {
			sub(/^<text class="process" x="/, "")
			x = $0 + 0
			match($0, />P[0-9]+</)
			head[substr($0, RSTART + 1, RLENGTH - 2)] = x
		}
		/^<g class="node"><rect / && match($0, /middle">P[0-9]+ line /) {
			p = substr($0, RSTART + 8, RLENGTH - 14)
			sub(/^<g class="node"><rect x="[0-9]+" y="/, "")
			y = $0 + 0
			sub(/^[^>]*><text x="/, "")
			x = $0 + 0
			if (!(p in head) || x - head[p] > 1 || head[p] - x > 1) {
				print p "'"'"'s event is not under its name"; bad = 1
			}
			if ((p in last) && y <= last[p]) {
				print p "'"'"'s events do not go down in program order"; bad = 1
			}
			last[p] = y
		}
		END { exit bad }' "$svg" || return 1
	diff <(sed -n 's/^  e[0-9]* \[label="\(.*\)"\];$/\1/p' "$dot" | sed 's/\\"/"/g' | sort) \
	     <(sed -n 's/^<g class="node"><rect[^>]*><text[^>]*>\(.*\)<\/text><\/g>$/\1/p' "$svg" |
		sed 's/<\/text><text[^>]*>/\\n/g' | xml_unescape | sort) ||
		{ echo "the boxes are not the dot graph's nodes"; return 1; }
	diff <(sed -n 's/^  e[0-9]* -> e[0-9]* \[label="\([^"]*\)", color=\([a-z]*\).*/\2 \1/p' "$dot" | sort) \
	     <(sed -n 's/^<text class="label"[^>]* fill="\([a-z]*\)">\(.*\)<\/text>$/\1 \2/p' "$svg" |
		xml_unescape | sort) ||
		{ echo "the edges' labels are not the dot graph's"; return 1; }
	[ "$(grep -c '^<path d="M[^"]*" stroke="red"' "$svg")" = "$(grep -c 'color=red' "$dot")" ] ||
		{ echo "not as many red paths as red edges"; return 1; }
	if grep -q "^<title>.*rejected by" "$svg" && ! grep -q '^<path d="M[^"]*" stroke="red"' "$svg"; then
		echo "a rejected candidate without its cycle in red"; return 1
	fi
}

for lkmm in $LKMM_BINARIES; do
	tag=$(basename "$(dirname "$lkmm")")
	for t in $tests; do
		name=$(basename "$t" .litmus)
		for glossary in "" --glossary; do
			"$lkmm" check -I "$model_dir" --explain $glossary "$t" > "$work/out" 2>&1
			if why=$(explained "$work/out"); then
				ok "$tag: $name $glossary: every step of the explanation names its lines"
			else
				not_ok "$tag: $name $glossary: every step of the explanation names its lines"
				{ echo "$why"; cat "$work/out"; } | diag
			fi
		done
	done

	mp=$model_dir/litmus-tests/MP+pooncerelease+poacquireonce.litmus
	"$lkmm" check -I "$model_dir" --explain "$mp" > "$work/mp" 2>&1
	if grep -q '^  1\. P0 line 16 (writes flag=1) is ordered after P0 line 15 (writes buf=1): line 16 is a release store.*\[release\]' "$work/mp" &&
	   grep -q '^  2\. P1 line 24 reads flag=1, stored by P0 line 16 \[rf\]' "$work/mp" &&
	   grep -q '^  3\. P1 line 25 .* is ordered after P1 line 24 .*acquire load.*\[acquire\]' "$work/mp" &&
	   grep -q "^  4\\. P1 line 25 .* ran before P0 line 15 .* reached P1's CPU: it read the older value \\[fr\\]" "$work/mp"; then
		ok "$tag: message passing: P0's two stores, the release, the acquire, in the test's order"
	else
		not_ok "$tag: message passing: P0's two stores, the release, the acquire, in the test's order"
		diag < "$work/mp"
	fi
	expect "$tag: the first line: the verdict, the test's Result: comment, the shape" 0 \
		'^  Forbidden: the outcome \(1:r0=1 /\\ 1:r1=0\) never happens \(Never\), as the test.s "Result: Never" says; the shape is MP \(message passing: data published behind a flag or a pointer\)\.$' \
		cat "$work/mp"
	expect "$tag: the chain in one line, each link labelled" 0 \
		'^  Chain: P0:Wbuf=1 ->release Wflag=1 ->rf P1:Rflag=1 ->acquire Rbuf=0 ->fr P0:Wbuf=1$' \
		cat "$work/mp"
	sed 's/Result: Never/Result: Sometimes/' "$mp" > "$work/MP-wrong.litmus"
	expect "$tag: ... and says when the Result: comment disagrees" 0 \
		'^  Forbidden: .* \(Never\), unlike the test.s "Result: Sometimes"; the shape is MP' \
		"$lkmm" check -I "$model_dir" --explain "$work/MP-wrong.litmus"
	expect "$tag: herd7's count of the executions that reach an allowed outcome is named" 0 \
		'^  Allowed: the outcome \(0:r0=0 /\\ 1:r0=0\) can happen \(Sometimes: 1 of the 4 executions the model accepts ends in it, which herd7 says with "Ok" and "Positive: 1 Negative: 3"; a count of ways, not a likelihood\), as the test.s "Result: Sometimes" says; the shape is SB \(store buffering\)\.$' \
		"$lkmm" check -I "$model_dir" --explain "$model_dir/litmus-tests/SB+poonceonces.litmus"
	expect "$tag: a final value the condition reads is said to be one" 0 \
		'^  Forbidden: the outcome \(1:r0=1 /\\ \[z\]=2 /\\ 2:r1=0, where \[z\] is z.s final value\) never happens' \
		"$lkmm" check -I "$model_dir" --explain \
		"$model_dir/litmus-tests/Z6.0+pooncelock+poonceLock+pombonce.litmus"
	expect "$tag: \"In the kernel\" names the recipe that shows the pattern" 0 \
		'^  In the kernel: for example, the sleep/wake-up pattern\.  A sleeper stores its task state \(set_current_state\(\), whose smp_store_mb\(\) is the sleeper.s barrier\), then loads the condition; a waker stores the condition, then loads the task state \(in wake_up\(\)\)\.  This outcome is the lost wake-up: the sleeper misses the condition and the waker misses the sleeper\.  Safe: a plain wake_up\(\), which takes the wait-queue lock the sleeper.s prepare_to_wait\(\) took\.  Not safe: testing waitqueue_active\(\) before wake_up\(\); use wq_has_sleeper\(\), whose smp_mb\(\) is the waker.s barrier \(tools/memory-model/Documentation/recipes\.txt: "Store buffering"\)\.$' \
		"$lkmm" check -I "$model_dir" --explain "$model_dir/litmus-tests/SB+poonceonces.litmus"
	expect "$tag: SB: which process is the sleeper and which the waker, in the test's names" 0 \
		'^  Mapped onto that pattern, P0 would be the sleeper \(x its task state, y the condition\) and P1 the waker\.$' \
		"$lkmm" check -I "$model_dir" --explain "$model_dir/litmus-tests/SB+poonceonces.litmus"
	expect "$tag: a forbidden outcome: a state where a register holds the old pointer is said to be one" 0 \
		'^  In herd7.s state 1:r0=y; 1:r1=0;, r0=y is &y, the initial value of p: P1 read p before the store to it reached P1.s CPU, which can happen; only the outcome above cannot\.$' \
		"$lkmm" check -I "$model_dir" --explain "$model_dir/litmus-tests/MP+onceassign+derefonce.litmus"
	expect "$tag: the shape is found from the cycle, not the file name (SB)" 0 \
		'^  Allowed: .*; the shape is SB \(store buffering\)\.$' \
		"$lkmm" check -I "$model_dir" --explain "$model_dir/litmus-tests/SB+poonceonces.litmus"
	expect "$tag: an allowed outcome: what would order each pair it needs reordered" 0 \
		'^      \(a store, then a load: only a full barrier, smp_mb\(\) or a fully ordered RMW such as xchg\(\), orders these; the store can wait in the CPU.s store buffer while the load runs, on x86 too\)$' \
		"$lkmm" check -I "$model_dir" --explain "$model_dir/litmus-tests/SB+poonceonces.litmus"
	# A lock handed from one CPU to another is one link, unlock-lock,
	# whichever relation of the model the cycle went through (hb's
	# release, rfe and acquire in ISA2, po-rel and rfe before a fence in
	# Z6.0): readers took the three links for a release and an acquire.
	bad=
	"$lkmm" check -I "$model_dir" --explain \
		"$model_dir/litmus-tests/ISA2+pooncelock+pooncelock+pombonce.litmus" > "$work/lock" 2>&1
	grep -q '^  Chain: P0:Wx=1 ->unlock-lock P1:Wz=1 ->rf P2:Rz=1 ->mb Rx=0 ->fr P0:Wx=1$' "$work/lock" &&
	grep -q '^  1\. P1 line 26 (writes z=1) is ordered after P0 line 15 (writes x=1): the lock is handed on between them, from P0 line 17 `spin_unlock(mylock);` to P1 line 24 `spin_lock(mylock);` \[unlock-lock\]\.$' "$work/lock" ||
		bad="$bad ISA2"
	"$lkmm" check -I "$model_dir" --explain \
		"$model_dir/litmus-tests/Z6.0+pooncelock+poonceLock+pombonce.litmus" > "$work/lock" 2>&1
	grep -q '^  Chain: P0:Wx=1 ->unlock-lock P1:lock(mylock) ->after-spinlock Wz=1 ->' "$work/lock" &&
	grep -q '^  1\. P1 line 26 `spin_lock(mylock);` takes the lock P0 line 19 `spin_unlock(mylock);` released after P0 line 17 (writes x=1) \[unlock-lock\]\.$' "$work/lock" ||
		bad="$bad Z6.0"
	if [ -z "$bad" ]; then
		ok "$tag: unlock then lock is named the same in ISA2 and Z6.0"
	else
		not_ok "$tag: unlock then lock is named the same in ISA2 and Z6.0"
		echo "$bad" | diag
	fi
	# ISA2's two rejected candidates read the same values: which CPU takes
	# the lock first is what tells them apart.
	# A load that missed a store is told in time as the store arriving later.
	"$lkmm" check -I "$model_dir" --explain \
		"$model_dir/litmus-tests/SB+fencembonceonces.litmus" > "$work/sb-time" 2>&1
	if sed -n '/^  In time:$/,/^  Why/p' "$work/sb-time" | diff - <(cat <<-'EOF'
	  In time:
	    a. P0 line 18 writes x=1.
	    b. P0 waits at its fence (step 1) until x=1 has reached every CPU.
	    c. After the fence, P0 line 20 reads y=0.
	    d. P1 line 27 writes y=1, which reaches P0's CPU only after line 20 read the older value (step 2).
	    e. P1 waits at its fence (step 3) until y=1 has reached every CPU.
	    f. After the fence, P1 line 29 reads x, where x=1 already is: it cannot read x=0.
	  Why it cannot happen: steps 2 (fr) and 4 (fr) say only that a store reached a CPU late, and a store can reach other CPUs long after its own CPU ran it.  The strong fences of steps 1 (mb) and 3 (mb) forbid it, as "In time" above shows: a CPU at a strong fence waits until every store it has seen has reached every CPU.
	EOF
	) > /dev/null; then
		ok "$tag: a missed store in a timeline reaches the load's CPU later"
	else
		not_ok "$tag: a missed store in a timeline reaches the load's CPU later"
		diag < "$work/sb-time"
	fi
	"$lkmm" check -I "$model_dir" --explain \
		"$model_dir/litmus-tests/ISA2+pooncelock+pooncelock+pombonce.litmus" > "$work/isa2" 2>&1
	if sed -n '/^  Way 1 of 2/,/^  Way 2 of 2/p' "$work/isa2" |
		grep -q '^    P1 line 24 `spin_lock(mylock);` takes the lock P0 line 17 `spin_unlock(mylock);` released\.$' &&
	   sed -n '/^  Way 2 of 2/,$p' "$work/isa2" |
		grep -q '^  The same loads as Way 1, but with P1.s critical section first (P0 line 14 `spin_lock(mylock);` takes the lock P1 line 27 `spin_unlock(mylock);` released): then P1 line 25 (reads y=1) would run before P0 line 16 (writes y=1), the store it reads, which the model.s .happens-before. check (no event happens before itself) forbids\.$'; then
		ok "$tag: two ways with the same loads are told apart by their lock hand-offs"
	else
		not_ok "$tag: two ways with the same loads are told apart by their lock hand-offs"
		diag < "$work/isa2"
	fi
	z6=$model_dir/litmus-tests/Z6.0+pooncelock+poonceLock+pombonce.litmus
	"$lkmm" check -I "$model_dir" --explain "$z6" > "$work/z6" 2>&1
	if grep -q "^  The code can give these values in 2 ways (candidate executions), and the model rules out each one, as told below:$" "$work/z6" &&
	   grep -q '^  Way 2 of 2:$' "$work/z6" &&
	   grep -q "^  That leads back to P0 line 17 (writes x=1): it would have to come after itself, which the model's 'propagation' check (a full barrier waits until the stores its CPU has seen have reached every CPU) forbids\.$" "$work/z6" &&
	   ! grep -q "^  Why " "$work/z6" &&
	   sed -n '/^  Way 2 of 2/,$p' "$work/z6" |
		grep -q "^  The same loads and store order as Way 1, but with P1's critical section first (.*): then P1 line 28 .*(reads y=1) would run before P0 line 18 .*(writes y=1), the store it reads, which the model's 'happens-before' check (no event happens before itself) forbids\.$"; then
		ok "$tag: a forbidden outcome: every way it dies, and why propagation and not happens-before"
	else
		not_ok "$tag: a forbidden outcome: every way it dies, and why propagation and not happens-before"
		diag < "$work/z6"
	fi
	# Readers have the test beside them: no listing of its code.
	expect "$tag: the test's code is not listed again" 1 \
		'^$' bash -c "grep -E '^    P[0-9]+: [0-9]+ \`' '$work/z6'"
	expect "$tag: a strong fence after a load waits for the store it read, in the timeline" 0 \
		"^    f\. P3 waits at its fence \(step 5\) until y=1 has reached every CPU\.$" \
		"$lkmm" check -I "$model_dir" --explain "$model_dir/litmus-tests/IRIW+fencembonceonces+OnceOnce.litmus"
	# The crux in one sentence, right after the answer: what readers found
	# deep in the why and asked to read first.
	expect "$tag: the point: a lock orders nothing for a CPU that skips it (DCL)" 0 \
		'^  The point: P1.s first check, at line 40, runs without lck, so the lock orders nothing for what P1 does after that check\.$' \
		"$lkmm" check -I "$model_dir" --explain "$model_dir/../../Documentation/litmus-tests/locking/DCL-broken.litmus"
	expect "$tag: ... a lock hand-off carries a store on to a third CPU (ISA2)" 0 \
		'^  The point: when P1 takes the lock after P0 releases it, any CPU, even one that never takes the lock, that sees P1.s stores from after taking it \(z=1\) then sees P0.s from before the release \(x=1\); P2 reads z=1, so it must see x=1\.$' \
		"$lkmm" check -I "$model_dir" --explain "$model_dir/litmus-tests/ISA2+pooncelock+pooncelock+pombonce.litmus"
	expect "$tag: ... but not to one that overwrites instead of reading (Z6.0)" 0 \
		'^  The point: P1 took the lock after P0 released it, so a CPU that reads z=1 must see x=1 too\.  But P2 never reads z=1: its store z=2 overwrites it, and an overwrite passes on no ordering\.  What forbids the outcome is the full barriers on P1 and P2, on both sides of that overwrite \("Putting it together" below\)\.$' \
		"$lkmm" check -I "$model_dir" --explain "$model_dir/litmus-tests/Z6.0+pooncelock+poonceLock+pombonce.litmus"
	expect "$tag: herd7's \"Allowed\" over a forbidden outcome is said to name the question only" 0 \
		'^  \(herd7.s block above: "Test MP\+onceassign\+derefonce Allowed" only names the question, whether the outcome is allowed; the "No" under it is the answer, and its States are the outcomes that can happen\.\)$' \
		"$lkmm" check -I "$model_dir" --explain "$model_dir/litmus-tests/MP+onceassign+derefonce.litmus"
	expect "$tag: ... and nothing over an allowed one, where herd7's words agree with ours" 1 \
		'^$' bash -c "'$lkmm' check -I '$model_dir' --explain '$model_dir/litmus-tests/SB+poonceonces.litmus' | grep herd7.s.block"
	dcl=$kernel_tree/Documentation/litmus-tests/locking/DCL-broken.litmus
	"$lkmm" check -I "$model_dir" --explain "$dcl" > "$work/dcl" 2>&1
	expect "$tag: double-checked locking is recognised, with the shape under it" 0 \
		'^  Allowed: .*; this is double-checked locking, and underneath, MP \(message passing: data published behind a flag or a pointer\)\.$' \
		cat "$work/dcl"
	expect "$tag: why the lock does not help: the other CPU skips it" 0 \
		'^  P1 does not take lck here: it skips line 42 `spin_lock\(lck\);`, as the branch on what line 40 read goes around it\.  So the lock gives P1 no ordering: it may see the stores P0 makes under the lock in either order, flag=1 before data=1\.  The recheck at line 43 `r1 = READ_ONCE\(\*flag\);` needs no ordering of its own: it runs under the lock, after the critical section of whoever held it before, stores included\.  Keep the lock all the same: it is what lets only one CPU initialise\.$' \
		cat "$work/dcl"
	# A load its branch skips: its register in herd7's states was never loaded.
	expect "$tag: a load the execution skips is said not to run, its register its initial value" 0 \
		'^  \(P1 line 43 does not run here: 1:r1=0 in herd7.s state is r1.s initial value, not a value read\.\)$' \
		cat "$work/dcl"
	expect "$tag: ... and why its recheck under the lock needs no ordering, and the lock stays" 0 \
		'  The recheck at line 43 `r1 = READ_ONCE\(\*flag\);` needs no ordering of its own: it runs under the lock, after the critical section of whoever held it before, stores included\.  Keep the lock all the same: it is what lets only one CPU initialise\.$' \
		cat "$work/dcl"
	if grep -qi 'violate\|reject' "$work/dcl"; then
		not_ok "$tag: an allowed outcome tells the execution that reaches it, not the ones rejected"
		diag < "$work/dcl"
	else
		ok "$tag: an allowed outcome tells the execution that reaches it, not the ones rejected"
	fi
	# An edited model: a check of a name the legend does not know is listed bare.
	mkdir -p "$work/edited"
	cp "$model_dir"/*.cat "$model_dir"/*.bell "$model_dir"/*.cfg "$model_dir"/*.def "$work/edited"
	sed -i 's/ as happens-before$/ as causality/' "$work/edited/linux-kernel.cat"
	"$lkmm" check -I "$work/edited" --explain "$mp" > "$work/edited.out" 2>&1
	"$lkmm" check -I "$work/edited" --glossary "$mp" > "$work/edited.words" 2>&1
	if grep -q "^  The code can give these values in only one way .* the model's 'causality' check rules it out:$" "$work/edited.out" &&
	   grep -q '^  Where the model.s words used here are explained .*; causality\.  (Run with --glossary to have each defined here\.)$' "$work/edited.out" &&
	   grep -qx '    causality\.' "$work/edited.words" && ! grep -q "^  Why " "$work/edited.out"; then
		ok "$tag: an edited model's check is in the legend without a gloss"
	else
		not_ok "$tag: an edited model's check is in the legend without a gloss"
		diag < "$work/edited.out"
	fi
	expect "$tag: an allowed outcome names the pairs nothing orders" 0 \
		'^      then P0 line 18 \(reads y=0\)$' \
		"$lkmm" check -I "$model_dir" --explain "$model_dir/litmus-tests/SB+poonceonces.litmus"

	# A load that missed a store is a step in time through the release
	# after that store, and the why says which.
	# The timeline tells it; the crux is "The point", not a paragraph after it.
	expect "$tag: happens-before's crux names the release that makes the missed store count" 0 \
		"^  The point: the release at P0 line 19 makes x=1 reach each CPU before p=&x reaches that CPU, and P1 loads x only after it has read p=&x\.$" \
		"$lkmm" check -I "$model_dir" --explain "$model_dir/litmus-tests/MP+onceassign+derefonce.litmus"
	expect "$tag: ... and no paragraph after the timeline says it again" 1 \
		'^$' bash -c "'$lkmm' check -I '$model_dir' --explain '$model_dir/litmus-tests/MP+onceassign+derefonce.litmus' | grep '^  Why '"
	expect "$tag: ... and, through a lock handed on, the lock's hand-off, not a release" 0 \
		'^  The point: when P1 takes the lock after P0 releases it, any CPU, even one that never takes the lock, that sees P1.s stores from after taking it \(z=1\) then sees P0.s from before the release \(x=1\); P2 reads z=1, so it must see x=1\.$' \
		"$lkmm" check -I "$model_dir" --explain "$model_dir/litmus-tests/ISA2+pooncelock+pooncelock+pombonce.litmus"
	# With --suggest, the answer in one line right after the verdict.
	"$lkmm" check -I "$model_dir" --explain --suggest --suggest-timeout 0 \
		"$model_dir/litmus-tests/MP+poonceonces.litmus" > "$work/short" 2>&1
	if grep -A2 '^Explanation:$' "$work/short" | tail -1 |
	   grep -qxF '  In short: to forbid it, use smp_store_release() at P0 line 15 (`WRITE_ONCE(*flag, 1);`), smp_load_acquire() at P1 line 23 (`r0 = READ_ONCE(*flag);`), the usual way to publish data (change 1 below).'; then
		ok "$tag: --explain --suggest opens with the fix in one line, after the verdict"
	else
		not_ok "$tag: --explain --suggest opens with the fix in one line, after the verdict"
		diag < "$work/short"
	fi
	# An allowed outcome: the loads of the chain first, the others apart.
	"$lkmm" check -I "$model_dir" --explain \
		"$model_dir/../../Documentation/litmus-tests/locking/DCL-broken.litmus" > "$work/dcl" 2>&1
	if sed -n '/^  It happens/,/^  The other loads/p' "$work/dcl" | grep -q '^    P1 line 40 ' &&
	   ! sed -n '/^  It happens/,/^  The other loads/p' "$work/dcl" | grep -q '^    P0 line 21 ' &&
	   sed -n '/^  The other loads of this execution, off the chain:$/,/^  No interleaving/p' "$work/dcl" |
		grep -qF '    P0 line 21 `r0 = READ_ONCE(*flag);` reads the initial value of flag (0).'; then
		ok "$tag: the loads on the chain are told apart from the others"
	else
		not_ok "$tag: the loads on the chain are told apart from the others"
		diag < "$work/dcl"
	fi
	# A propagation chain is not an order in time: its steps are not told
	# as one; a way with Way 1's loads is told by its chain line alone.
	"$lkmm" check -I "$model_dir" --explain \
		"$model_dir/litmus-tests/Z6.0+pooncelock+poonceLock+pombonce.litmus" > "$work/z6" 2>&1
	if grep -q '^  Step by step:$' "$work/z6" &&
	   sed -n '/^  In time:$/,/^  Way 2/p' "$work/z6" | diff - <(cat <<-'EOF'
	  In time:
	    a. x=1 reaches P1's CPU (step 1: P1 took the lock after P0 released it).
	    b. P1 waits at its fence (step 2) until x=1 has reached every CPU (a full barrier waits so for every store its CPU has seen, x=1 included).
	    c. After the fence, P1 line 29 writes z=1.
	    d. P2 line 37 writes z=2 over z=1 (step 3).
	    e. P2 waits at its fence (step 4) until z=2 has reached every CPU, P1's too.
	    f. Putting it together: P2's wait (e) lasts until z=2 has reached P1's CPU.  z=2 comes after z=1 in z's order, so it reaches P1's CPU only after P1 wrote z=1 (c); had it arrived first, z=1 would have overwritten it there.  P1 wrote z=1 only after x=1 had reached every CPU (b).  So when P2's wait ends, x=1 has reached every CPU.
	    g. After the fence, P2 line 39 reads x, where x=1 already is: it cannot read x=0.
	  Way 2 of 2:
	EOF
	) > /dev/null &&
	   ! grep -q 'each event must come' "$work/z6" &&
	   "$lkmm" check -I "$model_dir" --explain "$model_dir/litmus-tests/SB+fencembonceonces.litmus" |
		grep -q "^  Why it cannot happen: steps 2 (fr) and 4 (fr) say only that a store reached a CPU late, "; then
		ok "$tag: a 'propagation' chain's steps are not called an order in time; its argument as a timeline first"
	else
		not_ok "$tag: a 'propagation' chain's steps are not called an order in time; its argument as a timeline first"
		diag < "$work/z6"
	fi
	"$lkmm" check -I "$model_dir" --explain \
		"$model_dir/litmus-tests/ISA2+pooncelock+pooncelock+pombonce.litmus" > "$work/isa2" 2>&1
	if [ "$(grep -c '^  Step by step' "$work/isa2")" = 1 ] &&
	   [ "$(grep -c '^  (Left to right, back to where it started: Wx=1 is a store of 1 to x, ' "$work/isa2")" = 1 ] &&
	   grep -A1 '^  Chain: ' "$work/isa2" | sed -n 2p | grep -q '^  (Left to right, ' &&
	   [ "$(sed -n '/^  Way 2 of 2/,$p' "$work/isa2" | grep -c '^  Chain: ')" = 0 ] &&
	   sed -n '/^  Way 2 of 2/,$p' "$work/isa2" | grep -q 'with P1.s critical section first .*: then P1 line 25 .* would run before P0 line 16 .*, the store it reads' &&
	   sed -n '/^  In time:$/,/^  Way 2/p' "$work/isa2" | diff - <(cat <<-'EOF'
	  In time:
	    a. x=1 reaches each CPU before P1 line 26 (z=1) reaches it (step 1: P1 took the lock after P0 released it).
	    b. P2 line 35 reads z=1 (step 2).
	    c. P2 line 37 reads x (step 3, mb), where x=1 already is: it cannot read x=0.
	  Way 2 of 2:
	EOF
	) > /dev/null; then
		ok "$tag: a way with Way 1's loads is one sentence, no chain or steps again; how to read a chain, once, under the first"
	else
		not_ok "$tag: a way with Way 1's loads is one sentence, no chain or steps again; how to read a chain, once, under the first"
		diag < "$work/isa2"
	fi
	"$lkmm" check -I "$model_dir" --explain "$model_dir/litmus-tests/SB+poonceonces.litmus" \
		> "$work/sb" 2>&1
	if [ "$(grep -c 'only a full barrier, smp_mb() or a fully ordered RMW such as xchg(), orders these' "$work/sb")" = 1 ] &&
	   [ "$(grep -c '^      (likewise)$' "$work/sb")" = 1 ] &&
	   grep -q '^  (--suggest lists the cheapest changes that forbid it\.)$' "$work/sb"; then
		ok "$tag: the reason a kind of pair needs is said once"
	else
		not_ok "$tag: the reason a kind of pair needs is said once"
		diag < "$work/sb"
	fi
	"$lkmm" check -I "$model_dir" --explain --suggest "$model_dir/litmus-tests/SB+poonceonces.litmus" \
		> "$work/sb" 2>&1
	if ! grep -q 'suggest lists' "$work/sb" && grep -q '^Suggestion: fixed' "$work/sb"; then
		ok "$tag: with --suggest, the explanation does not point to it"
	else
		not_ok "$tag: with --suggest, the explanation does not point to it"
		diag < "$work/sb"
	fi

	for ((i = 0; i < ${#siblings[@]}; i += 2)); do
		t=$model_dir/litmus-tests/${siblings[i]}.litmus
		# No time bound: what is found must not depend on the machine's load.
		"$lkmm" check -I "$model_dir" --suggest --suggest-timeout 0 "$t" > "$work/s" 2>&1
		if grep -qF -e ") ${siblings[i + 1]}:" -e ") ${siblings[i + 1]}." "$work/s"; then
			ok "$tag: --suggest on ${siblings[i]} finds ${siblings[i + 1]}"
		else
			not_ok "$tag: --suggest on ${siblings[i]} finds ${siblings[i + 1]}"
			diag < "$work/s"
		fi
	done
	"$lkmm" check -I "$model_dir" --suggest --suggest-timeout 0 \
		"$model_dir/litmus-tests/MP+poonceonces.litmus" > "$work/s" 2>&1
	if sed -n '/^  1\. /,/^  2\. /p' "$work/s" | grep -q '^    -	WRITE_ONCE(\*flag, 1);$' &&
	   sed -n '/^  1\. /,/^  2\. /p' "$work/s" | grep -q '^    +	smp_store_release(flag, 1);$' &&
	   sed -n '/^  1\. /,/^  2\. /p' "$work/s" | grep -q '^    +	r0 = smp_load_acquire(flag);$' &&
	   grep -q '^    @@ -12,7 +12,7 @@$' "$work/s"; then
		ok "$tag: --suggest shows each fix as a unified diff of the test"
	else
		not_ok "$tag: --suggest shows each fix as a unified diff of the test"
		diag < "$work/s"
	fi
	# The diff applies: patch(1) turns the test into one the model forbids.
	fix_applies "$tag: the suggested diff applies with patch and the outcome is then Never" \
		"$lkmm" "$model_dir/litmus-tests/MP+poonceonces.litmus" 1
	# Both stores before both loads: sequential consistency reaches it.
	sed 's/^exists.*/exists (0:r0=1 \/\\ 1:r0=1)/' "$model_dir/litmus-tests/SB+poonceonces.litmus" \
		> "$work/SB-sc.litmus"
	"$lkmm" check -I "$model_dir" --suggest "$work/SB-sc.litmus" > "$work/s" 2>&1
	if [ "$(grep -v "^$" "$work/s" | tail -1)" = "Suggestion: sc-reachable" ] &&
	   grep -q '^  No ordering can forbid it' "$work/s" &&
	   [ "$(grep -c '^    [1-4]\. P[01] line [0-9]* `' "$work/s")" = 4 ] &&
	   [ "$(sed -n 's/^    \([34]\)\. P[01] line [0-9]* `r0 = READ_ONCE.*/\1/p' "$work/s" | wc -l)" = 2 ]; then
		ok "$tag: --suggest says when no ordering can help, with the interleaving"
	else
		not_ok "$tag: --suggest says when no ordering can help, with the interleaving"
		diag < "$work/s"
	fi
	expect "$tag: --suggest ends with one summary line" 0 '^Suggestion: fixed [0-9]+$' \
		"$lkmm" check -I "$model_dir" --suggest --suggest-timeout 0 \
		"$model_dir/litmus-tests/MP+poonceonces.litmus"
	expect "$tag: --suggest-max bounds the search, and the summary says so" 0 \
		'^Suggestion: budget after 2 candidates$' \
		"$lkmm" check -I "$model_dir" --suggest --suggest-max 2 \
		"$model_dir/litmus-tests/ISA2+poonceonces.litmus"
	expect "$tag: --suggest weakens rcu_assign_pointer() to see that it is needed" 0 \
		'rcu_assign_pointer\(\) weakened to WRITE_ONCE\(\): the outcome becomes possible' \
		"$lkmm" check -I "$model_dir" --suggest "$model_dir/litmus-tests/MP+onceassign+derefonce.litmus"
	expect "$tag: --suggest orders a relaxed RMW by its fully ordered form" 0 \
		'^  [0-9]\. \(cost 6: atomic_add_return\(\) 3 \+ atomic_add_return\(\) 3\) atomic_add_return_relaxed\(\) made atomic_add_return\(\) at P0 line 19, atomic_add_return_relaxed\(\) made atomic_add_return\(\) at P1 line 29:$' \
		"$lkmm" check -I "$model_dir" --suggest --suggest-timeout 0 \
		"$top/tests/src/corpus/rmw-tags/litmus/SB+relaxedaddreturn.litmus"
	expect "$tag: for a Never test, --suggest says which orderings it needs" 0 \
		'^  P1 line 24 `r0 = smp_load_acquire\(flag\);`: smp_load_acquire\(\) weakened to READ_ONCE\(\): the outcome becomes possible' \
		"$lkmm" check -I "$model_dir" --suggest "$mp"

	g=$work/graphs-$tag
	mkdir -p "$g"
	"$lkmm" check -I "$model_dir" --graph "$g" $tests > /dev/null 2>&1
	bad=0
	for t in $tests; do
		f=$g/$(basename "$t" .litmus).dot
		[ -f "$f" ] && dot -Tsvg "$f" -o /dev/null 2>/dev/null || { bad=1; echo "$f"; }
	done > "$work/bad"
	if [ "$bad" = 0 ] && [ "$(ls "$g"/*.dot | wc -l)" = "$ntests" ]; then
		ok "$tag: --graph writes one .dot per test and dot parses each"
	else
		not_ok "$tag: --graph writes one .dot per test and dot parses each"
		diag < "$work/bad"
	fi
	if grep -q 'e[0-9]* -> e[0-9]* \[label="1\. release", color=red' "$g/MP+pooncerelease+poacquireonce.dot" &&
	   grep -q 'label="P0 line 15: W\[once\] buf=1\\nWRITE_ONCE(\*buf, 1);"' "$g/MP+pooncerelease+poacquireonce.dot"; then
		ok "$tag: a graph's boxes name the line and the event, the cycle is red"
	else
		not_ok "$tag: a graph's boxes name the line and the event, the cycle is red"
		diag < "$g/MP+pooncerelease+poacquireonce.dot"
	fi

	# --svg: lkmm draws the picture itself, so dot need not be on the PATH.
	s=$work/svgs-$tag
	mkdir -p "$s"
	env PATH=/nonexistent "$lkmm" check -I "$model_dir" --graph "$s" --svg $tests \
		> /dev/null 2> "$work/svg.err"
	if [ "$(ls "$s"/*.svg 2> /dev/null | wc -l)" = "$ntests" ] &&
	   xmllint --noout "$s"/*.svg 2>> "$work/svg.err" && ! [ -s "$work/svg.err" ]; then
		ok "$tag: --svg without dot on the PATH: one well-formed SVG per test, not a word on stderr"
	else
		not_ok "$tag: --svg without dot on the PATH: one well-formed SVG per test, not a word on stderr"
		diag < "$work/svg.err"
	fi
	bad=
	for t in $tests; do
		n=$(basename "$t" .litmus)
		why=$(svg_agrees "$s/$n.dot" "$s/$n.svg" "$t" 2>&1) || bad="$bad$n: $why"$'\n'
	done
	if [ -z "$bad" ]; then
		ok "$tag: each SVG draws its dot graph: a column per process, every event, every edge"
	else
		not_ok "$tag: each SVG draws its dot graph: a column per process, every event, every edge"
		diag <<< "$bad"
	fi
	mkdir -p "$s-j2"
	"$lkmm" check -I "$model_dir" -j 2 --graph "$s-j2" --svg $tests > /dev/null 2>&1
	if diff -r "$s" "$s-j2" > "$work/svg.diff"; then
		ok "$tag: the same graphs, byte for byte, from another run (-j 2)"
	else
		not_ok "$tag: the same graphs, byte for byte, from another run (-j 2)"
		head -20 "$work/svg.diff" | diag
	fi
	f=$s/MP+pooncerelease+poacquireonce.svg
	if [ "$(grep -c '^<path d="M[^"]*" stroke="red" stroke-width="2" marker-end="url(#arrow-red-' "$f")" = 4 ] &&
	   grep -q '^<marker id="arrow-red-[^"]*".*fill="red"' "$f" &&
	   [ "$(grep -o 'fill="red">[^<]*' "$f" | tr '\n' ' ')" = 'fill="red">1. release fill="red">2. rf fill="red">3. acquire fill="red">4. fr ' ] &&
	   grep -q '^<svg xmlns="http://www.w3.org/2000/svg" width="[0-9]*" height="[0-9]*" viewBox="0 0 [0-9]* [0-9]*"' "$f" &&
	   grep -q "^<title>MP+pooncerelease+poacquireonce: a candidate with the outcome, rejected by 'happens-before'</title>$" "$f"; then
		ok "$tag: message passing's SVG: the four steps of the cycle in red, with red arrowheads, in order"
	else
		not_ok "$tag: message passing's SVG: the four steps of the cycle in red, with red arrowheads, in order"
		diag < "$f"
	fi
	# A statement's line with markup, quotes and a byte that is not UTF-8.
	sed 's|^\tWRITE_ONCE(\*buf, 1);$|\tWRITE_ONCE(*buf, 1); /* <b> \& "c" \xff */|' \
		"$model_dir/litmus-tests/MP+poonceonces.litmus" > "$work/MP-markup.litmus"
	"$lkmm" check -I "$model_dir" --graph "$s" --svg "$work/MP-markup.litmus" > /dev/null 2>&1
	if xmllint --noout "$s/MP-markup.svg" &&
	   grep -qF '>WRITE_ONCE(*buf, 1); /* &lt;b&gt; &amp; &quot;c&quot; &#xfffd; */</text>' "$s/MP-markup.svg"; then
		ok "$tag: the SVG's text is escaped for XML, a byte that is not UTF-8 replaced"
	else
		not_ok "$tag: the SVG's text is escaped for XML, a byte that is not UTF-8 replaced"
		grep 'WRITE_ONCE(\*buf' "$s/MP-markup.svg" | diag
	fi

	page=$work/page-$tag.html
	env PATH=/nonexistent "$lkmm" check -I "$model_dir" --html "$page" --suggest $tests > /dev/null 2>&1
	chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$page" > "$work/dom" 2> "$work/chromium.err"
	sections=$(grep -c '^<section id=' "$work/dom")
	svgs=$(grep -c '<svg' "$work/dom")
	if [ "$sections" = "$ntests" ] && [ "$svgs" -ge "$ntests" ] &&
	   grep -q '<pre class="explanation">Explanation:' "$work/dom" &&
	   grep -q '<pre class="suggestion">Suggestion:' "$work/dom" &&
	   ! grep -q 'Uncaught\|SyntaxError' "$work/chromium.err"; then
		ok "$tag: --html: chromium loads the page, a section and a graph for each of the $ntests tests"
	else
		not_ok "$tag: --html: chromium loads the page, a section and a graph for each of the $ntests tests"
		echo "sections $sections, svgs $svgs" | diag
		tail -5 "$work/chromium.err" | diag
	fi
done
