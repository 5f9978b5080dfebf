#!/bin/bash
# Write each submission of kernel/patches (one directory each, in the
# order kernel/patches/series names them) as the mails its sender would
# post: build/submissions/NAME/*.patch, made by git format-patch from
# commits on the untouched 6.12 tree, so that every submission applies
# on its own.
#
# The patches in the repository carry nobody's identity.  Here the
# author and the Signed-off-by: are whoever runs this (git config
# user.name and user.email, as git send-email would use), because the
# Developer's Certificate of Origin is the sender's to give.  The
# recipients are the tree's scripts/get_maintainer.pl's: maintainers and
# supporters in To:, reviewers and lists in Cc:; and, in Cc:, the
# addresses of the directory's file "cc", for people and lists that
# get_maintainer.pl cannot find (the file says why each is there).
# Every patch must pass scripts/checkpatch.pl --strict.
#
# A directory with more than one patch needs a file "cover-letter": its
# first line "Subject: [PREFIX 0/N] title", then a blank line and the
# text.  A single patch takes its prefix from its own Subject: line.
#
# A submission that needs another one applied first names it in its file
# "depends" (one submission a line, '#' comments): the other's patches
# are committed under it, on the untouched tree, but not mailed, and the
# base line says so (call-once's patch 5 converts the code that
# fs-dio-done-wq changes).
#
# Usage: submissions.sh [OUTDIR]   (default build/submissions)
set -euo pipefail
. "$(dirname "$0")/common.sh"

OUT=${1:-$LKMM_ROOT/build/submissions}
PATCHES=$KERNEL_DIR/patches

# checkpatch checks a Fixes: id against the tree's history, which a tree
# unpacked from a tarball does not have (docs/kernel-series.md says how
# each id was found).  It also asks about MAINTAINERS whenever a patch
# adds a file, whether or not an entry already covers it; which new
# files no entry covers is reported here instead (uncovered_files).
# A submission may name more in its own file "checkpatch-ignore", one
# message type per line with the reason after a '#', for a warning its
# code cannot avoid (a DEFINE_MUTEX()-style macro must name its argument
# twice).
CHECKPATCH_IGNORE=UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES

sender_name=$(git -C "$LKMM_ROOT" config user.name || true)
sender_email=$(git -C "$LKMM_ROOT" config user.email || true)
[ -n "$sender_name" ] && [ -n "$sender_email" ] ||
	die "no sender identity: set git config user.name and user.email (they sign off every patch)"
SENDER="$sender_name <$sender_email>"

"$KERNEL_DIR/scripts/prepare-tree.sh" --series
# The sender is the author and committer of every commit made here.
export GIT_AUTHOR_NAME=$sender_name GIT_AUTHOR_EMAIL=$sender_email
export GIT_COMMITTER_NAME=$sender_name GIT_COMMITTER_EMAIL=$sender_email
GIT=(git -C "$KSRC" -c core.autocrlf=false -c gc.auto=0)
BASE_TEXT="base: v6.12.$(sed -n 's/^SUBLEVEL = //p' "$KSRC/Makefile") as Debian's linux-source-6.12 ships it"

# The patches of submission $1, in series order.
submission_patches() {
	series_patches | grep "^$1/"
}

# get_maintainer's recipients of the given patches, "to" or "cc".
recipients() {
	local want=$1
	shift
	(cd "$KSRC" && perl scripts/get_maintainer.pl --no-git --no-git-fallback --no-fixes "$@") |
		awk -v want="$want" '{
			role = /\((maintainer|supporter):/ ? "to" : "cc"
			if (role == want) { sub(/ \(.*$/, ""); print }
		}' | awk '!seen[$0]++'
}

# The addresses of submission $1's file "cc", one a line, without the
# '#' comments that say why each is there: people and lists the sender
# Cc's by hand because get_maintainer.pl does not name them (a header
# that no MAINTAINERS entry covers, whose only user is in another
# subsystem).
own_cc() {
	local file=$PATCHES/$1/cc bad
	[ -f "$file" ] || return 0
	bad=$(own_cc_lines "$file" | grep -v '@' || true)
	[ -z "$bad" ] || die "$file: not an address: $bad"
	own_cc_lines "$file"
}

own_cc_lines() {
	sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$1"
}

# Lines "to ADDRESS" and "cc ADDRESS" on stdin, each address kept once
# (compared by its <email>, case-insensitively), the first line winning:
# someone get_maintainer.pl already puts in To: is not Cc'd again.
once_each() {
	awk '{
		k = tolower($0)
		if (match(k, /<[^>]*>/)) k = substr(k, RSTART + 1, RLENGTH - 2)
		else k = substr(k, 4)
		if (!seen[k]++) print
	}'
}

