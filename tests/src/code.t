#!/usr/bin/env bash
# lkmm code: kernel functions to a verdict, on the pairs of issue 26, in
# the untouched 6.12 tree (a data race) and with the series applied (none);
# its fix as a kernel diff that patch -p1 applies; and bad input.  Each
# binary of $LKMM_BINARIES runs the lkmm-code beside it (the ASan+UBSan
# one under build/asan/).
source "$(dirname "$0")/../lib/tap.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Under ASan+UBSan a libclang parse takes seconds: the sanitized binary
# runs the cases marked `all` only with the first binary left out.
set -- $LKMM_BINARIES
plan $(( 36 + ($# - 1) * 12 ))

"$top/kernel/scripts/code-trees.sh" > "$work/trees.log" 2>&1 || { diag < "$work/trees.log"; exit 1; }
before=$top/build/kernel/pristine
after=$top/build/kernel/src

# verdict NAME TREE WANT TASK...: a data race (WANT race) or none (WANT clean), exit 0.
verdict() {
	local name=$1 tree=$2 want=$3 out status
	shift 3
	out=$("$lkmm" code --tree "$tree" "$@" 2>&1)
	status=$?
	if [ "$status" -ne 0 ]; then
		not_ok "$name (status $status)"
		diag <<< "$out"
	elif [ "$want" = race ] && grep -q '^Flag data-race$' <<< "$out"; then
		ok "$name"
	elif [ "$want" = clean ] && ! grep -q '^Flag data-race$' <<< "$out" &&
	     grep -qE '^Observation .* Never ' <<< "$out"; then
		ok "$name"
	else
		not_ok "$name (wanted $want)"
		diag <<< "$out"
	fi
}

first=yes
for lkmm in $LKMM_BINARIES; do
	tag=$(basename "$(dirname "$lkmm")")
	# all: every case; else the direct-I/O pair, tty_audit, the fix and bad input
	all=$first
	first=
	dio=(fs/super.c:sb_init_dio_done_wq fs/direct-io.c:dio_set_defer_completion+dio_bio_end_aio)
	# With the series the workqueue is published by call_once()'s
	# callback, which lkmm code reads directly (call_once()'s slow path
	# is out of line, not modelled).
	publish=fs/super.c:sb_alloc_dio_done_wq
	verdict "$tag: s_dio_done_wq, direct-io reader, 6.12: data race" "$before" race "${dio[@]}"
	verdict "$tag: ... with the series: none, and never an uninitialized workqueue" "$after" clean \
		"$publish" "${dio[1]}"
	expect "$tag: ... a workqueue published and dereferenced, not nothing shared" 0 \
		'^exists \(\(1:r1=new_workqueue_struct /\\ 1:r2=0\)\)' \
		"$lkmm" code --tree "$after" "$publish" "${dio[1]}"
	if [ -n "$all" ]; then
		verdict "$tag: --distinct super_block: each task its own, nothing shared" "$before" clean \
			--distinct super_block "${dio[@]}"
		iomap=(fs/super.c:sb_init_dio_done_wq fs/iomap/direct-io.c:iomap_dio_done)
		verdict "$tag: s_dio_done_wq, iomap reader, 6.12: data race" "$before" race "${iomap[@]}"
		verdict "$tag: ... with the series: none" "$after" clean "$publish" "${iomap[1]}"
		backing=(fs/super.c:sb_init_dio_done_wq fs/backing-file.c:backing_aio_init_wq+backing_aio_queue_completion)
		verdict "$tag: s_dio_done_wq, backing-file reader, 6.12: data race" "$before" race "${backing[@]}"
		verdict "$tag: ... with the series: none" "$after" clean "$publish" "${backing[1]}"
		verdict "$tag: sio_pool_init() twice, 6.12: data race" "$before" race mm/page_io.c:sio_pool_init mm/page_io.c:sio_pool_init
		verdict "$tag: ... with the series: none" "$after" clean mm/page_io.c:sio_pool_init mm/page_io.c:sio_pool_init
	fi

	tty=(drivers/tty/tty_audit.c:tty_audit_buf_get drivers/tty/tty_audit.c:tty_audit_buf_get)
	verdict "$tag: tty_audit_buf_get() twice, 6.12: data race" "$before" race "${tty[@]}"
	if [ -n "$all" ]; then
		verdict "$tag: ... with the series: none, and never an uninitialized buffer" "$after" clean "${tty[@]}"
		# A correct pattern elsewhere in the tree: acquire, then a release under the lock.
		verdict "$tag: taskstats_tgid_alloc() twice (release under a lock, acquire outside): clean" "$before" clean \
			kernel/taskstats.c:taskstats_tgid_alloc kernel/taskstats.c:taskstats_tgid_alloc

		expect "$tag: ... and it asks whether a task sees the other's stats uninitialized" 0 \
			'^exists \(\(0:stats=new_taskstats_1 /\\ 0:r0=0\) \\/ \(1:stats=new_taskstats /\\ 1:r0=0\)\)' \
			"$lkmm" code --tree "$before" kernel/taskstats.c:taskstats_tgid_alloc kernel/taskstats.c:taskstats_tgid_alloc

		# A lock the task's caller holds, known from the task's assertion
		# (__anon_vma_prepare(): mmap_assert_locked(); mm_take_all_locks():
		# mmap_assert_write_locked()): held across the task.
		anon=(mm/rmap.c:__anon_vma_prepare mm/vma.c:2069)
		verdict "$tag: vma->anon_vma under the caller's mmap_lock, as both assert: clean" "$before" clean "${anon[@]}"
		"$lkmm" code --tree "$before" "${anon[@]}" > "$work/anon" 2>&1
		expect "$tag: ... the header names the lock a caller holds" 0 \
			'^ \* include/linux/mmap_lock.h:[0-9]+ mm_struct.mmap_lock, its read side \(P0\)$' cat "$work/anon"
		expect "$tag: ... and a BUG_ON()'s condition is taken as false" 0 \
			'^ \* mm/rmap.c:[0-9]+ `VM_BUG_ON\(atomic_read\(&anon_vma->refcount\)\);` taken as false \(the other side does not return\)$' \
			cat "$work/anon"
		expect "$tag: two tasks on an rwsem's read side do not exclude each other" 0 \
			'^ \* include/linux/mmap_lock.h:[0-9]+ mm_struct__mmap_lock held by a caller: a read side, as another task.s, left out' \
			"$lkmm" code --tree "$before" mm/rmap.c:__anon_vma_prepare mm/rmap.c:__anon_vma_prepare
		# Under allyesconfig, code the x86 defconfig leaves out (CONFIG_MPTCP).
		verdict "$tag: net->mib.mptcp_statistics, a file of an option defconfig leaves out: data race" \
			"$before" race net/mptcp/mib.c:mptcp_mib_alloc net/mptcp/mib.c:121

		# Files as Kbuild builds them: with their directory's flags (mlx5's
		# Makefile gives -I$(src) to the files below it), or inside the file
		# that includes them (kernel/sched/psi.c, in build_utility.c).
		mlx5=drivers/net/ethernet/mellanox/mlx5/core/en_accel/ipsec_offload.c:102
		expect "$tag: a file that needs its directory's Kbuild -I parses" 0 \
			'^Observation mlx5e_ipsec_packet_setup ' "$lkmm" code --tree "$before" "$mlx5" "$mlx5"
		expect "$tag: a file built inside another (psi.c in build_utility.c) parses" 0 \
			'^Observation psi_write ' "$lkmm" code --tree "$before" kernel/sched/psi.c:1608 kernel/sched/psi.c:1608
		# try_cmpxchg() as the kernel defines it: cmpxchg(), then old = what it read.
		llist=(lib/llist.c:llist_add_batch lib/llist.c:llist_del_first)
		verdict "$tag: llist_add_batch() against llist_del_first() (try_cmpxchg()): clean" "$before" clean "${llist[@]}"
		expect "$tag: ... try_cmpxchg() is the model's cmpxchg() on the local it updates" 0 \
			'^	r0 = cmpxchg\(llist_head__first, first, 1\); /\* lib/llist.c:33 \*/$' \
			"$lkmm" code --tree "$before" "${llist[@]}"

		expect "$tag: a limit is a flag: -max-traces 1 stops with exit 3 and says which" 3 \
			'has more than 1 runs \(raise -max-traces\)' "$lkmm" code --tree "$before" -max-traces 1 "${dio[@]}"

		# The test says where each statement comes from.
		expect "$tag: every access of the test names its kernel line" 0 \
			'(old|r0) = cmpxchg\(super_block__s_dio_done_wq, 0, new_workqueue_struct\); /\* fs/super.c:2252 \*/' \
			"$lkmm" code --tree "$before" "${dio[@]}"
	fi

	# The fix of the data race, as a diff of fs/direct-io.c that applies.
	"$lkmm" code --tree "$before" --suggest --suggest-timeout 0 "${dio[@]}" > "$work/out" 2>&1
	expect "$tag: --suggest marks the racing load in the kernel's own text" 0 \
		'^    \+	if \(!READ_ONCE\(sb->s_dio_done_wq\)\)$' cat "$work/out"
	sed -n '/^    --- a\//,/^  [^ ]/p' "$work/out" | grep '^    ' | sed 's/^    //' > "$work/k.diff"
	if [ -s "$work/k.diff" ] && (cd "$before" && patch -p1 --dry-run -s < "$work/k.diff") > "$work/p" 2>&1; then
		ok "$tag: ... and the kernel diff applies with patch -p1 in the tree"
	else
		not_ok "$tag: ... and the kernel diff applies with patch -p1 in the tree"
		diag < "$work/k.diff"; diag < "$work/p"
	fi
	expect "$tag: ... and forbids the uninitialized workqueue with an acquire on the completion path" 0 \
		'^    \+			queue_work\(smp_load_acquire\(&dio->inode->i_sb->s_dio_done_wq\),$' cat "$work/out"
	if [ -n "$all" ]; then
		expect "$tag: FILE:LINE names the function around the line" 0 \
			'^C sb_init_dio_done_wq\+dio_set_defer_completion\+dio_bio_end_aio$' \
			"$lkmm" code --tree "$before" fs/super.c:2252 fs/direct-io.c:575+365
		"$lkmm" code --tree "$before" --explain --html "$work/page.html" "${dio[@]}" > /dev/null 2>&1
		expect "$tag: --html: the page tells it in the kernel's lines, with the graph" 0 \
			'^both$' bash -c "grep -qF 'fs/direct-io.c:575 \`if (!sb-&gt;s_dio_done_wq)\`' '$work/page.html' &&
				grep -q '<svg' '$work/page.html' && echo both"
		expect "$tag: ... the explanation in the kernel's lines" 0 \
			'P1 fs/direct-io.c:575 `if \(!sb->s_dio_done_wq\)`' \
			"$lkmm" code --tree "$before" --explain "${dio[@]}"
	fi

	# Bad input: a clear error naming the file, exit 2.
	expect "$tag: an unknown function: exit 2, the candidates named" 2 \
		'^fs/super.c: error: no function sb_init_dio_wq\(\) defined in it .*did you mean: .*sb_init_dio_done_wq' \
		"$lkmm" code --tree "$before" fs/super.c:sb_init_dio_wq fs/super.c:sb_init_dio_wq
	expect "$tag: an unknown file: exit 2, the candidates named" 2 \
		'^fs/supr.c: error: no such file .*did you mean: fs/super.c\?$' \
		"$lkmm" code --tree "$before" fs/supr.c:f fs/supr.c:f
	expect "$tag: a file that does not compile here (arm64's): exit 2 at its line" 2 \
		'^[^ ]+:[0-9]+:[0-9]+: error: arch/arm64/kernel/smp.c does not compile' \
		"$lkmm" code --tree "$before" arch/arm64/kernel/smp.c:smp_send_stop arch/arm64/kernel/smp.c:smp_send_stop
	expect "$tag: --config takes a Kbuild config target, nothing else: exit 2" 2 \
		'^lkmm code: error: --config takes a Kbuild config target .*, not -j9$' \
		"$lkmm" code --tree "$before" --config -j9 fs/super.c:sb_init_dio_done_wq
	expect "$tag: a construct it cannot model (a switch on a loaded value): exit 2 at its line" 2 \
		'^drivers/firmware/qcom/qcom_scm.c:[0-9]+:[0-9]+: error: switch on a value the test loads is not modelled$' \
		"$lkmm" code --tree "$before" drivers/firmware/qcom/qcom_scm.c:2077 drivers/firmware/qcom/qcom_scm.c:278
done
