#!/usr/bin/env bash
# From a fresh clone to a picture of where the time went:
#   1. builds and installs the runtime (cmake),
#   2. builds docs/examples/calc.c instrumented, linked with it (pkg-config),
#   3. traces it in FDR mode: the XRay log and a native Perfetto trace,
#   4. prints the top functions with `xrayctl report` (llvm-xray account's
#      counts and sums, read without llvm-xray),
#   5. converts the log into a Chrome trace with `xrayctl convert`,
#   6. profiles it in profiling mode and prints our report, with a
#      flame-graph-ready folded file and a pprof profile,
#   7. starts calc in the background with xray_control=true (nothing traced)
#      and records two seconds of it from outside with `xrayctl record`.
# Everything goes to build/demo/ (override with XRAY_DEMO_DIR).
# XRAY_DEMO_CMAKE_ARGS adds arguments to the runtime's configure (e.g. a
# toolchain file); XRAYCTL names the xrayctl to run (default: the one
# installed in step 1). test/integration/package/demo.sh uses both to run
# the demo cross-built for AArch64 under qemu.
# Needs: cmake, make, a C compiler, clang and llvm-xray (Debian: apt-get
# install cmake build-essential clang llvm).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${XRAY_DEMO_DIR:-$ROOT/build/demo}
RESULTS=$OUT/results
START=$SECONDS
STEPS=7
step() { printf '\n[%d/%d %3ds] %s\n' "$1" $STEPS $((SECONDS - START)) "$2"; }
die() { echo "demo: $*" >&2; exit 1; }
# first_tool NAME...: the first of these commands found on PATH
first_tool() {
  local t
  for t in "$@"; do command -v "$t" >/dev/null 2>&1 && { command -v "$t"; return; }; done
  return 1
}
# first_not REGEX FILE...: the first of the files a glob matched whose name
# REGEX does not match (nothing when none is left)
first_not() {
  local re=$1 f; shift
  for f in "$@"; do
    [ -e "$f" ] && [[ ! $f =~ $re ]] && { echo "$f"; break; }
  done
  return 0
}

CMAKE=$(first_tool cmake) || die "cmake not found (Debian: apt-get install cmake)"
CLANG=${CLANG:-$(first_tool clang clang-14 clang-19 clang-16 clang-13)} ||
  die "clang not found (Debian: apt-get install clang): gcc cannot build XRay-instrumented code"
LLVM_XRAY=${LLVM_XRAY:-$(first_tool llvm-xray llvm-xray-14 llvm-xray-19 llvm-xray-16)} ||
  die "llvm-xray not found (Debian: apt-get install llvm)"
JOBS=${JOBS:-2}

rm -rf "$RESULTS"
mkdir -p "$RESULTS"

step 1 "Building the runtime (libxray.a) in $OUT/runtime"
read -ra DEMO_CMAKE_ARGS <<<"${XRAY_DEMO_CMAKE_ARGS:-}" # split on blanks
"$CMAKE" -S "$ROOT" -B "$OUT/runtime" -DCMAKE_BUILD_TYPE=Release -DXRAY_BUILD_TESTS=OFF \
  -DCMAKE_C_COMPILER="$CLANG" "${DEMO_CMAKE_ARGS[@]}" >"$OUT/cmake-configure.log" 2>&1 ||
  { cat "$OUT/cmake-configure.log" >&2; die "cmake configure failed"; }
"$CMAKE" --build "$OUT/runtime" -j"$JOBS" 2>&1 | sed -n 's/^\[ *\([0-9]*%\)\].*/  \1/p' | tr '\n' ' '
[ "${PIPESTATUS[0]}" -eq 0 ] || die "build failed: run cmake --build $OUT/runtime to see why"
echo
"$CMAKE" --install "$OUT/runtime" --prefix "$OUT/prefix" >"$OUT/install.log" ||
  die "install failed (see $OUT/install.log)"
echo "  installed into $OUT/prefix"

step 2 "Building the instrumented demo program (docs/examples/calc.c)"
# -fxray-instruction-threshold=1 instruments even tiny functions, so the
# picture shows every step of the parser.
if command -v pkg-config >/dev/null 2>&1; then
  export PKG_CONFIG_PATH="$OUT/prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  XRAY_FLAGS=$(pkg-config --cflags --libs xray)
  NO_DEPS=$(pkg-config --variable=xray_no_link_deps xray)
  # The .pc file carries the spelling of the clang seen at configure time;
  # this clang is that one, so the flags can be used as they are.
  echo "  $CLANG -O2 -g -fxray-instruction-threshold=1 \$(pkg-config --cflags --libs xray) calc.c -o calc"
