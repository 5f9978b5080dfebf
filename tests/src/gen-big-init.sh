#!/bin/sh
# gen-big-init.sh N: a litmus test with N init items and one small process,
# for the parser's memory growth (tests/src/cli.t, the fuzz seeds).
n=${1:-20000}
echo "C big-init"
echo "{"
awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "int var%d = %d;\n", i, i }'
echo "}"
echo "P0(int *var0, int *var1) { int r0; r0 = READ_ONCE(*var0); WRITE_ONCE(*var1, 1); }"
echo "exists (0:r0=0)"
