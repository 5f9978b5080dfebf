#!/usr/bin/env bash
# The model cache (src/model/modelcache.c): a run that takes the model from the
# cache prints what a run that parses it prints; an edit to any file of
# the model, in a copy of the model directory, is never served the model
# cached before it; a truncated, damaged or foreign cache file, or a
# cache directory that cannot be written, leaves the output right; lkmm
# processes writing the cache at once leave one good file.
source "$(dirname "$0")/../lib/tap.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

lb=$model_dir/litmus-tests/LB+poonceonces.litmus
lock=$model_dir/litmus-tests/MP+polocks.litmus
set -- $LKMM_BINARIES
plan $(( $# * 34 ))

# The cache file of the model copy (there is one model per cache here).
cache_file() { find "$cache" -name 'model-*' ! -name 'model-*.*' 2> /dev/null; }
inode() { stat -c %i "$(cache_file)" 2> /dev/null; }

# run NAME TEST...: lkmm on the copy with the cache, output (Time aside) in $work/NAME.
run() {
	local name=$1
	shift
	LKMM_CACHE_DIR=$cache "$lkmm" check -I "$copy" "$@" 2>&1 | without_time > "$work/$name"
}

# same NAME WANTED GOT: the case passes when the two outputs are equal.
same() {
	if [ -s "$work/$2" ] && diff -u "$work/$2" "$work/$3" > "$work/diff"; then
		ok "$1"
	else
		not_ok "$1"
		diag < "$work/diff"
	fi
}

# differ NAME A B PATTERN: the outputs differ and B matches PATTERN.
differ() {
	if ! cmp -s "$work/$2" "$work/$3" && grep -qE -- "$4" "$work/$3"; then
		ok "$1"
	else
		not_ok "$1"
		diag < "$work/$3"
	fi
}

# A fresh copy of the model directory and an empty cache.
fresh() {
	rm -rf "$copy" "$cache"
	mkdir -p "$copy"
	cp "$model_dir"/linux-kernel.* "$model_dir"/lock.cat "$copy"/
}

reject_all='empty [_] as edited'

for lkmm in $LKMM_BINARIES; do
	tag=$(basename "$(dirname "$lkmm")")
	copy=$work/model
	cache=$work/cache
	fresh

	# Hits and misses print the same, on the whole corpus of the kernel.
	tests=$(ls "$model_dir"/litmus-tests/*.litmus)
	LKMM_CACHE_DIR=$cache "$lkmm" check -I "$copy" --no-model-cache $tests 2>&1 |
		without_time > "$work/parsed"
	[ -z "$(ls -A "$cache" 2> /dev/null)" ] && ok "$tag: --no-model-cache writes no cache" ||
		not_ok "$tag: --no-model-cache writes no cache"
	run cold $tests
	[ -n "$(cache_file)" ] && ok "$tag: the first run writes the cache" ||
		not_ok "$tag: the first run writes the cache"
	before=$(inode)
	run warm $tests
	same "$tag: a cache miss prints what parsing the model prints" parsed cold
	same "$tag: a cache hit prints what parsing the model prints" parsed warm
	[ "$(inode)" = "$before" ] && ok "$tag: a hit leaves the cache file as it is" ||
		not_ok "$tag: a hit leaves the cache file as it is"
	LKMM_CACHE_DIR=$cache "$lkmm" check -I "$copy" --explain -j 3 $tests 2>&1 |
		without_time > "$work/explained"
	"$lkmm" check -I "$copy" --no-model-cache --explain -j 1 $tests 2>&1 |
		without_time > "$work/explained-parsed"
	# -j 3: the second and third contexts cannot map the image where the
	# first did, and move its pointers.
	same "$tag: -j 3 --explain from the cache, the image moved" explained-parsed explained

	# Each file of the model, edited after the cache was written.
	run lb-before "$lb"
	run lock-before "$lock"
	echo "$reject_all" >> "$copy/linux-kernel.cat"
	run lb-after "$lb"
	differ "$tag: linux-kernel.cat edited: the edit counts" lb-before lb-after 'Never 0 0'
	run lb-again "$lb"
	same "$tag: ... and again, from the cache rewritten" lb-after lb-again
	cp "$model_dir/linux-kernel.cat" "$copy/"
	run lb-restored "$lb"
	same "$tag: ... and the file restored, the model before" lb-before lb-restored

	echo "$reject_all" >> "$copy/lock.cat"
	run lock-after "$lock"
	differ "$tag: lock.cat edited: the edit counts" lock-before lock-after 'Never 0 0'
	cp "$model_dir/lock.cat" "$copy/"

	echo "$reject_all" >> "$copy/linux-kernel.bell"
	run lb-after "$lb"
	differ "$tag: linux-kernel.bell edited: the edit counts" lb-before lb-after 'Never 0 0'
	cp "$model_dir/linux-kernel.bell" "$copy/"

	sed -i 's/^READ_ONCE(X) __load{once}(X)$/READ_ONCE(X) __load{acquire}(X)/' \
		"$copy/linux-kernel.def"
	run lb-after "$lb"
	differ "$tag: linux-kernel.def edited (READ_ONCE an acquire): the edit counts" \
		lb-before lb-after 'Observation LB\+poonceonces Never'
	cp "$model_dir/linux-kernel.def" "$copy/"

	{ cat "$model_dir/linux-kernel.cat"; echo "$reject_all"; } > "$copy/edited.cat"
	sed -i 's/^model linux-kernel.cat$/model edited.cat/' "$copy/linux-kernel.cfg"
	run lb-after "$lb"
	differ "$tag: linux-kernel.cfg edited (another model): the edit counts" \
		lb-before lb-after 'Never 0 0'
	cp "$model_dir/linux-kernel.cfg" "$copy/"

	# One byte more, a blank line: the same model, but never taken for it.
	# One byte changed (let -> lex, READ_ONCE -> READ_ONCF, .cat -> .caT):
	# the error that edit makes.
	for edit in 'linux-kernel.cat:0,/^let /s//lex /' 'lock.cat:0,/^let /s//lex /' \
		    'linux-kernel.bell:0,/^let /s//lex /' 'linux-kernel.def:s/^READ_ONCE(X)/READ_ONCF(X)/' \
		    'linux-kernel.cfg:s/^model linux-kernel.cat$/model linux-kernel.caT/'; do
		f=${edit%%:*}
		run lb-before "$lb"
		before=$(inode)
		printf '\n' >> "$copy/$f"
		run lb-after "$lb"
		if [ "$(inode)" != "$before" ] && cmp -s "$work/lb-before" "$work/lb-after"; then
			ok "$tag: $f one byte longer: a miss, the cache written again"
		else
			not_ok "$tag: $f one byte longer: a miss, the cache written again"
		fi
		cp "$model_dir/$f" "$copy/"
		run lb-before "$lb"
		sed -i "${edit#*:}" "$copy/$f"
		run lb-after "$lb"
		differ "$tag: $f, one byte changed: the edit counts" lb-before lb-after 'error'
		cp "$model_dir/$f" "$copy/"
	done

	# A file of our library, shadowed by one in the model directory.
	run lb-before "$lb"
	echo 'not cat (' > "$copy/cross.cat"
	run lb-after "$lb"
	differ "$tag: a cross.cat put in the model directory is read" lb-before lb-after \
		'cross.cat:1:.*error'
	rm "$copy/cross.cat"

	# Damaged cache files are ignored, and written again.
	run lb-before "$lb"
	truncate -s 1000 "$(cache_file)"
	run lb-after "$lb"
	same "$tag: a truncated cache file is ignored" lb-before lb-after
	# 16 KiB from the middle of the file on: the image's statements and trees.
	size=$(stat -c %s "$(cache_file)")
	dd if=/dev/urandom of="$(cache_file)" bs=1 seek=$((size / 2)) count=16384 conv=notrunc \
		status=none
	run lb-after "$lb"
	same "$tag: a cache file with garbage in its image is ignored" lb-before lb-after
	dd if=/dev/urandom of="$(cache_file)" bs=1 seek=40 count=8 conv=notrunc status=none
	run lb-after "$lb"
	same "$tag: a cache file with garbage in its header is ignored" lb-before lb-after
	echo 'not a cache' > "$(cache_file)"
	run lb-after "$lb"
	same "$tag: a foreign file in the cache's place is ignored" lb-before lb-after

	# Where the cache cannot be.
	touch "$work/a-file"
	LKMM_CACHE_DIR=$work/a-file/cache "$lkmm" check -I "$copy" "$lb" 2>&1 |
		without_time > "$work/lb-after"
	same "$tag: a cache directory that cannot be made: loaded from the files" lb-before lb-after
	mkdir -p "$work/read-only"
	chmod 500 "$work/read-only"	# (root writes there all the same)
	LKMM_CACHE_DIR=$work/read-only "$lkmm" check -I "$copy" "$lb" 2>&1 |
		without_time > "$work/lb-after"
	same "$tag: a cache directory that cannot be written: loaded from the files" \
		lb-before lb-after
	chmod 700 "$work/read-only"

	# Eight processes start with no cache at once: each prints the right
	# output, and they leave one cache file that the next run takes up.
	fresh
	for i in 1 2 3 4 5 6 7 8; do
		run "lb-$i" "$lb" &
	done
	wait
	bad=0
	for i in 1 2 3 4 5 6 7 8; do
		cmp -s "$work/lb-before" "$work/lb-$i" || bad=$((bad + 1))
	done
	[ "$bad" = 0 ] && ok "$tag: 8 processes writing the cache at once print the right output" ||
		not_ok "$tag: 8 processes writing the cache at once print the right output ($bad wrong)"
	before=$(inode)
	run lb-after "$lb"
	if [ "$(ls "$cache" | wc -l)" = 1 ] && [ "$(inode)" = "$before" ] &&
		cmp -s "$work/lb-before" "$work/lb-after"; then
		ok "$tag: ... and leave one good cache file, no temporary one"
	else
		not_ok "$tag: ... and leave one good cache file, no temporary one"
		ls -la "$cache" | diag
	fi

	# Where the cache is: $LKMM_CACHE_DIR, $XDG_CACHE_HOME/lkmm, $HOME/.cache/lkmm.
	env -u LKMM_CACHE_DIR XDG_CACHE_HOME="$work/xdg" HOME="$work/home" \
		"$lkmm" check -I "$copy" "$lb" > /dev/null 2>&1
	ls "$work"/xdg/lkmm/model-* > /dev/null 2>&1 && ok "$tag: \$XDG_CACHE_HOME/lkmm" ||
		not_ok "$tag: \$XDG_CACHE_HOME/lkmm"
	env -u LKMM_CACHE_DIR -u XDG_CACHE_HOME HOME="$work/home" \
		"$lkmm" check -I "$copy" "$lb" > /dev/null 2>&1
	ls "$work"/home/.cache/lkmm/model-* > /dev/null 2>&1 && ok "$tag: \$HOME/.cache/lkmm" ||
		not_ok "$tag: \$HOME/.cache/lkmm"
	rm -rf "$work/xdg" "$work/home"
done
