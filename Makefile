# Top-level build: the lkmm checker (src/), its tests (tests/), and the
# kernel half (kernel/kernel.mk).  `make check` runs every test layer.
.DEFAULT_GOAL := all

CC ?= gcc
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -Wall -Wextra -Werror -D_XOPEN_SOURCE=700
SANITIZE := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

SRCS := $(wildcard src/*.c)
OBJS := $(SRCS:src/%.c=build/obj/%.o)
ASAN_OBJS := $(SRCS:src/%.c=build/asan/%.o)

include src/model/lib.mk

all: bin/lkmm bin/herd7

bin/lkmm: $(OBJS) $(CATLIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^

# Invoked as herd7, lkmm behaves as `lkmm check`, for the kernel's scripts.
bin/herd7: bin/lkmm
	ln -sf lkmm $@

build/obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

build/asan/lkmm: $(ASAN_OBJS) $(CATLIB_OBJ)
	$(CC) $(CFLAGS) $(SANITIZE) -o $@ $^

build/asan/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SANITIZE) -MMD -MP -c -o $@ $<

-include $(OBJS:.o=.d) $(ASAN_OBJS:.o=.d)
-include kernel/kernel.mk

.PHONY: all clean
clean:
	rm -rf bin build/obj build/asan