# The submissions that submission $1 applies on top of (its file
# "depends"), in the file's order.
depends_on() {
	local file=$PATCHES/$1/depends dep
	[ -f "$file" ] || return 0
	for dep in $(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$file"); do
		series_submissions | grep -q -x -F "$dep" ||
			die "$file: $dep is not a submission of the series"
		echo "$dep"
	done
}

# Fill format-patch's cover-letter template with the directory's text
# and the base line $3.
fill_cover() {
	local cover=$1 source=$2 base_text=$3 title body
	title=$(sed -n '1s/^Subject: \[[^]]*\] *//p' "$source")
	body=$(tail -n +3 "$source")
	TITLE=$title BODY="$body"$'\n\n'"$base_text" perl -0pi -e '
		s/\*\*\* SUBJECT HERE \*\*\*/$ENV{TITLE}/;
		s/\*\*\* BLURB HERE \*\*\*/$ENV{BODY}/;' "$cover"
}

write_submission() {
	local name=$1 dir=$OUT/$1 tip count prefix cover=$PATCHES/$1/cover-letter
	local args=() role r first files base=pristine base_text=$BASE_TEXT dep
	# On the untouched tree: a submission must apply on its own, after
	# the submissions it depends on, if any (not mailed here).
	for dep in $(depends_on "$name"); do
		base=$(commit_patches "$base" "Signed-off-by: $SENDER" $(submission_patches "$dep"))
		base_text+=", with the submission \"$(sed -n '1s/^Subject: \[[^]]*\] *//p' \
			"$PATCHES/$(submission_patches "$dep" | head -n 1)")\" ($dep) applied"
	done
	tip=$(commit_patches "$base" "Signed-off-by: $SENDER" $(submission_patches "$name"))
	count=$(submission_patches "$name" | wc -l)
	first=$PATCHES/$(submission_patches "$name" | head -n 1)
	if [ "$count" -gt 1 ]; then
		[ -f "$cover" ] || die "$name: $count patches but no $cover"
		prefix=$(subject_prefix "$cover")
		args+=(--cover-letter)
	else
		prefix=$(subject_prefix "$first")
		# A single patch says its base below the "---", where git am
		# does not take it into the commit.
		"${GIT[@]}" notes --ref=lkmm-base add -f -m "$base_text" "$tip"
		args+=(--notes=lkmm-base)
	fi
	files=$(submission_patches "$name" | sed "s|^|$PATCHES/|")
	own_cc "$name" >/dev/null	# dies on a line that is not an address
	while read -r role r; do
		args+=(--"$role"="$r")
	done < <({
		recipients to $files | sed 's/^/to /'
		recipients cc $files | sed 's/^/cc /'
		own_cc "$name" | sed 's/^/cc /'
	} | once_each)
	rm -rf "$dir"
	"${GIT[@]}" format-patch -q -o "$dir" --subject-prefix="${prefix:-PATCH}" \
		--thread=shallow "${args[@]}" "$base".."$tip" >/dev/null
	[ "$count" -gt 1 ] && fill_cover "$dir"/0000-cover-letter.patch "$cover" "$base_text"
	check_submission "$name" "$dir"
}

# checkpatch --strict on every patch of the submission but its cover letter.
check_submission() {
	local name=$1 dir=$2 p report=$2/checkpatch.txt bad=0 ignore=$CHECKPATCH_IGNORE
	local own=$PATCHES/$1/checkpatch-ignore
	[ -f "$own" ] && ignore+=$(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$own" | sed 's/^/,/' | tr -d '\n')
	: >"$report"
	for p in "$dir"/*.patch; do
		[ "$(basename "$p")" = 0000-cover-letter.patch ] && continue
		if ! (cd "$KSRC" && perl scripts/checkpatch.pl --strict --ignore "$ignore" "$p") \
			>>"$report" 2>&1; then
			bad=1
		fi
	done
	[ "$bad" = 0 ] || die "$name: checkpatch --strict complains, see $report"
	uncovered_files "$dir" | sed 's/^/no MAINTAINERS entry but THE REST covers /' | tee -a "$report" >&2
	log "$name: $(ls "$dir"/*.patch | wc -l) mail(s) in $dir, checkpatch --strict clean"
}

# The files the submission's patches add that only MAINTAINERS' catch-all
# entry, THE REST, covers: the sender has to say who will look after them.
uncovered_files() {
	local f
	awk '/^diff --git / { path = substr($4, 3) } /^new file mode/ { print path }' \
		"$1"/*.patch | sort -u | while read -r f; do
		(cd "$KSRC" && perl scripts/get_maintainer.pl --no-git --no-git-fallback -f "$f") |
			grep -E '\((maintainer|supporter|reviewer|odd fixer):' |
			grep -q -v ':THE REST)' || echo "$f"
	done
}

main() {
	local name
	mkdir -p "$OUT"
	for name in $(series_submissions); do
		write_submission "$name"
	done
}

main
