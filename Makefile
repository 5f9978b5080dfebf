# Top-level build: the lkmm checker (src/), its tests (tests/), and the
# kernel half (kernel/kernel.mk).  `make check` runs every test layer.
.DEFAULT_GOAL := all

CC ?= gcc
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -Wall -Wextra -Werror -D_XOPEN_SOURCE=700 -pthread -Iinclude -Isrc
SANITIZE := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# One folder per layer (docs/hacking.md); `lkmm run` (src/kernel-run/),
# the command line (src/cli/), `lkmm code` (src/code/) and the web
# playground (src/web/) are programs on top of the library, the rest.
PROGRAM_DIRS := src/kernel-run/% src/cli/% src/code/% src/web/%
LIB_SRCS := $(filter-out $(PROGRAM_DIRS),$(wildcard src/*/*.c))
LIB_OBJS := $(LIB_SRCS:src/%.c=build/obj/%.o)
LIB_ASAN_OBJS := $(LIB_SRCS:src/%.c=build/asan/%.o)
SRCS := $(LIB_SRCS) $(wildcard src/kernel-run/*.c src/cli/*.c)
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

# The playground's C (src/web/) is built natively too, for its warnings
# and tests/src/layers.t; `make web` builds the page.
WEB_NATIVE_OBJS := $(patsubst src/%.c,build/obj/%.o,$(wildcard src/web/*.c))
all: bin/lkmm bin/herd7 bin/lkmm-code build/liblkmm.a $(WEB_NATIVE_OBJS)

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

# `lkmm code` (src/code/) reads kernel C through libclang: a binary of its
# own, linked dynamically with libclang, so that lkmm itself keeps to libc.
# `lkmm code` runs it from beside itself.
# Debian 12's libclang-dev (clang 14).
LLVM_DIR ?= /usr/lib/llvm-14
CODE_SRCS := $(wildcard src/code/*.c)
CODE_OBJS := $(CODE_SRCS:src/%.c=build/obj/%.o)
CODE_CFLAGS = -I$(LLVM_DIR)/include
CODE_LIBS = -L$(LLVM_DIR)/lib -lclang -Wl,-rpath,$(LLVM_DIR)/lib
bin/lkmm-code: $(CODE_OBJS) build/obj/cli/files.o build/obj/cli/model.o $(LIB_OBJS) $(CATLIB_OBJ) $(RUNTIME_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LINK_ID) -o $@ $^ $(CODE_LIBS)
build/obj/code/%.o: src/code/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CODE_CFLAGS) -MMD -MP -c -o $@ $<
# The same under ASan+UBSan, for tests/src/code.t.
CODE_ASAN_OBJS := $(CODE_SRCS:src/%.c=build/asan/%.o)
build/asan/lkmm-code: $(CODE_ASAN_OBJS) build/asan/cli/files.o build/asan/cli/model.o $(LIB_ASAN_OBJS) $(CATLIB_OBJ) $(RUNTIME_OBJ)
	$(CC) $(CFLAGS) $(SANITIZE) $(LINK_ID) -o $@ $^ $(CODE_LIBS)
build/asan/code/%.o: src/code/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANITIZE) $(CODE_CFLAGS) -MMD -MP -c -o $@ $<

# The library (include/lkmm.h): every layer below the programs in one
# relocatable object, in which only the names the header declares stay
# global, so that a program linking it meets none of our internal names.
build/liblkmm.a: $(LIB_OBJS) $(CATLIB_OBJ) $(RUNTIME_OBJ) include/lkmm.h
	sed -n 's/^[a-z].*[ *]\(lkmm_[a-z_]*\)(.*/\1/p' include/lkmm.h > build/liblkmm.syms
	ld -r -o build/liblkmm.o $(LIB_OBJS) $(CATLIB_OBJ) $(RUNTIME_OBJ)
	objcopy --keep-global-symbols=build/liblkmm.syms build/liblkmm.o
	rm -f $@ && ar rcs $@ build/liblkmm.o

# `make install PREFIX=DIR`: the programs, the header and the library, the
# man page, the kernel's model (found beside the installed binary) and
# the kernel half that `lkmm run` drives (its builds go to the user's cache).
PREFIX ?= /usr/local
MODEL_FILES := $(wildcard build/kernel-model/tools/memory-model/*.cfg \
	build/kernel-model/tools/memory-model/*.def build/kernel-model/tools/memory-model/*.bell \
	build/kernel-model/tools/memory-model/*.cat)
install: all build/liblkmm.a
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/lkmm/model
	install -m 755 bin/lkmm bin/lkmm-code $(DESTDIR)$(PREFIX)/bin/
	install -m 644 include/lkmm.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 build/liblkmm.a $(DESTDIR)$(PREFIX)/lib/
	install -m 644 docs/lkmm.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(MODEL_FILES) $(DESTDIR)$(PREFIX)/share/lkmm/model/
	rm -rf $(DESTDIR)$(PREFIX)/share/lkmm/kernel
	cp -R kernel $(DESTDIR)$(PREFIX)/share/lkmm/kernel

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
$(CAT_TEST_ASAN): $(CAT_TEST_SRCS) $(CATLIB_C) $(wildcard src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANITIZE) -o $@ $(CAT_TEST_SRCS) $(CATLIB_C) -lcmocka

# The library entry's unit tests (lkmm.h), linked with everything but
# main.c, plain and under ASan+UBSan.
LKMM_TEST := build/tests/lkmm_test
LKMM_TEST_ASAN := build/tests/lkmm_test-asan
$(LKMM_TEST): tests/src/lkmm_test.c $(wildcard src/*/*.h include/*.h) $(LIB_OBJS) $(CATLIB_OBJ) $(RUNTIME_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LINK_ID) -o $@ $(filter-out %.h,$^) -lcmocka
$(LKMM_TEST_ASAN): tests/src/lkmm_test.c $(wildcard src/*/*.h include/*.h) $(LIB_ASAN_OBJS) $(CATLIB_OBJ) $(RUNTIME_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANITIZE) $(LINK_ID) -o $@ $(filter-out %.h,$^) -lcmocka

-include $(OBJS:.o=.d) $(WEB_NATIVE_OBJS:.o=.d) $(ASAN_OBJS:.o=.d) $(CODE_OBJS:.o=.d) $(CODE_ASAN_OBJS:.o=.d)
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
	$(MAKE) all build/asan/lkmm build/asan/lkmm-code $(CAT_TEST) $(CAT_TEST_ASAN) $(LKMM_TEST) $(LKMM_TEST_ASAN) $(FUZZ_BINS) \
		$(WEB_CHECK)
	LKMM_CACHE_DIR=$(CURDIR)/build/test-cache CMOCKA_MESSAGE_OUTPUT=TAP \
		prove --exec '' tests/src/*.t tests/litmus/*.t $(CAT_TEST) $(CAT_TEST_ASAN) \
		$(LKMM_TEST) $(LKMM_TEST_ASAN) tests/kernel/*.t tests/web/*.t

# The web playground (docs/web.md): the library and src/web/playground.c
# built by emscripten into WebAssembly, the model's files embedded, and the
# page of web/ around it, one self-contained build/web/index.html.
# Debian's emcc runs its JS tools with node, which must find Debian's
# acorn (/usr/share/nodejs) even when node is not Debian's.
EMCC ?= emcc
EMCC_ENV := NODE_PATH=/usr/share/nodejs$${NODE_PATH:+:$$NODE_PATH}
WEB_CFLAGS := -O2 -std=c11 -Wall -Wextra -Werror -D_XOPEN_SOURCE=700 -Iinclude -Isrc
WEB_SRCS := $(LIB_SRCS) $(wildcard src/web/*.c)
WEB_OBJS := $(WEB_SRCS:src/%.c=build/web-obj/%.o) build/web-obj/catlib.o build/web-obj/runtime.o
WEB_MODEL := build/kernel-model/tools/memory-model
WEB_MODEL_FILES := linux-kernel.cfg linux-kernel.def linux-kernel.bell linux-kernel.cat lock.cat
WEB_LDFLAGS := -O2 -sMODULARIZE=1 -sEXPORT_NAME=createLkmm -sENVIRONMENT=web,worker \
	-sSINGLE_FILE=1 -sALLOW_MEMORY_GROWTH=1 -sFILESYSTEM=1 -sEXIT_RUNTIME=0 \
	-sEXPORTED_FUNCTIONS=_lkmm_playground_open,_lkmm_playground_check \
	-sEXPORTED_RUNTIME_METHODS=ccall,cwrap \
	$(foreach f,$(WEB_MODEL_FILES),--embed-file $(WEB_MODEL)/$(f)@/model/$(f))

web: build/web/index.html
# What `make check` builds of it: the page, when emcc is there (else
# tests/web/web.t says it skips).
WEB_CHECK := $(if $(shell command -v $(EMCC) 2>/dev/null),web)

build/web-obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(EMCC_ENV) $(EMCC) $(WEB_CFLAGS) -MMD -MP -c -o $@ $<
build/web-obj/%.o: build/%.c
	@mkdir -p $(@D)
	$(EMCC_ENV) $(EMCC) $(WEB_CFLAGS) -c -o $@ $<
build/web-obj/lkmm.js: $(WEB_OBJS) $(addprefix $(WEB_MODEL)/,$(WEB_MODEL_FILES))
	$(EMCC_ENV) $(EMCC) $(WEB_LDFLAGS) -o $@ $(WEB_OBJS)
$(WEB_MODEL)/%:
	scripts/setup.sh checker
# The page: web/'s template with its script, style, the engine and the
# tests (the kernel's and the one-time-init tests of kernel/patches/).
build/web/index.html: web/index.html web/app.js web/style.css web/build.mjs web/litmus-files.mjs build/web-obj/lkmm.js \
		$(wildcard kernel/patches/*/*.patch)
	@mkdir -p $(@D)
	node web/build.mjs build/web-obj/lkmm.js build/kernel-model $@

-include $(WEB_OBJS:.o=.d)

# The fuzz targets (libFuzzer, ASan+UBSan): tests/src/fuzz_NAME.c, each
# linked with the checker (all of src/ but main.c) built by clang.  `make
# fuzz` runs each for FUZZ_SECONDS (default 600) on its seeds: the ones
# committed in tests/src/fuzz/NAME/ and those tests/src/fuzz-seeds.sh
# makes from the kernel's model (never copied into the repository).
FUZZ_TARGETS := parse cat check cache log module
FUZZ_BINS := $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)
FUZZ_SANITIZE := address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -g -O1 -Wall -Wextra -Werror -D_XOPEN_SOURCE=700 -pthread -Iinclude -Isrc \
	-DFUZZ_MODEL_DIR='"$(CURDIR)/build/kernel-model/tools/memory-model"' \
	-DFUZZ_TESTS_DIR='"$(CURDIR)/tests/src"'
FUZZ_OBJS := $(LIB_SRCS:src/%.c=build/fuzz/obj/%.o) build/fuzz/obj/kernel-run/run.o \
	build/fuzz/obj/catlib.o build/fuzz/obj/runtime.o build/fuzz/obj/fuzz_util.o

build/fuzz/.clang:
	scripts/setup.sh fuzz
	@mkdir -p $(@D) && touch $@

build/fuzz/obj/%.o: src/%.c build/fuzz/.clang
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SANITIZE) -MMD -MP -c -o $@ $<
build/fuzz/obj/%.o: build/%.c build/fuzz/.clang
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SANITIZE) -c -o $@ $<
build/fuzz/obj/fuzz_util.o: tests/src/fuzz_util.c tests/src/fuzz.h $(wildcard src/*/*.h include/*.h) build/fuzz/.clang
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SANITIZE) -c -o $@ $<

# Linked with a build ID: the model cache needs one (modelcache.c).
build/fuzz/fuzz_%: tests/src/fuzz_%.c tests/src/fuzz.h $(wildcard src/*/*.h include/*.h) $(FUZZ_OBJS)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer,$(FUZZ_SANITIZE) -Wl,--build-id -o $@ $< $(FUZZ_OBJS)

.SECONDARY: $(FUZZ_OBJS)
-include $(wildcard build/fuzz/obj/*/*.d)

