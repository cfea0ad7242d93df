#!/usr/bin/env bash
# AArch64 instructions per call (entry + exit) under qemu-aarch64, ours and
# compiler-rt 14's AArch64 runtime, for docs/performance.md ("AArch64:
# instructions per event"): timings under emulation mean nothing, counts do.
#
#   test/bench/aarch64_insns.sh --lib build-aarch64/lib/libxray.a
#
# Method: aarch64_insns.c built with clang 14 -O2 -no-pie against each
# runtime, run under `qemu-aarch64 -singlestep -d exec,nochain` (one log
# line per executed user-space instruction; a system call counts as one),
# once with n = 1000 and once with n = 2000 calls; figure = the difference
# / 1000, so start-up, flushes and exit cancel. Twice: with SVE (qemu's
# default CPU, 512-bit vectors) and without (-cpu max,sve=off). The modes
# run with func_duration_threshold_us=0 (every call kept: deterministic).
# Needs clang-14, qemu-aarch64, Debian's arm64 cross libc and
# libclang-rt-14-dev:arm64.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
LIB=${XRAY_LIB:-}
while [ $# -gt 0 ]; do
  case $1 in
  --lib) LIB=$2; shift 2 ;;
  *) echo "usage: $0 --lib PATH/libxray.a (built for AArch64)" >&2; exit 2 ;;
  esac
done
[[ -n $LIB && -f $LIB ]] || { echo "$0: --lib names no file" >&2; exit 2; }
SYSROOT=${XRAY_AARCH64_SYSROOT:-/usr/aarch64-linux-gnu}
CC=(clang-14 --target=aarch64-linux-gnu -O2 -no-pie -fxray-instrument -fxray-instruction-threshold=1 -I"$ROOT/include")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${CC[@]}" -fnoxray-link-deps "$HERE/aarch64_insns.c" -o "$work/ours" \
  -Wl,--whole-archive "$LIB" -Wl,--no-whole-archive -lpthread
# without -fnoxray-link-deps the driver links compiler-rt's runtime whole
"${CC[@]}" -fxray-modes=xray-basic,xray-fdr,xray-profiling "$HERE/aarch64_insns.c" -o "$work/crt" -lpthread

count() { # CPU BIN N SCENARIO: instructions executed
  local cpu; read -ra cpu <<<"$1" # "-cpu max,sve=off" or none
  (cd "$work" && rm -f xray-log.* &&
   qemu-aarch64 "${cpu[@]}" -L "$SYSROOT" -E LD_LIBRARY_PATH="$SYSROOT/lib" -singlestep -d exec,nochain \
     -D trace.log "./$2" "$3" "$4" func_duration_threshold_us=0 >/dev/null 2>&1 &&
   grep -c '^Trace' trace.log && rm -f trace.log)
}
per_call() { # CPU BIN SCENARIO
  local a b
  a=$(count "$1" "$2" 1000 "$3") b=$(count "$1" "$2" 2000 "$3")
  awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", (b - a) / 1000 }'
}
echo "| scenario | ours, no SVE | ours, SVE | compiler-rt 14, no SVE | compiler-rt 14, SVE |"
echo "|---|---|---|---|---|"
for s in unpatched none noop xray-basic xray-fdr xray-profiling; do
  printf '| %s | %s | %s | %s | %s |\n' "$s" \
    "$(per_call "-cpu max,sve=off" ours $s)" "$(per_call "" ours $s)" \
    "$(per_call "-cpu max,sve=off" crt $s)" "$(per_call "" crt $s)"
done
