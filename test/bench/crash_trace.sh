#!/usr/bin/env bash
# The time a crash snapshot's Perfetto trace adds to a crash
# (snapshot_on_crash=true with trace_output=xray+perfetto, docs/fdr-mode.md).
#
#   test/bench/crash_trace.sh [LIBXRAY] [RUNS]   (default build/lib/libxray.a, 7)
#
# The files go to a directory of mktemp's, under TMPDIR (TMPDIR=/dev/shm:
# tmpfs, as the other figures of docs/performance.md).
# Method: one thread fills the default ring (100 buffers of 16 KiB) with
# calls of a leaf under a caller (threshold 0: every call kept; 400,000
# calls, the ring wraps), then writes through a NULL pointer. The program's
# own SIGSEGV handler, installed after FDR started (so it runs behind the
# crash snapshot), prints the time since the instruction before the fault,
# wall (CLOCK_MONOTONIC) and the crashing thread's CPU time
# (CLOCK_THREAD_CPUTIME_ID: what the crash path itself costs, whatever else
# the machine runs), and exits. The program runs RUNS times with
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
static struct timespec before, before_cpu;
__attribute__((noinline)) void leaf(int i) { sink += i; }
__attribute__((noinline)) void caller(int i) { leaf(i); }
__attribute__((noinline)) void crash(volatile int *p) { *p = 1; }
static volatile int *volatile null_pointer;
NI static double ms(struct timespec a, struct timespec b) {
  return (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
}
NI static void on_segv(int signo) {
  struct timespec t, cpu;
  clock_gettime(CLOCK_MONOTONIC, &t);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
  (void)signo;
  printf("%.3f %.3f\n", ms(before, t), ms(before_cpu, cpu));
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
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &before_cpu);
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
# median COLUMN <FILE
median() { awk -v c="$1" '{ print $c }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
range() { awk -v c="$1" '{ print $c }' "$2" | sort -n | sed -n '1p;$p' | paste -sd-; }
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
for col in 1 2; do
  what=wall
  [ $col = 1 ] || what="the thread's CPU"
  x=$(median $col <xray.ms)
  p=$(median $col <perfetto.ms)
  echo "$what, crash to the program's handler, median of $RUNS (ms): xray $x ($(range $col xray.ms)), xray+perfetto $p ($(range $col perfetto.ms)): the trace adds $(awk -v a="$p" -v b="$x" 'BEGIN { printf "%.2f", a - b }') ms"
done
echo "$sizes"
