#!/usr/bin/env bash
# Cost of an event from a shared-object function against one from the
# executable (ours only: compiler-rt before LLVM 20 cannot trace shared
# objects). The same function, exe_fn in the executable and dso_fn in a .so
# linked with libxray-dso.a, both patched; per call (an entry and an exit
# event), with a user no-op handler and with FDR mode (default options).
#
#   test/bench/dso_bench.sh [--lib PATH] [--dso-lib PATH] [--runs R] [--calls N]
#
# Method: R fresh processes per case, interleaved; the median of their
# ns/call; then callgrind's instruction count of timed_loop per call (one
# process per case, N/100 calls).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LIB=${XRAY_LIB:-} DSO_LIB=${XRAY_DSO_LIB:-} RUNS=7 CALLS=20000000
while [ $# -gt 0 ]; do
  case $1 in
  --lib) LIB=$2; shift 2 ;;
  --dso-lib) DSO_LIB=$2; shift 2 ;;
  --runs) RUNS=$2; shift 2 ;;
  --calls) CALLS=$2; shift 2 ;;
  *) echo "usage: $0 [--lib PATH] [--dso-lib PATH] [--runs R] [--calls N]" >&2; exit 2 ;;
  esac
done
CLANG=${CLANG:-clang}
WORK=$ROOT/build-bench/dso
mkdir -p "$WORK"
if [ -z "$LIB" ] || [ -z "$DSO_LIB" ]; then
  cmake -S "$ROOT" -B "$ROOT/build-bench/runtime" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$ROOT/build-bench/runtime" --target xray xray_dso -j2 >/dev/null
  LIB=$ROOT/build-bench/runtime/lib/libxray.a DSO_LIB=$ROOT/build-bench/runtime/lib/libxray-dso.a
fi
nolink=-fno-xray-link-deps
"$CLANG" -fxray-instrument $nolink -x c -E /dev/null -o /dev/null 2>/dev/null || nolink=-fnoxray-link-deps
"$CLANG" -O2 -fPIC -shared -fxray-instrument $nolink -fxray-instruction-threshold=1 \
  "$HERE/bench_dso_lib.c" -o "$WORK/libbench_dso.so" \
  -Wl,--whole-archive "$DSO_LIB" -Wl,--no-whole-archive
"$CLANG" -O2 -fxray-instrument $nolink -fxray-instruction-threshold=1 -I"$ROOT/include" \
  "$HERE/bench_dso.c" -o "$WORK/bench_dso" -L"$WORK" -lbench_dso -Wl,-rpath,"$WORK" \
  -Wl,--dynamic-list="$ROOT/cmake/xray.dynlist" \
  -Wl,--whole-archive "$LIB" -Wl,--no-whole-archive -lpthread
cd "$WORK"
run() { # handler where
  if [ "$1" = fdr ]; then
    XRAY_OPTIONS="xray_mode=xray-fdr" ./bench_dso mode "$2" "$3"
  else
    ./bench_dso noop "$2" "$3"
  fi
}
: >results.txt
for r in $(seq "$RUNS"); do
  for h in noop fdr; do
    for w in exe dso; do
      echo "$h $w $(run $h $w "$CALLS" | awk '{ print $2 }')" >>results.txt
    done
  done
done
echo "dso_bench: $CALLS calls per process, $RUNS processes per case, ns per call (2 events)"
printf '%-6s %10s %10s %8s %16s %16s\n' handler exe dso dso/exe "Ir/call exe" "Ir/call dso"
for h in noop fdr; do
  med() { awk -v h=$h -v w=$1 '$1 == h && $2 == w { print $3 }' results.txt | sort -g |
    awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
  e=$(med exe) d=$(med dso)
  ir=()
  if command -v valgrind >/dev/null; then
    for w in exe dso; do
      n=$((CALLS / 100))
      if [ $h = fdr ]; then export XRAY_OPTIONS="xray_mode=xray-fdr"; else unset XRAY_OPTIONS; fi
      valgrind --tool=callgrind --callgrind-out-file=cg.out --toggle-collect=timed_loop \
        ./bench_dso $([ $h = fdr ] && echo mode || echo noop) $w $n >/dev/null 2>&1
      total=$(sed -n 's/^summary: *//p' cg.out)
      ir+=("$(awk -v t="$total" -v n=$n 'BEGIN { printf "%.1f", t / n }')")
    done
    unset XRAY_OPTIONS
  else
    ir=(- -)
  fi
  printf '%-6s %10s %10s %8s %16s %16s\n' $h "$e" "$d" \
    "$(awk -v e="$e" -v d="$d" 'BEGIN { printf "%.3f", d / e }')" "${ir[0]}" "${ir[1]}"
done
