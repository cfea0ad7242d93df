#!/usr/bin/env bash
# The time a crash snapshot's Perfetto trace adds to a crash
# (snapshot_on_crash=true with trace_output=xray+perfetto, docs/fdr-mode.md).
#
#   test/bench/crash_trace.sh [LIBXRAY] [RUNS]   (default build/lib/libxray.a, 7)
#
# Method: one thread fills the default ring (100 buffers of 16 KiB) with
# calls of a leaf under a caller (threshold 0: every call kept; 400,000
# calls, the ring wraps), then writes through a NULL pointer. The program's
# own SIGSEGV handler, installed after FDR started (so it runs behind the
# crash snapshot), prints the time since the instruction before the fault
# (CLOCK_MONOTONIC) and exits. The program runs RUNS times with
# trace_output=xray and as many with xray+perfetto, alternating, each in a
# fresh directory; the trace's cost is the difference of the medians. The
# sizes of the snapshot and of its .pftrace are printed too.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=${1:-$ROOT/build/lib/libxray.a}
RUNS=${2:-7}
CLANG=${CLANG:-clang}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
cat > crash.c <<'C'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>
#define NI __attribute__((xray_never_instrument))
static volatile int sink;
static struct timespec before;
__attribute__((noinline)) void leaf(int i) { sink += i; }
__attribute__((noinline)) void caller(int i) { leaf(i); }
__attribute__((noinline)) void crash(volatile int *p) { *p = 1; }
static volatile int *volatile null_pointer;
NI static void on_segv(int signo) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  (void)signo;
  printf("%.3f\n", (t.tv_sec - before.tv_sec) * 1e3 +
                       (t.tv_nsec - before.tv_nsec) / 1e6);
  fflush(stdout);
  _exit(0);
}
NI int main(int argc, char **argv) {
  (void)argc;
  __xray_log_select_mode("xray-fdr");
  if (__xray_log_init_mode("xray-fdr", argv[1]) != XRAY_LOG_INITIALIZED)
    return 2;
  __xray_patch();
  signal(SIGSEGV, on_segv);
  for (int i = 0; i < 400000; i++)
    caller(i);
  clock_gettime(CLOCK_MONOTONIC, &before);
  crash(null_pointer);
  return 3;
}
C
"$CLANG" -O2 -fxray-instrument -fxray-instruction-threshold=1 \
  -fno-xray-link-deps -I"$ROOT/include" -I"$(dirname "$LIB")/../include" \
  crash.c -o crash -Wl,--whole-archive "$LIB" -Wl,--no-whole-archive -lpthread 2>/dev/null ||
  "$CLANG" -O2 -fxray-instrument -fxray-instruction-threshold=1 \
    -fnoxray-link-deps -I"$ROOT/include" -I"$(dirname "$LIB")/../include" \
    crash.c -o crash -Wl,--whole-archive "$LIB" -Wl,--no-whole-archive -lpthread
base="func_duration_threshold_us=0 snapshot_on_crash=true"
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: >xray.ms
: >perfetto.ms
for ((i = 0; i < RUNS; i++)); do
  for out in xray perfetto; do
    rm -rf run && mkdir run
    words=xray
    [ "$out" = xray ] || words=xray+perfetto
    (cd run && ../crash "$base trace_output=$words" >>"../$out.ms")
    if [ "$out" = perfetto ]; then
      snap=$(ls run/*.snap000001)
      sizes="snapshot $(stat -c %s "$snap") bytes, .pftrace $(stat -c %s "$snap.pftrace") bytes"
    fi
  done
done
x=$(median <xray.ms)
p=$(median <perfetto.ms)
echo "crash to the program's handler, median of $RUNS (ms): xray $x, xray+perfetto $p"
echo "ranges (ms): xray $(sort -n xray.ms | sed -n '1p;$p' | paste -sd-), xray+perfetto $(sort -n perfetto.ms | sed -n '1p;$p' | paste -sd-)"
echo "the trace adds $(awk -v a="$p" -v b="$x" 'BEGIN { printf "%.3f", a - b }') ms; $sizes"
