#!/usr/bin/env bash
# Reading a trace: xrayctl's file commands against llvm-xray on the same FDR
# log, time and peak memory of each (docs/performance.md "Reading traces").
#
#   test/bench/readers.sh [--build DIR] [--calls N] [--big-gb G] [--work DIR]
#                         [--repeat R]
#
#   --build DIR  a CMake build of this tree (lib/libxray.a, bin/xrayctl);
#                default build/
#   --calls N    calls of the hot leaf in the log (2 events each); default
#                2000000, the 4M-event log the comparison is made on
#   --big-gb G   also write a log of about G GiB (calls of a 3-deep chain,
#                every call kept) and give only xrayctl's time and peak
#                memory on it (llvm-xray would take minutes and gigabytes)
#   --work DIR   keep the programs and files there (default: a temporary
#                directory, removed at the end)
#
# Method: one program, one thread, FDR with every call kept
# (func_duration_threshold_us=0) and buffers that hold them all, the log
# written at exit. Each command runs --repeat times (default 3), in this
# order: llvm-xray convert -output-format=trace_event, xrayctl convert --to
# perfetto, xrayctl convert --to chrome, llvm-xray account, xrayctl report;
# the table gives the best elapsed time of each (CLOCK_MONOTONIC around
# posix_spawn and wait4) and the max RSS of one more run (/usr/bin/time). The
# ratios are llvm-xray's time over xrayctl's on the same file in the same
# run. The outputs go to the work directory (a tmpfs /tmp keeps the disk
# out of it; say which when you quote a figure).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$ROOT/build
CALLS=2000000
BIG_GB=0
WORK=
REPEAT=3
while [ $# -gt 0 ]; do
  case $1 in
    --build) BUILD=$2; shift 2 ;;
    --calls) CALLS=$2; shift 2 ;;
    --big-gb) BIG_GB=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "readers.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
LIB=$BUILD/lib/libxray.a
XRAYCTL=$BUILD/bin/xrayctl
CLANG=${CLANG:-clang}
LLVM_XRAY=${LLVM_XRAY:-llvm-xray}
[ -x /usr/bin/time ] || { echo "readers.sh: needs /usr/bin/time (Debian: time)" >&2; exit 2; }
for f in "$LIB" "$XRAYCTL"; do
  [ -e "$f" ] || { echo "readers.sh: $f missing (build first)" >&2; exit 2; }
done
command -v "$LLVM_XRAY" >/dev/null || { echo "readers.sh: no $LLVM_XRAY" >&2; exit 2; }
if [ -z "$WORK" ]; then
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
cd "$WORK"

cat > loop.c <<'C'
#include <stdlib.h>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>
static volatile long sink;
__attribute__((noinline)) void leaf(long i) { sink += i; }
__attribute__((noinline)) void middle(long i) { leaf(i); leaf(i + 1); }
__attribute__((noinline)) void outer(long i) { middle(i); }
/* argv: mode config calls shape (0: leaf only, 1: outer -> middle -> 2 leaves) */
__attribute__((xray_never_instrument)) int main(int argc, char **argv) {
  if (argc != 5)
    return 2;
  __xray_log_select_mode(argv[1]);
  if (__xray_log_init_mode(argv[1], argv[2]) != XRAY_LOG_INITIALIZED)
    return 3;
  __xray_patch();
  long n = atol(argv[3]);
  if (atoi(argv[4]) == 0)
    for (long i = 0; i < n; i++)
      leaf(i);
  else
    for (long i = 0; i < n; i += 4)
      outer(i);
  __xray_log_finalize();
  __xray_log_flushLog();
  return 0;
}
C
NO_DEPS=-fno-xray-link-deps
"$CLANG" -fxray-instrument $NO_DEPS -x c -E /dev/null -o /dev/null 2>/dev/null || NO_DEPS=-fnoxray-link-deps
"$CLANG" -O2 -fxray-instrument $NO_DEPS -fxray-instruction-threshold=1 -I"$ROOT/include" \
  loop.c -o loop -Wl,--whole-archive "$LIB" -Wl,--no-whole-archive -lpthread

