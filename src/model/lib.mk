# lib.mk - build the cat library into the binary: src/model/lib/*.cat
# become string constants in build/catlib.c, found by name at run time
# (see catparse.c).  Include this from the top-level Makefile and link
# $(CATLIB_OBJ) into bin/lkmm.
#
# Models include herd7's library by herd7's file names ("cross.cat");
# ours are named lkmm-cross.cat etc., so that no one takes them for
# herd7's files, and answer to the name without the prefix.

CATLIB_SRC := $(sort $(wildcard src/model/lib/*.cat))
CATLIB_C := build/catlib.c
CATLIB_OBJ := build/catlib.o

$(CATLIB_C): $(CATLIB_SRC) src/model/lib.mk
	@mkdir -p $(dir $@)
	@{ echo '/* Generated from src/model/lib by src/model/lib.mk. */'; \
	  echo '#include "model/catast.h"'; \
	  echo 'const struct cat_libfile cat_lib_files[] = {'; \
	  for f in $(CATLIB_SRC); do \
	    printf '\t{ "%s",\n' "$$(basename $$f | sed 's/^lkmm-//')"; \
	    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t  "/' -e 's/$$/\\n"/' $$f; \
	    printf '\t},\n'; \
	  done; \
	  echo '};'; \
	  echo 'const int cat_lib_nfiles = sizeof(cat_lib_files) / sizeof(cat_lib_files[0]);'; \
	} > $@.tmp && mv $@.tmp $@

$(CATLIB_OBJ): $(CATLIB_C) $(wildcard src/base/*.h src/exec/*.h src/model/*.h)
	$(CC) $(CFLAGS) -c $< -o $@
