#!/usr/bin/env bash
# Our own litmus tests (litmus/): lkmm's output equals herd7's, recorded
# beside this script, and each test's "Result:" comment holds.
source "$(dirname "$0")/../lib/tap.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
check_litmus_tests "$top/tests/litmus" "$work" "$top"/litmus/*.litmus