# The litmus targets get the parser's dictionary.
fuzz: $(FUZZ_BINS)
	tests/src/fuzz-seeds.sh build/fuzz/seeds kernel
	for t in $(FUZZ_TARGETS); do \
		case $$t in parse|check|module) dict=-dict=$(CURDIR)/tests/src/fuzz.dict ;; *) dict= ;; esac; \
		mkdir -p build/fuzz/corpus/$$t && \
		(cd build/fuzz && ./fuzz_$$t -max_total_time=$${FUZZ_SECONDS:-600} -timeout=10 \
			-rss_limit_mb=2048 -close_fd_mask=3 $$dict corpus/$$t seeds/$$t) || exit 1; \
	done

# The random LKMM test generator (deterministic from a seed), and the sweep
# that compares lkmm with herd7 (HERD7=/path/to/herd7) on N of its tests
# (VALUES=1: every constant stored is 1, so equal stores are frequent).
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
bench: all build/randlitmus
	scripts/bench.sh

.PHONY: all clean demo check bench fuzz fidelity-sweep paulmck-sweep install web
clean:
	rm -rf bin build/obj build/asan build/tests build/fuzz build/randlitmus build/sweep build/catlib.* build/runtime.* \
		build/test-cache build/bench-cache build/paulmck-sweep build/web build/web-obj
