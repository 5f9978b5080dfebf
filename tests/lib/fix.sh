# fix.sh - what the tests of --suggest share (source after tap.sh, with
# $work a scratch directory).

# fix_applies DESCRIPTION LKMM TEST N: fix N of TEST's --suggest, applied
# by patch, makes it Never.
fix_applies() {
	local what=$1 lkmm=$2 test=$3 n=$4 name
	name=$(basename "$test" .litmus)
	"$lkmm" check -I "$model_dir" --suggest --suggest-timeout 0 "$test" |
		sed -n "/^  $n\\. /,/^  $((n + 1))\\. \\|^Suggestion: /p" | sed -n 's/^    //p' > "$work/fix.diff"
	cp "$test" "$work/$name.litmus"
	if patch -s "$work/$name.litmus" < "$work/fix.diff" &&
	   "$lkmm" check -I "$model_dir" "$work/$name.litmus" | grep -q "^Observation $name Never"; then
		ok "$what"
	else
		not_ok "$what"
		diag < "$work/fix.diff"
	fi
}
