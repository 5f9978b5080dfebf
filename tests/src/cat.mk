# cat.mk - unit tests of the cat interpreter (tests/src/cat_test.c).
# Needs src/model/lib.mk included first (for $(CATLIB_C)).
#   make check-cat   runs them, printing TAP.

CAT_TEST := build/tests/cat_test
CAT_TEST_SRCS := tests/src/cat_test.c src/base/bits.c src/base/util.c src/model/catparse.c \
	src/model/catresolve.c src/model/cateval.c src/model/catprim.c src/model/catmono.c \
	src/model/catlevel.c src/model/catload.c

$(CAT_TEST): $(CAT_TEST_SRCS) $(CATLIB_C) $(wildcard src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(CAT_TEST_SRCS) $(CATLIB_C) -lcmocka

.PHONY: check-cat
check-cat: $(CAT_TEST)
	CMOCKA_MESSAGE_OUTPUT=TAP $(CAT_TEST)
