#!/bin/bash
# `make cocci-sweep`: run kernel/cocci/onetime_init.cocci (the project's
# rule; not submitted, see docs/coccinelle.md) over the whole unpatched
# 6.12 tree; the triage of its reports is docs/coccinelle.md.
#
# The rule joins the publication of a pointer with the tests of it in
# other files, so those files must be in one spatch run; parsing all
# ~60000 files would take hours on two cores.  Two passes keep it to
# minutes:
#   1. the rule in its "publishers" mode, on the files that call
#      cmpxchg*() or smp_store_release(), lists the pointers published
#      there, with the structure type where Coccinelle knows it;
#   2. the rule in report mode on those files plus every file that names
#      one of those fields (and, for a field of a known structure type,
#      that structure), with its field metavariables constrained to the
#      names that can matter (see pass2_rule below).
# Each pass copies its files out of the pristine tree into a directory
# and gives spatch that directory, so that it parses each file on its own
# (files named on the command line would be parsed as one unit).
#
# Output: build/kernel/cocci-sweep/{publishers,report,summary}.txt, and
# onetime_init-pass2.cocci, the rule as pass 2 ran it.
# COCCI_RULE=file runs a draft of the rule instead of the project's one.
set -euo pipefail
. "$(dirname "$0")/common.sh"

OUT=$KBUILD_ROOT/cocci-sweep
RULE=$KERNEL_DIR/cocci/onetime_init.cocci
SPATCH=(nice spatch --very-quiet --no-includes --include-headers --timeout 120
	--jobs "$JOBS" --chunksize 1)
PUBLISH_RE='\b(cmpxchg(_relaxed|_acquire|_release)?|smp_store_release)\s*\('

# Files of the pristine tree matching a Perl regex (all of them, with
# several), one path per line.
pristine_grep() {
	git -C "$KSRC" grep -l --all-match -P "$@" pristine -- '*.c' '*.h' |
		sed 's/^pristine://'
}

# extract DIR: copy the pristine files named on stdin into DIR.
extract() {
	mkdir -p "$1"
	xargs git -C "$KSRC" archive pristine -- | tar -x -C "$1"
}

# The names of the published fields (pass 1's "->name" lines), one a line.
published_fields() {
	awk '$1 ~ /^->/ { print substr($1, 3) }' "$OUT/publishers.txt" | sort -u
}

# Pass 2's files: for each published field, the files that name it; for
# a common name (in more than FIELD_FILES_MAX files) of a known structure
# type, only those that also name the structure.  (Not always: a reader
# may reach the field through a chain of untyped expressions, as
# fs/iomap/direct-io.c reaches s_dio_done_wq, and never name it.)  One
# git grep for all the fields and one for all the structures.
FIELD_FILES_MAX=${FIELD_FILES_MAX:-300}
field_files() {
	local fields structs
	fields=$(published_fields | paste -sd'|' -)
	structs=$(awk '$1 ~ /^->/ && $2 != "-" { sub(/^struct:/, "", $2); print $2 }' \
		"$OUT/publishers.txt" | sort -u | paste -sd'|' -)
	[ -n "$fields" ] || return 0
	git -C "$KSRC" grep -o -P "(->|\.)($fields)\b" pristine -- '*.c' '*.h' |
		sed 's/^pristine://; s/:\(->\|\.\)/ /' | sort -u >"$OUT/field-uses.txt"
	if [ -n "$structs" ]; then
		git -C "$KSRC" grep -o -P "\bstruct\s+($structs)\b" pristine -- '*.c' '*.h' |
			sed 's/^pristine://; s/:struct\s*/ /' | sort -u >"$OUT/struct-uses.txt"
	else
		: >"$OUT/struct-uses.txt"
	fi
	awk -v max="$FIELD_FILES_MAX" '
		FILENAME ~ /publishers/ { if ($1 ~ /^->/) type[substr($1, 3)] = type[substr($1, 3)] " " $2; next }
		FILENAME ~ /struct-uses/ { names[$2, $1] = 1; next }
		{ files[$2] = files[$2] " " $1; count[$2]++ }
		END {
			for (f in files) {
				n = split(files[f], list, " ")
				for (i = 1; i <= n; i++) {
					keep = count[f] <= max
					m = split(type[f], ts, " ")
					for (j = 1; j <= m && !keep; j++)
						keep = ts[j] == "-" || names[substr(ts[j], 8), list[i]]
					if (keep)
						print list[i]
				}
			}
		}' "$OUT/publishers.txt" "$OUT/struct-uses.txt" "$OUT/field-uses.txt"
}

# pass2_rule: the rule with `identifier fld;` constrained to the published
# field names and to the fields given to a cmpxchg*(&...->fld, NULL, ...)
# in pass 2's files.  The reports are the same: a test of another field
# joins no publication, and the failed-cmpxchg() rules only look at the
# field of their cmpxchg().  But spatch no longer records (and calls
# Python for) every field test of every if in 1800 files, which made the
# unconstrained rule ~9x slower and overflow its stack on large files.
pass2_rule() {
	local names
	names=$({
		published_fields
		grep -rhoP 'cmpxchg\w*\(\s*&[^,;]*?(->|\.)\K\w+(?=\s*,\s*NULL)' "$OUT/pass2" || true
	} | sort -u | paste -sd'|' -)
	sed "s/^identifier fld;\$/identifier fld =~ \"^($names)\$\";/" "$OUT/onetime_init.cocci"
}

main() {
	local t0 t1 t2
	# The sources are read from the tag "pristine", whatever is checked out.
	[ -d "$KSRC/.git" ] || "$KERNEL_DIR/scripts/prepare-tree.sh" --pristine
	rm -rf "$OUT"
	mkdir -p "$OUT"
	cp "${COCCI_RULE:-$RULE}" "$OUT/onetime_init.cocci"

	t0=$(date +%s)
	pristine_grep -e "$PUBLISH_RE" >"$OUT/publisher-files.txt"
	extract "$OUT/pass1" <"$OUT/publisher-files.txt"
	(cd "$OUT/pass1" && "${SPATCH[@]}" -D publishers \
		--cocci-file "$OUT/onetime_init.cocci" --dir .) |
		sed 's| \./| |' >"$OUT/publishers.txt"
	t1=$(date +%s)

	{ cat "$OUT/publisher-files.txt"; field_files; } | sed '/^$/d' | sort -u >"$OUT/files.txt"
	extract "$OUT/pass2" <"$OUT/files.txt"
	pass2_rule >"$OUT/onetime_init-pass2.cocci"
	(cd "$OUT/pass2" && "${SPATCH[@]}" -D report \
		--cocci-file "$OUT/onetime_init-pass2.cocci" --dir .) |
		sed 's|^\./||; s| at \./| at |' >"$OUT/report.txt"
	t2=$(date +%s)

	{
		echo "pass 1: $(grep -c . "$OUT/publishers.txt" || true) published pointers in" \
		     "$(wc -l <"$OUT/publisher-files.txt") files, $((t1 - t0)) s"
		echo "pass 2: $(grep -c . "$OUT/report.txt" || true) reports in" \
		     "$(wc -l <"$OUT/files.txt") files, $((t2 - t1)) s"
	} | tee "$OUT/summary.txt"
}

main "$@"