else
  NO_DEPS=-fnoxray-link-deps
  "$CLANG" -fxray-instrument "$NO_DEPS" "-###" -x c /dev/null -o /dev/null >/dev/null 2>&1 ||
    NO_DEPS=-fno-xray-link-deps
  XRAY_FLAGS="-I$OUT/prefix/include -fxray-instrument $NO_DEPS -Wl,--whole-archive $OUT/prefix/lib/libxray.a -Wl,--no-whole-archive -lpthread"
  echo "  $CLANG -O2 -g -fxray-instruction-threshold=1 $XRAY_FLAGS calc.c -o calc"
fi
# shellcheck disable=SC2086  # XRAY_FLAGS: a list of flags, split on purpose
"$CLANG" -O2 -g -fxray-instruction-threshold=1 $XRAY_FLAGS "$ROOT/docs/examples/calc.c" \
  -o "$OUT/calc" || die "could not build calc"
FUNCS=$("$LLVM_XRAY" extract "$OUT/calc" | grep -c 'kind: function-enter' || true)
echo "  $OUT/calc: $FUNCS instrumented functions"

step 3 "Tracing calc in FDR mode (every call, 2 threads x 300 expressions)"
# patch_premain=true: patch before main; the mode is initialised from
# XRAY_FDR_OPTIONS and its log written at exit. Threshold 0 keeps every call.
# trace_output=xray+perfetto: the log for llvm-xray and xrayctl, and
# <log>.pftrace beside it for Perfetto.
XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr xray_logfile_base=$RESULTS/fdr-" \
XRAY_FDR_OPTIONS="func_duration_threshold_us=0 buffer_size=1048576 buffer_max=16 trace_output=xray+perfetto" \
  "$OUT/calc" 300 2
FDR_LOG=$(first_not '\.(json|pftrace)$' "$RESULTS"/fdr-calc.*)
[ -n "$FDR_LOG" ] || die "no FDR log was written in $RESULTS"
FDR_PFTRACE="$FDR_LOG.pftrace"
[ -f "$FDR_PFTRACE" ] || die "no $FDR_PFTRACE was written"
echo "  trace: $FDR_LOG ($(stat -c %s "$FDR_LOG") bytes)"
echo "  timeline: $FDR_PFTRACE ($(stat -c %s "$FDR_PFTRACE") bytes, Perfetto's own format)"

XRAYCTL=${XRAYCTL:-$OUT/prefix/bin/xrayctl}
step 4 "Top functions by total time (xrayctl report)"
echo "  \$ xrayctl report $(basename "$FDR_LOG") -m calc --top 12"
"$XRAYCTL" report "$FDR_LOG" -m "$OUT/calc" --top 12 >"$RESULTS/report.txt" ||
  die "xrayctl report failed"
cat "$RESULTS/report.txt"

step 5 "The same trace as Chrome trace JSON (xrayctl convert)"
FDR_JSON="$RESULTS/timeline.json"
echo "  \$ xrayctl convert $(basename "$FDR_LOG") -m calc --to chrome -o timeline.json"
"$XRAYCTL" convert "$FDR_LOG" -m "$OUT/calc" --to chrome -o "$FDR_JSON" ||
  die "xrayctl convert failed"
echo "  $FDR_JSON: $(stat -c %s "$FDR_JSON") bytes, against $(stat -c %s "$FDR_PFTRACE") for the .pftrace"
head -c 300 "$FDR_JSON"; echo " ..."

step 6 "Profiling calc (profiling mode, 2 threads x 3000 expressions)"
# profiling_output: the binary profile plus folded stacks, the report and a
# pprof profile.
XRAY_OPTIONS="patch_premain=true xray_mode=xray-profiling xray_logfile_base=$RESULTS/profile-" \
XRAY_PROFILING_OPTIONS="profiling_output=xray+folded+report+pprof report_top=15" \
  "$OUT/calc" 3000 2
