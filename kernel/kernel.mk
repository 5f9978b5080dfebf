# Kernel half of the build, included from the top-level Makefile.
#
#   make kernel-check        build the patched kernel, boot it in QEMU (2
#                            vCPUs), run KUnit, the direct-I/O stress and
#                            dio-race (one dio workqueue per fresh
#                            superblock), fail on any KUnit failure, any
#                            dio-race loser or KCSAN / lockdep /
#                            WARN / BUG / Oops in the console; then the
#                            same on the production-like config (-O2, no
#                            checkers: kernel/config/prod.config)
#   make kernel-unit-check   fast tests of the harness itself (no kernel)
#   make kernel-before-after the same stress, harder KCSAN settings, on the
#                            unpatched and the patched tree (docs/kernel-before-after.md)
#   make kernel-build-each   build after each patch in turn: each must build
#                            without warnings (docs/kernel-series.md)
#   make kernel-sparse       sparse on what the series changes, before and
#                            after it: no new warning (docs/kernel-series.md)
#   make kernel-bench        on the production-like config: async O_DIRECT
#                            writes/s before and after the series
#                            (docs/kernel-series.md)
#   make kernel-dio-race     not in make check: how many workqueues racing
#                            first async O_DIRECT writes make
#                            sb_init_dio_done_wq() create and destroy per
#                            fresh superblock, before and after the series
#                            (kernel/scripts/dio-race.sh,
#                            docs/kernel-series.md)
#   make kernel-submissions  the separate submissions, as their sender would
#                            post them, under build/submissions/NAME/
#   make cocci-sweep         the project's Coccinelle rule for open-coded one-time
#                            init over the whole unpatched tree (docs/coccinelle.md);
#                            with CODE=1, then lkmm code on each report
#                            (kernel/scripts/code-sweep.sh, docs/code.md)
#
# Everything large goes to build/kernel/ (ignored); see docs/kernel.md.

KERNEL_SCRIPTS := kernel/scripts

.PHONY: kernel-check kernel-unit-check kernel-before-after kernel-build-each kernel-sparse kernel-bench kernel-submissions \
	kernel-dio-race \
	cocci-sweep

kernel-check:
	$(KERNEL_SCRIPTS)/kernel-check.sh
	$(KERNEL_SCRIPTS)/kernel-check.sh --prod

kernel-unit-check:
	prove --exec bash tests/kernel/

kernel-before-after:
	$(KERNEL_SCRIPTS)/before-after.sh

kernel-build-each:
	$(KERNEL_SCRIPTS)/build-each.sh

kernel-sparse:
	$(KERNEL_SCRIPTS)/sparse.sh

kernel-bench:
	$(KERNEL_SCRIPTS)/bench-prod.sh

kernel-dio-race:
	$(KERNEL_SCRIPTS)/dio-race.sh

cocci-sweep:
	$(KERNEL_SCRIPTS)/cocci-sweep.sh
	$(if $(CODE),$(MAKE) all && $(KERNEL_SCRIPTS)/code-sweep.sh)

# The submissions, one folder each under build/submissions/, signed by
# whoever runs this (git config user.name/user.email) and addressed by
# the tree's get_maintainer.pl (docs/kernel-series.md).
kernel-submissions:
	$(KERNEL_SCRIPTS)/submissions.sh