# write_log CALLS SHAPE -> the log's path. Buffers of 64 MiB, as many as
# the events need (8 bytes each, plus slack).
write_log() {
  local calls=$1 shape=$2 bytes bufs
  bytes=$(( calls * 2 * 8 ))
  bufs=$(( bytes / 67108864 + 2 ))
  rm -f xray-log.loop.*
  XRAY_OPTIONS="verbosity=0" ./loop xray-fdr \
    "func_duration_threshold_us=0:buffer_size=67108864:buffer_max=$bufs:trace_output=xray" \
    "$calls" "$shape"
  local f
  for f in xray-log.loop.*; do
    case $f in *.map) ;; *) echo "$f"; return ;; esac
  done
}

# timed LABEL CMD... -> prints "LABEL seconds maxrss_mb": the best
# elapsed time of $REPEAT runs (CLOCK_MONOTONIC around posix_spawn and
# wait4), then the max RSS of one more run under /usr/bin/time (a child's
# max RSS counts the memory of whoever spawned it until its exec: time's
# is small, the interpreter's is not). The command's output is kept in
# LABEL.out.
timed() {
  local label=$1 kb
  shift
  python3 - "$label" "$REPEAT" "$@" <<'PY' || exit 1
import os, sys, time
label, repeat, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
best = None
for _ in range(repeat):
    out = os.open(label + ".out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    err = os.open(label + ".err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    acts = [(os.POSIX_SPAWN_DUP2, out, 1), (os.POSIX_SPAWN_DUP2, err, 2)]
    t0 = time.monotonic()
    pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=acts)
    _, status, _ = os.wait4(pid, 0)
    t = time.monotonic() - t0
    os.close(out)
    os.close(err)
    if status != 0:
        sys.stderr.write("readers.sh: %s failed:\n" % label)
        sys.stderr.write(open(label + ".err").read())
        sys.exit(1)
    best = t if best is None else min(best, t)
print("%s %.4f" % (label, best), end=" ")
PY
  /usr/bin/time -f %M -o "$label.rss" "$@" >/dev/null 2>&1 || { echo "readers.sh: $label failed" >&2; exit 1; }
  kb=$(tail -1 "$label.rss")
  echo $(( (kb + 1023) / 1024 ))
}

log=$(write_log "$CALLS" 0)
events=$(( CALLS * 2 ))
size=$(stat -c %s "$log")
echo "log: $log, $events events, $(( size / 1048576 )) MiB" >&2
results=$(
  timed llvm-convert "$LLVM_XRAY" convert -instr_map=./loop -symbolize \
    -output-format=trace_event -output=trace.json "$log"
  timed xrayctl-perfetto "$XRAYCTL" convert "$log" -m ./loop --to perfetto -o trace.pftrace
  timed xrayctl-chrome "$XRAYCTL" convert "$log" -m ./loop --to chrome -o trace2.json
  timed llvm-account "$LLVM_XRAY" account -instr_map=./loop "$log"
  timed xrayctl-report "$XRAYCTL" report "$log" -m ./loop
)
echo "$results" | awk -v ev="$events" '
  { t[$1] = $2; m[$1] = $3; order[NR] = $1 }
  END {
    printf "%-18s %10s %10s %12s\n", "command", "seconds", "max RSS MB", "ratio"
    for (i = 1; i <= NR; i++) {
      k = order[i]; r = ""
      if (k ~ /^xrayctl-(perfetto|chrome)$/ && t[k] > 0)
        r = sprintf("%.0fx", t["llvm-convert"] / t[k])
      if (k == "xrayctl-report" && t[k] > 0)
        r = sprintf("%.0fx", t["llvm-account"] / t[k])
      printf "%-18s %10.4f %10d %12s\n", k, t[k], m[k], r
    }
  }'
echo "sizes: trace.json $(stat -c %s trace.json) B, trace.pftrace $(stat -c %s trace.pftrace) B" \
  "($(awk -v b="$(stat -c %s trace.pftrace)" -v e="$events" 'BEGIN{printf "%.2f", b/e}') B/event)," \
  "xrayctl's trace2.json $(stat -c %s trace2.json) B"

if [ "$BIG_GB" != 0 ]; then
  big_calls=$(( BIG_GB * 1073741824 / 16 ))
  rm -f trace.json trace2.json trace.pftrace
  log=$(write_log "$big_calls" 1)
  size=$(stat -c %s "$log")
  echo "big log: $log, $(( size / 1048576 )) MiB" >&2
  timed big-report "$XRAYCTL" report "$log" -m ./loop
  timed big-perfetto "$XRAYCTL" convert "$log" -m ./loop --to perfetto -o big.pftrace
  rm -f big.pftrace
  timed big-folded "$XRAYCTL" convert "$log" -m ./loop --to folded -o big.folded
fi
