#!/usr/bin/env bash
# The argument trampolines' cost against the usual full path, and patching
# with and without want bits (bench_args_tramp.c says what each figure is).
#   test/bench/args_tramp_bench.sh [--lib PATH] [--work DIR] [--functions N] [--callgrind]
# --lib: libxray.a (default: built with cmake into WORK/runtime); --work:
# scratch directory (default build-bench/args_tramp); --functions: how many
# generated functions the patching figures use (default 20000);
# --callgrind: also the instructions per call of each mode (valgrind, which
# hides AVX-512: the ymm copies). x86-64 and AArch64 (natively); needs clang.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LIB='' WORK=$ROOT/build-bench/args_tramp N=20000 CALLGRIND=0
while [ $# -gt 0 ]; do
  case $1 in
  --lib) LIB=$2; shift ;;
  --work) WORK=$2; shift ;;
  --functions) N=$2; shift ;;
  --callgrind) CALLGRIND=1 ;;
  -h | --help) sed -n '2,9p' "$0"; exit 0 ;;
  *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
CLANG=${XRAY_CLANG:-clang}
mkdir -p "$WORK"
if [ -z "$LIB" ]; then
  cmake -S "$ROOT" -B "$WORK/runtime" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$WORK/runtime" --target xray -j2 >/dev/null
  LIB=$WORK/runtime/lib/libxray.a
fi
if "$CLANG" -fxray-instrument -fno-xray-link-deps -x c -E /dev/null -o /dev/null 2>/dev/null; then
  NOLINK=-fno-xray-link-deps
else
  NOLINK=-fnoxray-link-deps
fi
XFLAGS=(-fxray-instrument "$NOLINK" -fxray-instruction-threshold=1)
awk -v n="$N" 'BEGIN {
  for (i = 0; i < n; i++)
    printf "__attribute__((noinline, xray_always_instrument)) int many_%d(int x) { return x + %d; }\n", i, i
  print "int (*const many_table[])(int) = {"
  for (i = 0; i < n; i++) printf "  many_%d,\n", i
  print "};"
  printf "const int many_count = %d;\n", n
}' >"$WORK/many.c"
"$CLANG" -O1 "${XFLAGS[@]}" -c "$WORK/many.c" -o "$WORK/many.o"
"$CLANG" -O2 "${XFLAGS[@]}" -I"$ROOT/include" -I"$ROOT/lib" -I"$(dirname "$LIB")/../include" \
  "$HERE/bench_args_tramp.c" "$WORK/many.o" -o "$WORK/bench_args_tramp" \
  -Wl,--whole-archive "$LIB" -Wl,--no-whole-archive -lpthread
"$WORK/bench_args_tramp"
[ $CALLGRIND = 1 ] || exit 0
modes=(unpatched full-noop args-noop args-nohook)
for m in 0 1 2 3; do
  ir=$(valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.$m" --collect-atstart=no \
         --toggle-collect=counted_calls "$WORK/bench_args_tramp" "$m" 2>&1 |
       sed -n 's/.*Collected : *//p')
  awk -v m="${modes[$m]}" -v ir="$ir" 'BEGIN { printf "I %s %.1f\n", m, ir / 100000 }'
done
