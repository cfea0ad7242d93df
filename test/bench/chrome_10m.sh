#!/usr/bin/env bash
# Size and time of the Chrome trace JSON (trace_output=chrome) and of the
# Perfetto trace (trace_output=perfetto) for a trace of 10 million records,
# basic and FDR mode (docs/performance.md).
#
#   test/bench/chrome_10m.sh [LIBXRAY]     (default build/lib/libxray.a)
#
# Method: one thread calls a leaf 5 million times (10M records: an entry
# and an exit each) with every call kept (threshold 0); the program runs
# once with trace_output=xray, once with xray+chrome and once with
# xray+perfetto, three times each, alternating. A writer's cost is the
# difference of the flush times (the
# program times it around __xray_log_flushLog, CLOCK_MONOTONIC); peak RSS
# from /usr/bin/time shows that the writer adds no copy of the trace.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=${1:-$ROOT/build/lib/libxray.a}
CLANG=${CLANG:-clang}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
cat > ten.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>
static volatile int sink;
__attribute__((noinline)) void leaf(int i) { sink += i; }
__attribute__((xray_never_instrument)) static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}
__attribute__((xray_never_instrument)) int main(int argc, char **argv) {
  __xray_log_select_mode(argv[1]);
  if (__xray_log_init_mode(argv[1], argv[2]) != XRAY_LOG_INITIALIZED) return 2;
  __xray_patch();
  for (int i = 0; i < 5000000; i++) leaf(i);
  __xray_log_finalize();
  double t = now();
  __xray_log_flushLog();
  printf("%.3f\n", now() - t);
  return 0;
}
C
NO_DEPS=-fno-xray-link-deps
"$CLANG" -fxray-instrument $NO_DEPS -x c -E /dev/null -o /dev/null 2>/dev/null || NO_DEPS=-fnoxray-link-deps
"$CLANG" -O2 -fxray-instrument $NO_DEPS -fxray-instruction-threshold=1 -I"$ROOT/include" ten.c \
  -o ten -Wl,--whole-archive "$LIB" -Wl,--no-whole-archive -lpthread
run() { # MODE CONFIG -> "flush_s maxrss_kb"
  rm -f xray-log.ten.*
  local s
  s=$(/usr/bin/time -f "%M" -o rss.txt ./ten "$1" "$2")
  echo "$s $(cat rss.txt)"
}
for mode in xray-basic xray-fdr; do
  if [ $mode = xray-basic ]; then base="func_duration_threshold_us=0"
  else base="func_duration_threshold_us=0:buffer_size=16777216:buffer_max=6"; fi
  for i in 1 2 3; do
    a=$(run $mode "$base:trace_output=xray")
    b=$(run $mode "$base:trace_output=xray+chrome")
    log=$(printf '%s\n' xray-log.ten.* | grep -v json)
    json=$(stat -c %s "$log.json")
    calls=$(grep -c '"ph":"X"' "$log.json")
    c=$(run $mode "$base:trace_output=xray+perfetto")
    log=$(printf '%s\n' xray-log.ten.* | grep -v pftrace)
    echo "$mode run $i: flush ${a% *} s -> ${b% *} s with JSON, ${c% *} s with" \
         "Perfetto; peak RSS ${a#* } -> ${b#* } / ${c#* } KiB; log $(stat -c %s "$log") B," \
         "JSON $json B ($calls calls), Perfetto $(stat -c %s "$log.pftrace") B"
  done
done
