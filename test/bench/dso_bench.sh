#!/usr/bin/env bash
# Cost of an event from a shared-object function against one from the
# executable (ours only: compiler-rt before LLVM 20 cannot trace shared
# objects). The same function, exe_fn in the executable and dso_fn in a .so
# linked with libxray-dso.a, both patched; per call (an entry and an exit
# event), with a user no-op handler and with FDR mode (default options).
#
#   test/bench/dso_bench.sh [--lib PATH] [--dso-lib PATH] [--runs R] [--calls N]
#
# Method: per case (unpatched; patched without a handler; a no-op user
# handler; FDR mode, default options) R fresh processes;
# each alternates 20 rounds of N/20 calls of exe_fn and of dso_fn and keeps
# each side's fastest round (load on this shared machine hits rounds, not a
# side; medians of processes still moved 2x between runs here, so the table
# gives the fastest process: the least disturbed figure). Then callgrind's instructions per call
# in counted_loop: (Ir(2000 calls) - Ir(1000 calls)) / 1000.
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
"$CLANG" -fxray-instrument "$nolink" -x c -E /dev/null -o /dev/null 2>/dev/null || nolink=-fnoxray-link-deps
"$CLANG" -O2 -fPIC -shared -fxray-instrument "$nolink" -fxray-instruction-threshold=1 \
  "$HERE/bench_dso_lib.c" -o "$WORK/libbench_dso.so" \
  -Wl,--whole-archive "$DSO_LIB" -Wl,--no-whole-archive
"$CLANG" -O2 -fxray-instrument "$nolink" -fxray-instruction-threshold=1 -I"$ROOT/include" \
  "$HERE/bench_dso.c" -o "$WORK/bench_dso" -L"$WORK" -lbench_dso -Wl,-rpath,"$WORK" \
  -Wl,--dynamic-list="$ROOT/cmake/xray.dynlist" \
  -Wl,--whole-archive "$LIB" -Wl,--no-whole-archive -lpthread
cd "$WORK"
run() { # handler where calls
  case $1 in
  fdr) XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr" ./bench_dso mode "$2" "$3" ;;
  *) ./bench_dso "$1" "$2" "$3" ;;
  esac
}
: >results.txt
for _ in $(seq "$RUNS"); do
  for h in unpatched none noop fdr; do
    echo "$h $(run "$h" both "$CALLS" | awk '{ print $3, $5 }')" >>results.txt
  done
done
echo "dso_bench: $CALLS calls per process in 20 alternating rounds, fastest round per side;"
echo "the fastest of $RUNS processes; ns per call (an entry and an exit event)"
printf '%-9s %8s %8s %8s %12s %12s\n' handler exe dso dso/exe "Ir/call exe" "Ir/call dso"
for h in unpatched none noop fdr; do
  low() { awk -v h="$h" -v c="$1" '$1 == h { print $c }' results.txt | sort -g | head -1; }
  e=$(low 2) d=$(low 3)
  ir=(- -)
  if command -v valgrind >/dev/null; then
    k=0 arg=$h
    [ "$h" != fdr ] || arg=mode
    for w in exe dso; do
      if [ "$h" = fdr ]; then export XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr"; else unset XRAY_OPTIONS; fi
      valgrind --tool=callgrind --callgrind-out-file=cg.out --toggle-collect=counted_loop \
        ./bench_dso "$arg" "$w" 1000 >/dev/null 2>&1
      t1=$(sed -n 's/^summary: *//p' cg.out)
      valgrind --tool=callgrind --callgrind-out-file=cg.out --toggle-collect=counted_loop \
        ./bench_dso "$arg" "$w" 2000 >/dev/null 2>&1
      t2=$(sed -n 's/^summary: *//p' cg.out)
      ir[k]=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.1f", (b - a) / 1000 }')
      k=$((k + 1))
      unset XRAY_OPTIONS
    done
  fi
  printf '%-9s %8s %8s %8s %12s %12s\n' "$h" "$e" "$d" \
    "$(awk -v e="$e" -v d="$d" 'BEGIN { printf "%.3f", d / e }')" "${ir[0]}" "${ir[1]}"
done
