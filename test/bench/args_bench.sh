#!/usr/bin/env bash
# What capturing argument values costs per call in FDR mode
# (bench_args.c): the same objects linked with our libxray.a and with
# compiler-rt's archives, R fresh processes each; prints per row the
# median of the processes' fastest blocks (ns per call: an entry and an
# exit) and, for ours, callgrind's instructions per call.
#
#   test/bench/args_bench.sh [--lib PATH] [--runs R] [--no-callgrind]
#
# Not a test: nothing here asserts a time.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LIB=${XRAY_LIB:-} RUNS=5 CALLGRIND=1
while [ $# -gt 0 ]; do
  case $1 in
  --lib) LIB=$2; shift 2 ;;
  --runs) RUNS=$2; shift 2 ;;
  --no-callgrind) CALLGRIND=0; shift ;;
  *) echo "usage: $0 [--lib PATH] [--runs R] [--no-callgrind]" >&2; exit 2 ;;
  esac
done
CLANG=${CLANG:-clang}
WORK=$ROOT/build-bench/args
mkdir -p "$WORK"
if [ -z "$LIB" ]; then
  cmake -S "$ROOT" -B "$ROOT/build-bench/runtime" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$ROOT/build-bench/runtime" --target xray -j2 >/dev/null
  LIB=$ROOT/build-bench/runtime/lib/libxray.a
fi
CRT_DIR=$("$CLANG" -print-resource-dir)/lib/linux
arch=$(uname -m)
"$CLANG" -O2 -gdwarf-4 -fxray-instrument -fxray-instruction-threshold=1 -c "$HERE/bench_args_fn.c" \
  -o "$WORK/fn.o"
"$CLANG" -O2 -gdwarf-4 -I"$ROOT/include" -c "$HERE/bench_args.c" -o "$WORK/main.o"
"$CLANG" -o "$WORK/ours" "$WORK/fn.o" "$WORK/main.o" \
  -Wl,--whole-archive "$LIB" -Wl,--no-whole-archive -lpthread
crt=()
for a in xray xray-fdr; do
  [ -f "$CRT_DIR/libclang_rt.$a-$arch.a" ] && crt+=("$CRT_DIR/libclang_rt.$a-$arch.a")
done
sides=(ours)
if [ ${#crt[@]} -eq 2 ]; then
  "$CLANG" -o "$WORK/crt" "$WORK/fn.o" "$WORK/main.o" \
    -Wl,--whole-archive "${crt[@]}" -Wl,--no-whole-archive -lpthread -lrt -lm -ldl
  sides+=(crt)
fi
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
for ((r = 0; r < RUNS; r++)); do
  for side in "${sides[@]}"; do
    (cd "$logs" && XRAY_OPTIONS="xray_logfile_base=$logs/log-" "$WORK/$side" 2>>"$WORK/stderr.txt") |
      sed "s/^/$side /" >>"$WORK/runs.txt.$$"
    rm -f "$logs"/log-*
  done
done
printf '%-12s %10s %10s %12s\n' row ours crt ours-instr
rows=$(awk '$1 == "ours" { print $2 }' "$WORK/runs.txt.$$" | awk '!seen[$0]++')
declare -A instr
CG_CALLS=200000
if [ $CALLGRIND = 1 ] && command -v valgrind >/dev/null; then
  # Instructions per call of each row alone: its timed loop's instructions
  # (set-up calls included) over its calls.
  for row in $rows; do
    (cd "$logs" && XRAY_OPTIONS="xray_logfile_base=$logs/log-" \
      valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" --toggle-collect='timed_*' \
      "$WORK/ours" "$row" $CG_CALLS >/dev/null 2>"$WORK/cg.err") || continue
    ir=$(awk '/^summary:/ { print $2 }' "$WORK/cg.out")
    instr[$row]=$(awk -v ir="$ir" -v n=$((CG_CALLS + 1000)) 'BEGIN { printf "%.1f", ir / n }')
    rm -f "$logs"/log-*
  done
fi
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }
for row in $rows; do
  o=$(awk -v r="$row" '$1 == "ours" && $2 == r { print $3 }' "$WORK/runs.txt.$$" | median)
  c=$(awk -v r="$row" '$1 == "crt" && $2 == r { print $3 }' "$WORK/runs.txt.$$" | median)
  printf '%-12s %10s %10s %12s\n' "$row" "$o" "$c" "${instr[$row]:--}"
done
rm -f "$WORK/runs.txt.$$"
