#!/usr/bin/env bash
# What an open sampling window of the overhead budget adds to an event, per
# built-in mode (bench_budget.c), beside what the calibration says.
#
#   test/bench/budget_bench.sh [--lib PATH] [--runs R]
#
# Method: per mode (basic and FDR with func_duration_threshold_us=0, their
# logs in a scratch directory; profiling), R fresh processes; each prints
# the calibration (trampoline and window ns per event), the timer's floor,
# and the fastest of 7 blocks of 1M calls of a leaf with the mode's handler
# alone and inside a window. Not a test: nothing here asserts a time.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LIB=${XRAY_LIB:-} RUNS=3
while [ $# -gt 0 ]; do
  case $1 in
  --lib) LIB=$2; shift 2 ;;
  --runs) RUNS=$2; shift 2 ;;
  *) echo "usage: $0 [--lib PATH] [--runs R]" >&2; exit 2 ;;
  esac
done
CLANG=${CLANG:-clang}
WORK=$ROOT/build-bench/budget
mkdir -p "$WORK"
if [ -z "$LIB" ]; then
  cmake -S "$ROOT" -B "$ROOT/build-bench/runtime" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$ROOT/build-bench/runtime" --target xray -j2 >/dev/null
  LIB=$ROOT/build-bench/runtime/lib/libxray.a
fi
nolink=-fno-xray-link-deps
"$CLANG" -fxray-instrument "$nolink" -x c -E /dev/null -o /dev/null 2>/dev/null || nolink=-fnoxray-link-deps
gen=$(dirname "$LIB")/../include
"$CLANG" -O2 -fxray-instrument "$nolink" -I"$ROOT/lib" -I"$ROOT/include" -I"$gen" \
  "$HERE/bench_budget.c" -o "$WORK/bench_budget" \
  -Wl,--whole-archive "$LIB" -Wl,--no-whole-archive -lpthread
for mode in basic fdr profiling; do
  upper=$(echo "$mode" | tr '[:lower:]' '[:upper:]')
  options="func_duration_threshold_us=0"
  [ "$mode" != profiling ] || options="profiling_output=folded"
  for ((r = 0; r < RUNS; r++)); do
    printf '%-9s ' "$mode"
    env XRAY_OPTIONS="patch_premain=true xray_mode=xray-$mode xray_logfile_base=$WORK/log-" \
      "XRAY_${upper}_OPTIONS=$options" "$WORK/bench_budget"
    rm -f "$WORK"/log-*
  done
done
