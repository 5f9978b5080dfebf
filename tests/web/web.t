#!/usr/bin/env bash
# The web playground (build/web/index.html, made by `make web`) in headless
# Chromium, driven over the DevTools protocol by tests/web/web.mjs (Node,
# no packages: tests/web/cdp.mjs speaks it over --remote-debugging-pipe): every kernel test's verdict in the page against
# bin/lkmm's, the explanation and the graph, a syntax error at its line,
# a fix applied, the link, a screenshot; timings as TAP comments.  Prints
# TAP; skips (1..0 # SKIP) when what it needs is missing.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

skip() {
	echo "1..0 # SKIP $1"
	exit 0
}

command -v "${EMCC:-emcc}" > /dev/null || skip "no emcc (emscripten): scripts/setup.sh web installs it"
command -v "${CHROMIUM:-chromium}" > /dev/null || skip "no chromium: scripts/setup.sh web installs it"
command -v node > /dev/null || skip "no node"
[ -x bin/lkmm ] || skip "no bin/lkmm: make all"
[ -f build/web/index.html ] || skip "no build/web/index.html: make web"
[ -d build/kernel-model/tools/memory-model/litmus-tests ] ||
	skip "no kernel tests: scripts/setup.sh checker"

exec node tests/web/web.mjs
