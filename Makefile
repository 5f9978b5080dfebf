# Top-level build: the lkmm checker (src/), its tests (tests/), and the
# kernel half (kernel/kernel.mk).  `make check` runs every test layer.
.DEFAULT_GOAL := all
-include kernel/kernel.mk