PROFILE=$(first_not '\.(folded|txt|pb)$' "$RESULTS"/profile-calc.*)
[ -n "$PROFILE" ] || die "no profile was written in $RESULTS"
REPORT=$(first_not '^$' "$RESULTS"/profile-calc.*.txt)
FOLDED=$(first_not '^$' "$RESULTS"/profile-calc.*.folded)
PPROF=$(first_not '^$' "$RESULTS"/profile-calc.*.pb)
[[ -n $REPORT && -n $FOLDED && -n $PPROF ]] ||
  die "the profile's report, folded or pprof file is missing"
cat "$REPORT"

step 7 "Steering a running calc from outside (xrayctl record, docs/control.md)"
# xray_control=true: nothing is patched and no mode runs until xrayctl asks.
CTL_DIR=$OUT/control
rm -rf "$CTL_DIR"
XRAY_OPTIONS="xray_control=true xray_control_dir=$CTL_DIR xray_logfile_base=$RESULTS/record-" \
  "$OUT/calc" 100000000 2 >/dev/null &
CALC=$!
# Wait until calc answers `xrayctl list` (60 s at most: a loaded machine,
# an emulator): then `record` reaches it.
answers() { XRAYCTL_DIR=$CTL_DIR "$XRAYCTL" list 2>/dev/null | grep "^$CALC " >/dev/null; }
deadline=$((SECONDS + 60))
until answers; do
  kill -0 "$CALC" 2>/dev/null || die "calc ended before it could be controlled"
  [ $SECONDS -lt $deadline ] || { kill "$CALC"; die "calc did not answer on $CTL_DIR/$CALC.sock within 60 s"; }
  sleep 0.1
done
echo "  \$ xrayctl list"
XRAYCTL_DIR=$CTL_DIR "$XRAYCTL" list | sed 's/^/  /'
echo "  \$ xrayctl record $CALC --seconds 2 --mode fdr -o $RESULTS/record.pftrace"
XRAYCTL_DIR=$CTL_DIR "$XRAYCTL" record "$CALC" --seconds 2 --mode fdr -o "$RESULTS/record.pftrace" |
  sed 's/^/  /' || { kill "$CALC"; die "xrayctl record failed"; }
echo "  \$ xrayctl list    (calc runs on, unpatched, as before)"
XRAYCTL_DIR=$CTL_DIR "$XRAYCTL" list | sed 's/^/  /'
kill "$CALC"; wait "$CALC" 2>/dev/null || true
RECORD_LOG=$(first_not '\.(json|pftrace)$' "$RESULTS"/record-calc.*)
[ -n "$RECORD_LOG" ] || die "xrayctl record wrote no log"

cat <<EOF

Done in $((SECONDS - START)) s. Your files, in $RESULTS:

  $(basename "$FDR_LOG")
      the FDR trace (binary, XRay FDR format). Read it with xrayctl or llvm-xray:
        $XRAYCTL report $FDR_LOG -m $OUT/calc --sort self
        $LLVM_XRAY graph $FDR_LOG -m $OUT/calc -o calls.dot
  $(basename "$FDR_PFTRACE")
      the same trace as a timeline (a native Perfetto trace), one slice per
      call, one track per thread. Open it:
        open https://ui.perfetto.dev and drop $FDR_PFTRACE on it
  report.txt
      the table above.
  $(basename "$FDR_JSON")
      the timeline as Chrome trace events (JSON: larger, for other viewers).
  $(basename "$PROFILE")
      the profile (binary: per-thread call trees with counts and times).
EOF
cat <<EOF
  $(basename "$REPORT")
      our profiling report (text), printed above.
  $(basename "$FOLDED")
      folded stacks ("run_worker;check_one;parse;parse_sum 1234" per line: the
      time in ns spent in the last function of that path) for flame graphs:
        flamegraph.pl $FOLDED > calc.svg      (github.com/brendangregg/FlameGraph)
      or drop it on https://www.speedscope.app
  $(basename "$PPROF")
      the same profile for pprof (calls and local time per call path):
        go tool pprof -http=localhost:8080 $PPROF   (View > Flame Graph)
        go tool pprof -top $PPROF
  $(basename "$RECORD_LOG"), record.pftrace
      two seconds of the running calc, recorded from outside by xrayctl
      (FDR log, and its Perfetto trace).
EOF
