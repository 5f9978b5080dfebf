#!/usr/bin/env bash
# TAP: make kernel-submissions (kernel/scripts/submissions.sh) writes one
# folder per submission of kernel/patches/series, signed by whoever runs
# it and by nobody else, addressed as the tree's get_maintainer.pl says
# plus the Cc: of the submission's own file "cc" (addresses taken from
# the tree; on that submission's mails only), each applying on its own to
# the untouched tree (after the submissions its file "depends" names) and
# checkpatch --strict
# clean; without a sender identity it refuses, naming what to set.
# Needs the kernel tree (kernel/scripts/prepare-tree.sh).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/kernel/scripts/common.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
SENDER_NAME="Test Sender"
SENDER_EMAIL="sender@test.invalid"

# Run the script with the given identity, which git's environment
# configuration puts above every config file.
submit() {
	GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="$1" \
		GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="$2" \
		"$top/kernel/scripts/submissions.sh" "$scratch/out"
}

mapfile -t names < <(series_submissions)
plan $((3 + 6 * ${#names[@]}))

# The email addresses of a submission's file "cc" (none without one),
# one a line, lower case.
own_cc() {
	local file=$top/kernel/patches/$1/cc
	[ -f "$file" ] || return 0
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$file" | emails
}

# The email addresses in the lines on stdin ("Name <a@b>" or "a@b").
emails() {
	grep -oE '[^<>[:space:],]+@[^<>[:space:],]+' | tr 'A-Z' 'a-z'
}

# The addresses of header field $2 (To, Cc) of mail $1.
header_emails() {
	awk '/^$/ { exit } { print }' "$1" |
		awk -v f="$2:" '/^[^ \t]/ { on = ($1 == f) } on' | emails
}

# Every address a submission Cc's by hand is one the tree gives (a
# MAINTAINERS entry, a copyright line), not one written from memory.
missing=""
for name in "${names[@]}"; do
	for a in $(own_cc "$name"); do
		git -C "$KSRC" grep -q -i -F "$a" pristine || missing+=" $name:$a"
	done
done
[ -z "$missing" ] && ok "every address of a submission's cc file is in the untouched tree" ||
	not_ok "addresses of cc files not found in the untouched tree:$missing"

if out=$(submit "" "" 2>&1); then
	not_ok "refuses to run without user.name"
else
	grep -q 'user\.name' <<< "$out" && ok "without an identity: an error that names git config user.name" ||
		{ not_ok "without an identity: an error naming user.name"; diag <<< "$out"; }
fi

if out=$(submit "$SENDER_NAME" "$SENDER_EMAIL" 2>&1); then
	ok "writes the submissions with an identity"
else
	not_ok "writes the submissions with an identity"
	tail -20 <<< "$out" | diag
fi

# The recipients every submission must reach, from its subsystem's entry.
must_reach() {
	case $1 in
	fs-*) echo linux-fsdevel@vger.kernel.org ;;
	tty-*) echo linux-serial@vger.kernel.org ;;
	mm-*) echo linux-mm@kvack.org ;;
	lkmm-*) echo lkmm@lists.linux.dev ;;
	*) echo linux-kernel@vger.kernel.org ;;
	esac
}

for name in "${names[@]}"; do
	dir=$scratch/out/$name
	count=$(series_patches | grep -c "^$name/")
	mails=("$dir"/*.patch)
	want=$count
	[ "$count" -gt 1 ] && want=$((count + 1))
	[ "${#mails[@]}" -eq "$want" ] &&
		ok "$name: $want mail(s) for $count patch(es)" ||
		not_ok "$name: ${#mails[@]} mails for $count patches"

	bad=""
	for m in "${mails[@]}"; do
		grep -q "^From: $SENDER_NAME <$SENDER_EMAIL>" "$m" || bad+=" $(basename "$m"):from"
		case $m in */0000-cover-letter.patch) continue ;; esac
		[ "$(grep -c '^Signed-off-by: ' "$m")" = 1 ] &&
			grep -q "^Signed-off-by: $SENDER_NAME <$SENDER_EMAIL>$" "$m" || bad+=" $(basename "$m"):sob"
	done
	[ -z "$bad" ] && ok "$name: from and signed off by the runner only" ||
		not_ok "$name: identity wrong in:$bad"

	# Its own Cc:, on each of its mails; nobody else's.
	bad=""
	for m in "${mails[@]}"; do
		cc=$(header_emails "$m" Cc)
		for a in $(own_cc "$name"); do
			grep -q -x -F "$a" <<< "$cc" || bad+=" $(basename "$m"):missing:$a"
		done
		for other in "${names[@]}"; do
			[ "$other" = "$name" ] && continue
			for a in $(own_cc "$other"); do
				grep -q -x -F "$a" <<< "$(own_cc "$name")" && continue
				header_emails "$m" To | grep -q -x -F "$a" && bad+=" $(basename "$m"):to:$a"
				grep -q -x -F "$a" <<< "$cc" && bad+=" $(basename "$m"):cc:$a"
			done
		done
	done
	n=$(own_cc "$name" | wc -l)
	[ -z "$bad" ] && ok "$name: its own Cc: ($n address(es) of kernel/patches/$name/cc) and no other submission's" ||
		not_ok "$name: own Cc: wrong:$bad"

	rcpt=$(must_reach "$name")
	grep -q -F "$rcpt" "${mails[0]}" && ok "$name: addressed to $rcpt" ||
		not_ok "$name: $rcpt missing from the recipients"

	# Applies to the untouched tree on its own, after the mails of the
	# submissions its file "depends" names.
	idx=$scratch/index
	rm -f "$idx"
	GIT_INDEX_FILE=$idx git -C "$KSRC" read-tree pristine
	applied=yes
	deps=()
	[ -f "$top/kernel/patches/$name/depends" ] &&
		mapfile -t deps < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' \
			"$top/kernel/patches/$name/depends")
	for dep in "${deps[@]}"; do
		for m in "$scratch/out/$dep"/*.patch; do
			case $m in */0000-cover-letter.patch) continue ;; esac
			GIT_INDEX_FILE=$idx git -C "$KSRC" apply --cached "$m" 2>/dev/null || applied=no
		done
	done
	for m in "${mails[@]}"; do
		case $m in */0000-cover-letter.patch) continue ;; esac
		GIT_INDEX_FILE=$idx git -C "$KSRC" apply --cached "$m" 2>/dev/null || applied=no
	done
	[ "$applied" = yes ] && ok "$name: applies alone to the untouched tree${deps:+ after ${deps[*]}}" ||
		not_ok "$name: does not apply alone to the untouched tree${deps:+ after ${deps[*]}}"

	clean=$(grep -c '^total: 0 errors, 0 warnings, 0 checks' "$dir/checkpatch.txt")
	[ "$clean" -eq "$count" ] && ok "$name: checkpatch --strict clean on every patch" ||
		{ not_ok "$name: checkpatch --strict"; diag < "$dir/checkpatch.txt"; }
done
