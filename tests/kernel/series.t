#!/bin/bash
# TAP: kernel/patches/series lists exactly the *.patch files present (one
# directory per submission), each once; KCONFIG holds only CONFIG_X=y|m|n
# lines; and no patch carries anyone's identity.
set -euo pipefail
PATCHES=$(cd "$(dirname "$0")/../../kernel/patches" && pwd)
. "$(dirname "$0")/../../kernel/scripts/common.sh"

echo "1..5"

listed=$(series_patches | sort)
present=$(cd "$PATCHES" && find . -name '*.patch' -printf '%P\n' | sort)

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

# No invented identity: the patches carry no author and no sign-off
# (make kernel-submissions adds whoever sends them) and add no MAINTAINERS
# entry.
idents=$(cd "$PATCHES" && grep -HnE '^(From|Signed-off-by):|^\+M:|@example\.(org|com)' \
	$(series_patches) || true)
if [ -z "$idents" ]; then
	echo "ok 5 - no patch carries an author, a sign-off or a MAINTAINERS M: line"
else
	echo "not ok 5 - identity in the patches: $idents"
fi
