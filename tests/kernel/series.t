#!/bin/bash
# TAP: kernel/patches/series lists exactly the *.patch files present, each
# once (but git format-patch's cover letter, 0000-cover-letter.patch, whose
# shortlog must name every patch of series in order), and KCONFIG holds
# only CONFIG_X=y|m|n lines.
set -euo pipefail
PATCHES=$(cd "$(dirname "$0")/../../kernel/patches" && pwd)
. "$(dirname "$0")/../../kernel/scripts/common.sh"

echo "1..5"

listed=$(series_patches | sort)
present=$(cd "$PATCHES" && find . -maxdepth 1 -name '*.patch' ! -name '0000-cover-letter.patch' \
	-printf '%f\n' | sort)

missing=$(comm -23 <(echo "$listed" | sed '/^$/d') <(echo "$present" | sed '/^$/d'))
if [ -z "$missing" ]; then
	echo "ok 1 - every patch named in series exists"
else
	echo "not ok 1 - series names missing files: $missing"
fi

unlisted=$(comm -13 <(echo "$listed" | sed '/^$/d') <(echo "$present" | sed '/^$/d'))
if [ -z "$unlisted" ]; then
	echo "ok 2 - every *.patch file is in series"
else
	echo "not ok 2 - not in series: $unlisted"
fi

dups=$(echo "$listed" | sed '/^$/d' | uniq -d)
if [ -z "$dups" ]; then
	echo "ok 3 - no patch is listed twice"
else
	echo "not ok 3 - listed twice: $dups"
fi

bad=$(grep -Evn '^(CONFIG_[A-Za-z0-9_]+=[ymn]|#.*|)$' "$PATCHES/KCONFIG" 2>/dev/null || true)
if [ -z "$bad" ]; then
	echo "ok 4 - KCONFIG has only CONFIG_X=y|m|n lines"
else
	echo "not ok 4 - bad KCONFIG lines: $bad"
fi

# The cover letter's shortlog: "  subject" lines after the author line.
# A long Subject: header is folded onto lines that start with a space.
subjects=$(series_patches | while read -r p; do
	awk '/^Subject: / { s = $0; folded = 1; next }
	     folded && /^ / { s = s $0; next }
	     folded { print s; exit }' "$PATCHES/$p" |
		sed 's/^Subject: \[PATCH [0-9]*\/[0-9]*\] //'
done)
shortlog=$(sed -n '/^lkmm project ([0-9]*):$/,/^$/p' "$PATCHES/0000-cover-letter.patch" 2>/dev/null |
	sed -n 's/^  //p')
if [ -n "$subjects" ] && [ "$subjects" = "$shortlog" ]; then
	echo "ok 5 - the cover letter's shortlog names every patch of series, in order"
else
	echo "not ok 5 - the cover letter's shortlog does not match series"
fi
