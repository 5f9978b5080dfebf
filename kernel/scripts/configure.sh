#!/bin/bash
# Write $KOBJ/.config: ARCH=x86_64 tinyconfig, then every fragment given
# on the command line, then olddefconfig.  Fails when a requested symbol
# did not survive olddefconfig (a missing dependency silently drops it).
#
# Usage: configure.sh FRAGMENT...
#
# ARCH=x86_64 matters: the default ARCH=x86 lets tinyconfig answer "no"
# to 64BIT and gives an i386 kernel.
set -euo pipefail
. "$(dirname "$0")/common.sh"

# Print the settings of the fragments as "SYMBOL VALUE" pairs, VALUE "n"
# for "# CONFIG_X is not set"; a later fragment overrides an earlier one
# (kernel/config/prod.config turns off lkmm.config's checkers).
fragment_settings() {
	sed -n -e 's/^CONFIG_\([A-Za-z0-9_]*\)=\(.*\)$/\1 \2/p' \
	       -e 's/^# CONFIG_\([A-Za-z0-9_]*\) is not set$/\1 n/p' "$@" |
		awk '{ value[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
		     END { for (i = 0; i < n; i++) print order[i], value[order[i]] }'
}

apply_fragments() {
	local sym val
	while read -r sym val; do
		if [ "$val" = n ]; then
			"$KSRC/scripts/config" --file "$KOBJ/.config" --disable "$sym"
		else
			"$KSRC/scripts/config" --file "$KOBJ/.config" --set-val "$sym" "$val"
		fi
	done < <(fragment_settings "$@")
}

verify_fragments() {
	local sym val bad=0
	while read -r sym val; do
		if [ "$val" = n ]; then
			grep -Eq "^CONFIG_${sym}=[ym]$" "$KOBJ/.config" || continue
		else
			grep -Fxq "CONFIG_${sym}=${val}" "$KOBJ/.config" && continue
		fi
		log "CONFIG_$sym=$val was dropped by olddefconfig (dependency missing?)"
		bad=1
	done < <(fragment_settings "$@")
	[ "$bad" = 0 ] || die "config fragment not satisfied"
}

# What the config depends on: the fragments and the tree they are applied
# to (the series may add Kconfig symbols).  Unchanged inputs mean the
# existing .config is still right, which saves ~15 s per warm run.
inputs_hash() {
	{ cat "$@"; cat "$KSRC/.git/lkmm-applied"; } | sha256sum | cut -d' ' -f1
}

main() {
	[ $# -ge 1 ] || die "usage: configure.sh FRAGMENT..."
	local f want stamp=$KOBJ/.lkmm-config-inputs
	for f in "$@"; do
		[ -f "$f" ] || die "no such fragment: $f"
	done
	want=$(inputs_hash "$@")
	if [ -f "$KOBJ/.config" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
		log "config up to date"
		return
	fi
	mkdir -p "$KOBJ"
	rm -f "$stamp"
	kmake -s tinyconfig >/dev/null
	apply_fragments "$@"
	kmake -s olddefconfig >/dev/null
	verify_fragments "$@"
	echo "$want" >"$stamp"
	log "$KOBJ/.config from: $*"
}

main "$@"
