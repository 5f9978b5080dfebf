# Top-level build: the lkmm checker (src/), its tests (tests/), and the
# kernel half (kernel/kernel.mk).  `make check` runs every test layer.
.DEFAULT_GOAL := all

CC ?= gcc
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -Wall -Wextra -Werror -D_XOPEN_SOURCE=700 -pthread
SANITIZE := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

SRCS := $(wildcard src/*.c)
OBJS := $(SRCS:src/%.c=build/obj/%.o)
ASAN_OBJS := $(SRCS:src/%.c=build/asan/%.o)

include src/model/lib.mk

# The runtime every `lkmm run` module includes (kernel C, kept with the
# kernel half), built into the binary as the string lkmm_runtime_h.
RUNTIME_H := kernel/litmus/lkmm-runtime.h
RUNTIME_C := build/runtime.c
RUNTIME_OBJ := build/runtime.o
$(RUNTIME_C): $(RUNTIME_H)
	@mkdir -p $(@D)
	@{ echo '/* Generated from $(RUNTIME_H) by the Makefile. */'; \
	  echo 'const char lkmm_runtime_h[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$$/\\n"/' $<; \
	  echo ';'; } > $@.tmp && mv $@.tmp $@
$(RUNTIME_OBJ): $(RUNTIME_C)
	$(CC) $(CFLAGS) -c $< -o $@

all: bin/lkmm bin/herd7

# The build ID is the binary's identity for the model cache (modelcache.c):
# without one, lkmm uses no cache.
LINK_ID := -Wl,--build-id
# Linked statically (position-independent, so still at random addresses):
# a process starts without the dynamic loader's work, which is most of an
# lkmm check's start-up once the model comes from the cache.  lkmm calls
# nothing of glibc's that needs shared objects (NSS, dlopen, iconv).
# LINK_STATIC= links against libc.so.
LINK_STATIC ?= -static-pie

bin/lkmm: $(OBJS) $(CATLIB_OBJ) $(RUNTIME_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LINK_STATIC) $(LINK_ID) -o $@ $^

# Invoked as herd7, lkmm behaves as `lkmm check`, for the kernel's scripts.
bin/herd7: bin/lkmm
	ln -sf lkmm $@

build/obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

build/asan/lkmm: $(ASAN_OBJS) $(CATLIB_OBJ) $(RUNTIME_OBJ)
	$(CC) $(CFLAGS) $(SANITIZE) $(LINK_ID) -o $@ $^

build/asan/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANITIZE) -MMD -MP -c -o $@ $<

include tests/src/cat.mk

# The cat unit tests again under ASan+UBSan.
CAT_TEST_ASAN := build/tests/cat_test-asan
$(CAT_TEST_ASAN): $(CAT_TEST_SRCS) $(CATLIB_C) $(wildcard src/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANITIZE) -Isrc -o $@ $(CAT_TEST_SRCS) $(CATLIB_C) -lcmocka

# The library entry's unit tests (lkmm.h), linked with everything but
# main.c, plain and under ASan+UBSan.
LKMM_TEST := build/tests/lkmm_test
LKMM_TEST_ASAN := build/tests/lkmm_test-asan
$(LKMM_TEST): tests/src/lkmm_test.c $(filter-out build/obj/main.o,$(OBJS)) $(CATLIB_OBJ) $(RUNTIME_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LINK_ID) -Isrc -o $@ $^ -lcmocka
$(LKMM_TEST_ASAN): tests/src/lkmm_test.c $(filter-out build/asan/main.o,$(ASAN_OBJS)) $(CATLIB_OBJ) $(RUNTIME_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANITIZE) $(LINK_ID) -Isrc -o $@ $^ -lcmocka

-include $(OBJS:.o=.d) $(ASAN_OBJS:.o=.d)
-include kernel/kernel.mk

# The README's two commands.  Each first runs the setup step, which
# installs what is missing and unpacks the model (fast when all is there).
DEMO_TEST := build/kernel-model/tools/memory-model/litmus-tests/MP+pooncerelease+poacquireonce.litmus

demo:
	scripts/setup.sh checker
	$(MAKE) all
	bin/lkmm check --explain --suggest $(DEMO_TEST)

check:
	scripts/setup.sh all
	$(MAKE) all build/asan/lkmm $(CAT_TEST) $(CAT_TEST_ASAN) $(LKMM_TEST) $(LKMM_TEST_ASAN)
	LKMM_CACHE_DIR=$(CURDIR)/build/test-cache CMOCKA_MESSAGE_OUTPUT=TAP \
		prove --exec '' tests/src/*.t tests/litmus/*.t $(CAT_TEST) $(CAT_TEST_ASAN) \
		$(LKMM_TEST) $(LKMM_TEST_ASAN) tests/kernel/*.t

# The parser's fuzz target (libFuzzer, ASan+UBSan), seeded with every
# litmus test at hand; FUZZ_SECONDS bounds the run (default 600).
FUZZ := build/fuzz/fuzz_parse
FUZZ_DEF := build/kernel-model/tools/memory-model/linux-kernel.def
$(FUZZ): tests/src/fuzz_parse.c src/parse.c src/expand.c src/util.c src/litmus.h src/util.h
	scripts/setup.sh fuzz
	@mkdir -p $(@D)
	clang -std=c11 -g -O1 -Wall -Wextra -Werror -D_XOPEN_SOURCE=700 -Isrc \
		-DFUZZ_MACROS='"$(CURDIR)/$(FUZZ_DEF)"' \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ tests/src/fuzz_parse.c src/parse.c src/expand.c src/util.c

fuzz: $(FUZZ)
	rm -rf build/fuzz/corpus && mkdir -p build/fuzz/corpus
	cp $$(find build/kernel-model tests/src -name '*.litmus') build/fuzz/corpus/
	tests/src/gen-big-init.sh 20000 > build/fuzz/corpus/big-init.litmus
	$(FUZZ) -max_total_time=$${FUZZ_SECONDS:-600} -timeout=10 -rss_limit_mb=2048 \
		-close_fd_mask=2 -dict=tests/src/fuzz.dict build/fuzz/corpus

# The random LKMM test generator (deterministic from a seed), and the sweep
# that compares lkmm with herd7 (HERD7=/path/to/herd7) on N of its tests.
build/randlitmus: tests/src/randlitmus.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

N ?= 1000
SEED ?= 1
fidelity-sweep: all build/randlitmus
	scripts/setup.sh checker
	scripts/fidelity-sweep.sh $(N) $(SEED)

# Every C test of paulmckrcu/litmus (PAULMCK_LITMUS=a checkout of it),
# by hand: its results are recorded in docs/paulmck-sweep.md.
paulmck-sweep: all
	scripts/setup.sh checker
	scripts/paulmck-sweep.sh

# Times lkmm (and herd7, when HERD7=/path/to/herd7 is given) on the corpus.
bench: all
	scripts/bench.sh

.PHONY: all clean demo check bench fuzz fidelity-sweep paulmck-sweep
clean:
	rm -rf bin build/obj build/asan build/tests build/fuzz build/randlitmus build/sweep build/catlib.* build/runtime.* \
		build/test-cache build/bench-cache build/paulmck-sweep
