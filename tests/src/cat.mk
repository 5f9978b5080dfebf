# cat.mk - unit tests of the cat interpreter (tests/src/cat_test.c).
# Needs src/model/lib.mk included first (for $(CATLIB_C)).
#   make check-cat   runs them, printing TAP.

CAT_TEST := build/tests/cat_test
CAT_TEST_SRCS := tests/src/cat_test.c src/bits.c src/util.c src/catparse.c \
	src/catresolve.c src/cateval.c src/catprim.c src/catmono.c \
	src/catlevel.c

$(CAT_TEST): $(CAT_TEST_SRCS) $(CATLIB_C) $(wildcard src/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Isrc -o $@ $(CAT_TEST_SRCS) $(CATLIB_C) -lcmocka

.PHONY: check-cat
check-cat: $(CAT_TEST)
	CMOCKA_MESSAGE_OUTPUT=TAP $(CAT_TEST)
