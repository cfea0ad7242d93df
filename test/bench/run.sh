#!/usr/bin/env bash
# The benchmark: our libxray.a against compiler-rt's XRay runtime, on the very
# same instrumented object files. See test/bench/README.md and
# docs/performance.md for the method; `run.sh --help` for the options.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

usage() {
  cat <<'EOF'
usage: test/bench/run.sh [options]

Builds the benchmark programs once, links the same objects with our runtime
("ours") and with compiler-rt's ("crt"), runs both interleaved in fresh
processes, checks that every run recorded every event, and prints per
scenario both medians, the ratio ours/crt, the spread and the target.

  --quick            10x fewer calls, 3 runs: a smoke test (figures noisy)
  --runs N           runs per side and scenario (default 7)
  --scenario NAME    only this scenario; repeat or comma-separate for several.
                     Names: unpatched noop basic fdr fdr-default profiling
                     patch fdr-2t events fdr-events floor (default: all of
                     these), and the diagnostic
                     noop-stack (no-op handler with the caller's stack moved
                     by 0/16/32/48 bytes: alignment-sensitive trampolines)
  --check-only       run each scenario once per side with few calls and
                     check event counts (plus llvm-xray and W^X checks);
                     no timing. Exit status 1 if a check of ours failed.
  --no-callgrind     skip the callgrind instruction counts
  --slow-faults US   simulate a VM with costly page faults: every run is
                     started with slow_faults.so preloaded, which makes each
                     first touch of our runtime's large anonymous mappings
                     (the FDR buffers) wait US microseconds (userfaultfd;
                     compiler-rt maps with raw system calls and is not
                     slowed: compare ours before/after, not ours/crt)
  --profile          also print, per scenario and side, where the timed
                     loop's instructions go (callgrind self cost per
                     function, per event)
  --lib PATH         our libxray.a (default: $XRAY_LIB, else built with
                     cmake into WORK/runtime)
  --crt-dir DIR      compiler-rt's lib dir (default:
                     $(clang -print-resource-dir)/lib/linux)
  --work DIR         build and scratch directory (default: build-bench/)
  --logs DIR         where the runs write their logs (default: a fresh
                     directory on /dev/shm, else in $TMPDIR; removed at the
                     end)
  -h, --help         this text

Environment: XRAY_CLANG (default clang), LLVM_XRAY (default llvm-xray).
EOF
}

RUNS=7
QUICK=0
CHECK_ONLY=0
CALLGRIND=1
PROFILE=0
SCENARIOS=()
LIB=${XRAY_LIB:-}
CRT_DIR=
WORK=$ROOT/build-bench
LOGS=
SLOW_FAULTS=
while [ $# -gt 0 ]; do
  case $1 in
    --quick) QUICK=1; RUNS=3 ;;
    --runs) RUNS=$2; shift ;;
    --scenario) IFS=, read -r -a more <<<"$2"; SCENARIOS+=("${more[@]}"); shift ;;
    --check-only) CHECK_ONLY=1 ;;
    --no-callgrind) CALLGRIND=0 ;;
    --slow-faults) SLOW_FAULTS=$2; CALLGRIND=0; shift ;;
    --profile) PROFILE=1 ;;
    --lib) LIB=$2; shift ;;
    --crt-dir) CRT_DIR=$2; shift ;;
    --work) WORK=$2; shift ;;
    --logs) LOGS=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

ALL_SCENARIOS=(unpatched noop basic fdr fdr-default profiling patch fdr-2t events fdr-events floor)
[ ${#SCENARIOS[@]} -gt 0 ] || SCENARIOS=("${ALL_SCENARIOS[@]}")
for s in "${SCENARIOS[@]}"; do
  [[ " ${ALL_SCENARIOS[*]} noop-stack " == *" $s "* ]] || { echo "run.sh: unknown scenario $s" >&2; exit 2; }
done

CLANG=${XRAY_CLANG:-clang}
LLVM_XRAY=${LLVM_XRAY:-llvm-xray}
command -v "$CLANG" >/dev/null || { echo "run.sh: $CLANG not found" >&2; exit 2; }
[ -n "$CRT_DIR" ] || CRT_DIR=$("$CLANG" -print-resource-dir)/lib/linux
say() { echo "run.sh: $*" >&2; }

# ---------------------------------------------------------------- calls
# Calls per run, per scenario (for fdr-2t: per thread).
calls_for() {
  local full
  case $1 in
    unpatched) full=20000000 ;;
    noop) full=5000000 ;;
    noop-stack) full=4000000 ;;
    basic) full=500000 ;;
    fdr) full=1000000 ;; # 16 MiB of log: flush time grows with it
    fdr-default) echo 90000; return ;; # 9/10 of the default buffers, always
    fdr-2t) full=1000000 ;;
    profiling) full=300000 ;;
    events) full=5000000 ;;
    fdr-events) full=1000000 ;;
    floor) full=2000000 ;;
    *) full=0 ;;
  esac
  if [ $CHECK_ONLY = 1 ]; then echo $(( full > 0 ? 10000 : 0 ))
  elif [ $QUICK = 1 ]; then echo $(( full / 10 ))
  else echo $full; fi
}
# The metrics a scenario prints, and each metric's target (ours/crt).
metrics_for() {
  case $1 in
    unpatched) echo "unpatched noxray" ;;
    fdr) echo "fdr fdr-mean fdr-mean-cpu fdr-init fdr-flush fdr-flush-faults fdr-flush-write1 fdr-flush-per-write" ;;
    fdr-default) echo "fdr-flush-default" ;;
    patch) echo "patch repatch unpatch" ;;
    noop-stack) echo "noop-stack+0 noop-stack+16 noop-stack+32 noop-stack+48" ;;
    events) echo "event-custom event-typed" ;;
    fdr-events) echo "fdr-custom" ;;
    floor) echo "floor-call floor-rdtsc floor-rdtscp floor-clock_gettime floor-gettid floor-fdr-pair-rdtsc floor-fdr-pair-rdtscp floor-pushfq-popfq floor-fnstsw floor-save-8ymm floor-save-8xmm floor-read-proc-maps floor-tramp-none floor-tramp-gpr floor-tramp-gpr-xmm floor-tramp-gpr-ymm floor-tramp-gpr-ymm-flags floor-write-16MiB" ;;
    *) echo "$1" ;;
  esac
}
target_for() {
  case $1 in
    unpatched) echo 1.02 ;;
    noop) echo 0.50 ;;
    basic) echo 0.10 ;;
    fdr|fdr-2t) echo 0.15 ;; # fdr-mean: shown, no target (see README)
    fdr-flush|fdr-flush-default) echo 0.05 ;;
    profiling) echo 0.30 ;;
    patch|repatch|unpatch) echo 1.00 ;;
    *) echo - ;;
  esac
}

# ---------------------------------------------------------------- build
mkdir -p "$WORK/obj"
OBJ=$WORK/obj
if [ -z "$LIB" ]; then
  say "building our runtime with cmake in $WORK/runtime"
  if cmake -S "$ROOT" -B "$WORK/runtime" -DCMAKE_BUILD_TYPE=Release -DXRAY_BUILD_TESTS=OFF >"$WORK/cmake.log" 2>&1 &&
     cmake --build "$WORK/runtime" -j2 --target xray >>"$WORK/cmake.log" 2>&1; then
    LIB=$WORK/runtime/lib/libxray.a
  else
    say "our runtime did not build (see $WORK/cmake.log); measuring compiler-rt only"
  fi
fi
CRT_ARCHIVES=()
for a in xray xray-basic xray-fdr xray-profiling; do
  f=$CRT_DIR/libclang_rt.$a-x86_64.a
  if [ -f "$f" ]; then CRT_ARCHIVES+=("$f"); else say "missing $f"; fi
done

CFLAGS=(-O2 -gdwarf-4) # valgrind 3.19 cannot read DWARF 5
XFLAGS=(-fxray-instrument -fxray-instruction-threshold=1)
# Objects are compiled once; only the link differs between the two sides.
say "compiling the benchmark objects in $OBJ"
"$CLANG" "${CFLAGS[@]}" "${XFLAGS[@]}" -c "$HERE/bench_fn.c" -o "$OBJ/bench_fn.o"
"$CLANG" "${CFLAGS[@]}" -DBENCH_PLAIN -c "$HERE/bench_fn.c" -o "$OBJ/bench_fn_plain.o"
"$CLANG" "${CFLAGS[@]}" -I"$ROOT/include" -c "$HERE/bench_main.c" -o "$OBJ/bench_main.o"
"$CLANG" "${CFLAGS[@]}" -I"$ROOT/include" -c "$HERE/bench_patch.c" -o "$OBJ/bench_patch.o"
"$CLANG" "${CFLAGS[@]}" "${XFLAGS[@]}" -fxray-always-emit-customevents -fxray-always-emit-typedevents \
  -c "$HERE/bench_events_fn.c" -o "$OBJ/bench_events_fn.o"
"$CLANG" "${CFLAGS[@]}" -I"$ROOT/include" -c "$HERE/bench_events.c" -o "$OBJ/bench_events.o"
"$CLANG" -O2 -o "$OBJ/xray_count" "$HERE/xray_count.c"
"$CLANG" -O2 -o "$OBJ/bench_floor" "$HERE/bench_floor.c"
if [ -n "$SLOW_FAULTS" ]; then
  "$CLANG" -O2 -shared -fPIC -o "$OBJ/slow_faults.so" "$HERE/slow_faults.c" -lpthread
  say "simulated page faults: ${SLOW_FAULTS} us per first touch of our runtime's large mappings"
fi
# 20,000 functions take ~15 s to compile; the correctness check needs fewer.
MANY=20000
[ $CHECK_ONLY = 1 ] && MANY=2000
MANY_O=$OBJ/many-$MANY.o
if [ ! -f "$MANY_O" ] || [ "$HERE/run.sh" -nt "$MANY_O" ]; then
  say "generating and compiling $MANY instrumented functions"
  awk -v n=$MANY 'BEGIN {
    print "/* generated by test/bench/run.sh */"
    for (i = 0; i < n; i++)
      printf "__attribute__((noinline, xray_always_instrument)) int many_%d(int x) { return x + %d; }\n", i, i
    print "int (*const many_table[])(int) = {"
    for (i = 0; i < n; i++) printf "  many_%d,\n", i
    print "};"
    printf "const int many_count = %d;\n", n
  }' >"$OBJ/many-$MANY.c"
  "$CLANG" -O1 "${XFLAGS[@]}" -c "$OBJ/many-$MANY.c" -o "$MANY_O"
fi

# link SIDE OUT OBJECTS...: the same objects, with one runtime or the other.
link() {
  local side=$1 out=$2; shift 2
  if [ "$side" = ours ]; then
    "$CLANG" -o "$out" "$@" -Wl,--whole-archive "$LIB" -Wl,--no-whole-archive -lpthread
  else
    "$CLANG" -o "$out" "$@" -Wl,--whole-archive "${CRT_ARCHIVES[@]}" -Wl,--no-whole-archive \
      -lpthread -lrt -lm -ldl
  fi
}
SIDES=()
for side in ours crt; do
  [ $side = ours ] && [ -z "$LIB" ] && continue
  if link $side "$OBJ/bench.$side" "$OBJ/bench_main.o" "$OBJ/bench_fn.o" "$OBJ/bench_fn_plain.o" \
       2>"$WORK/link.$side.log" &&
     link $side "$OBJ/patch.$side" "$OBJ/bench_patch.o" "$MANY_O" 2>>"$WORK/link.$side.log" &&
     link $side "$OBJ/events.$side" "$OBJ/bench_events.o" "$OBJ/bench_events_fn.o" \
       2>>"$WORK/link.$side.log"; then
    SIDES+=("$side")
  else
    say "link with $side failed (see $WORK/link.$side.log):"
    head -5 "$WORK/link.$side.log" >&2
  fi
done
[ ${#SIDES[@]} -gt 0 ] || { say "nothing to measure"; exit 1; }

# ---------------------------------------------------------------- runs
if [ -z "$LOGS" ]; then
  # tmpfs, so the figures measure the runtime rather than a disk.
  LOGS=$(mktemp -d /dev/shm/xray-bench.XXXXXX 2>/dev/null || mktemp -d)
  trap 'rm -rf "$LOGS"' EXIT
fi
RESULTS=$WORK/results.txt   # scenario side metric value unit
CHECKS=$WORK/checks.txt     # scenario side ok|FAIL message
NOTES=$WORK/notes.txt       # side: stderr line (distinct)
WX=$WORK/wx.txt             # side, number of PROT_WRITE|PROT_EXEC mprotects
: >"$RESULTS"; : >"$CHECKS"; : >"$NOTES"; : >"$WX"

# run_one SIDE SCENARIO RUN: one fresh process; records metrics and checks.
run_one() {
  local side=$1 sc=$2 r=$3 calls dir prog out rc
  calls=$(calls_for "$sc")
  dir=$LOGS/$sc.$side.$r
  rm -rf "$dir"; mkdir -p "$dir"
  out=$dir/stdout
  local env=(XRAY_OPTIONS="xray_logfile_base=$dir/ verbosity=0")
  case $sc in
    basic) env=(XRAY_OPTIONS="xray_logfile_base=$dir/ verbosity=0 xray_mode=xray-basic"
                XRAY_BASIC_OPTIONS="func_duration_threshold_us=0") ;;
  esac
  [ -z "$SLOW_FAULTS" ] || env+=(LD_PRELOAD="$OBJ/slow_faults.so" SLOW_FAULT_US="$SLOW_FAULTS")
  case $sc in
    floor) prog=("$OBJ/bench_floor" "$calls") ;;
    patch) prog=("$OBJ/patch.$side") ;;
    events|fdr-events) prog=("$OBJ/events.$side" "$sc" "$calls") ;;
    *) prog=("$OBJ/bench.$side" "$sc" "$calls") ;;
  esac
  rc=0
  (cd "$dir" && env "${env[@]}" timeout 300 "${prog[@]}" >"$out" 2>"$dir/stderr") || rc=$?
  sed -e "s/^==[0-9]*==//" "$dir/stderr" | awk -v side="$side" '{ print side ": " $0 }' >>"$NOTES"
  local problems=()
  [ $rc = 0 ] || problems+=("exit status $rc")
  while read -r _ what; do problems+=("$what"); done < <(grep '^F ' "$out" || true)
  if grep -q '^E ' "$out"; then
    local files=("$dir"/*.*) logf=
    for f in "${files[@]}"; do
      case ${f##*/} in stdout|stderr|*.counted) ;; *) [ -f "$f" ] && logf=$f ;; esac
    done
    if [ -z "$logf" ]; then
      problems+=("no log file written")
    elif ! "$OBJ/xray_count" "$logf" >"$dir/stdout.counted" 2>"$dir/count.err"; then
      problems+=("log unreadable: $(head -1 "$dir/count.err")")
    else
      while read -r _ what want; do
        got=$(awk -v w="$what" '$1 == "E" && $2 == w { print $3 }' "$dir/stdout.counted")
        [ "$got" = "$want" ] || problems+=("$what: log has ${got:-none}, expected $want")
      done < <(grep '^E ' "$out")
      [ $CHECK_ONLY = 1 ] && [ "$sc" != profiling ] && check_with_llvm_xray "$side" "$logf" "$out" problems
    fi
    rm -f "$logf"
  fi
  if [ "$sc" = patch ] && [ "$r" = 1 ]; then check_wx "$side" "$dir"; fi
  if [ ${#problems[@]} = 0 ]; then
    # Only runs that passed every check count.
    awk -v sc="$sc" -v side="$side" '$1 == "M" { print sc, side, $2, $3, $4 }' "$out" >>"$RESULTS"
    echo "$sc $side ok" >>"$CHECKS"
  else
    local IFS=';'
    echo "$sc $side FAIL ${problems[*]}" >>"$CHECKS"
  fi
}

# The real tool must agree: llvm-xray convert reads the whole log; count the
# enter and exit records (and custom events) it produced. The events binary
# has typed-event sleds, whose instrumentation map llvm-xray cannot read:
# its log is converted without one (ids, no names: the counts are the same). (`account` is no use here: llvm-xray 14
# stops with "Error processing record" on two-thread FDR logs it can convert.)
check_with_llvm_xray() {
  local side=$1 logf=$2 out=$3
  local -n probs=$4
  command -v "$LLVM_XRAY" >/dev/null || return 0
  local map=(-m "$OBJ/bench.$side")
  [ "$sc" = fdr-events ] && map=()
  if ! "$LLVM_XRAY" convert -f yaml "${map[@]}" "$logf" >"$logf.yaml" 2>"$logf.err"; then
    probs+=("llvm-xray convert failed: $(head -1 "$logf.err")")
  else
    local what want got
    for what in enter exit; do
      want=$(awk -v w=$what '$1 == "E" && $2 == w { print $3 }' "$out")
      got=$(grep -c "kind: function-${what}[,-]" "$logf.yaml" || true)
      [ "$got" = "$want" ] || probs+=("llvm-xray convert: $got function-$what records, expected $want")
    done
    want=$(awk '$1 == "E" && $2 == "custom" { print $3 }' "$out")
    got=$(grep -c "kind: custom-event" "$logf.yaml" || true)
    [ -z "$want" ] || [ "$got" = "$want" ] || probs+=("llvm-xray convert: $got custom events, expected $want")
  fi
  rm -f "$logf.err" "$logf.yaml"
}

# W^X while patching, reported (not a check: "no page left writable and
# executable" is checked by bench_patch itself): how many mprotect calls ask
# for write and execute at once during the 16 patches and 16 unpatches of bench_patch.
check_wx() {
  local side=$1 dir=$2
  command -v strace >/dev/null || return 0
  strace -f -e trace=mprotect -o "$dir/strace" "$OBJ/patch.$side" >/dev/null 2>&1 || true
  echo "$side $(grep -c 'PROT_WRITE|PROT_EXEC' "$dir/strace" || true)" >>"$WX"
}

runs=$RUNS
[ $CHECK_ONLY = 1 ] && runs=1
for sc in "${SCENARIOS[@]}"; do
  sides=("${SIDES[@]}")
  [ "$sc" = floor ] && sides=(floor)
  say "scenario $sc: $runs run(s) per side, $(calls_for "$sc") calls"
  for ((r = 1; r <= runs; r++)); do
    # Alternate which side goes first, so neither always runs on a warmer machine.
    if (( r % 2 == 0 )); then order=$(printf '%s\n' "${sides[@]}" | tac); else order=${sides[*]}; fi
    for side in $order; do run_one "$side" "$sc" "$r"; done
  done
done

# ---------------------------------------------------------------- report
stats() { # values on stdin -> "median min max n"
  sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "- - - 0"; exit }
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    print m, v[1], v[NR], NR }'
}
values() { awk -v s="$1" -v m="$2" '$2 == s && $3 == m { print $4 }' "$RESULTS"; }
unit_of() { awk -v m="$1" '$3 == m { print $5; exit }' "$RESULTS"; }
check_of() { # scenario side -> ok | FAIL | -
  awk -v sc="$1" -v s="$2" '$1 == sc && $2 == s { if ($3 != "ok") bad = 1; seen = 1 }
    END { print seen ? (bad ? "FAIL" : "ok") : "-" }' "$CHECKS"
}

echo
echo "== XRay runtime benchmark: ours / compiler-rt ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, Linux $(uname -r)"
[ -z "$SLOW_FAULTS" ] || echo "SIMULATED: each first touch of our runtime's large mappings waits ${SLOW_FAULTS} us (slow_faults.c); compiler-rt is not slowed"
echo "ours: ${LIB:-not built}"
echo "crt:  $CRT_DIR (${#CRT_ARCHIVES[@]} archives)"
echo "runs per side: $runs, interleaved, fresh process each; figures are medians"
echo
if [ $CHECK_ONLY = 0 ]; then
  printf '%-14s %-9s %10s %10s %7s %7s %-8s %9s %9s %s\n' scenario unit ours crt ratio target verdict "ours±" "crt±" "checks(ours/crt)"
  for sc in "${SCENARIOS[@]}"; do
    [ "$sc" = floor ] && continue
    for m in $(metrics_for "$sc"); do
      read -r om omin omax _ <<<"$(values ours "$m" | stats)"
      read -r cm cmin cmax _ <<<"$(values crt "$m" | stats)"
      t=$(target_for "$m")
      awk -v sc="$m" -v u="$(unit_of "$m")" -v om="$om" -v omin="$omin" -v omax="$omax" \
          -v cm="$cm" -v cmin="$cmin" -v cmax="$cmax" -v t="$t" \
          -v chk="$(check_of "$sc" ours)/$(check_of "$sc" crt)" 'BEGIN {
        ratio = (om != "-" && cm != "-" && cm > 0) ? sprintf("%.3f", om / cm) : "-"
        verdict = (ratio == "-" || t == "-") ? "n/a" : ((ratio + 0 <= t + 0) ? "met" : "NOT met")
        os = (om != "-" && om > 0) ? sprintf("%.1f%%", 50 * (omax - omin) / om) : "-"
        cs = (cm != "-" && cm > 0) ? sprintf("%.1f%%", 50 * (cmax - cmin) / cm) : "-"
        printf "%-14s %-9s %10s %10s %7s %7s %-8s %9s %9s %s\n", sc, u, om, cm, ratio, \
          (t == "-" ? "-" : "<=" t), verdict, os, cs, chk }'
    done
  done
  if [[ " ${SCENARIOS[*]} " == *" floor "* ]]; then
    echo
    echo "floors (plain C loops, no runtime; median of $runs):"
    for m in $(metrics_for floor); do
      read -r fm _ _ _ <<<"$(values floor "$m" | stats)"
      printf '  %-24s %9s %s\n' "$m" "$fm" "$(unit_of "$m")"
    done
  fi
fi

# ---------------------------------------------------------------- callgrind
# Instructions per event, counted only inside the timed loops
# (--toggle-collect=timed_*), from the difference of two call counts so that
# one-time set-up cancels out. User-space instructions only: system calls
# (write, gettid, clock_gettime without vDSO under valgrind) count as one
# instruction each.
callgrind_ir() { # side scenario calls toggle -> total Ir
  local side=$1 sc=$2 calls=$3 toggle=$4 dir
  dir=$LOGS/cg.$sc.$side.$calls.$toggle
  rm -rf "$dir"; mkdir -p "$dir"
  local env=(XRAY_OPTIONS="xray_logfile_base=$dir/ verbosity=0")
  [ "$sc" = basic ] && env=(XRAY_OPTIONS="xray_logfile_base=$dir/ verbosity=0 xray_mode=xray-basic"
                          XRAY_BASIC_OPTIONS="func_duration_threshold_us=0")
  local prog=("$OBJ/bench.$side" "$sc" "$calls")
  [ "$sc" = patch ] && prog=("$OBJ/patch.$side")
  case $sc in events|fdr-events) prog=("$OBJ/events.$side" "$sc" "$calls") ;; esac
  (cd "$dir" && env "${env[@]}" timeout 600 valgrind --tool=callgrind --smc-check=all \
     --collect-atstart=no --toggle-collect="$toggle" --callgrind-out-file="$dir/cg.out" \
     "${prog[@]}" >"$dir/stdout" 2>"$dir/stderr") || true
  # (exit status ignored: under valgrind /proc/self/maps shows valgrind's own
  # rwx mappings, which fails bench_patch's W^X check.)
  [ -f "$dir/cg.out" ] || { echo -; return; }
  [ "$sc" = patch ] || grep -q '^C ok' "$dir/stdout" || { echo -; return; }
  awk '/^(summary|totals):/ { print $2; exit }' "$dir/cg.out"
  [ $PROFILE = 1 ] || rm -rf "$dir"
}
if [ $CALLGRIND = 1 ] && [ $CHECK_ONLY = 0 ] && command -v valgrind >/dev/null; then
  echo
  echo "callgrind: instructions per event in the timed loop ((Ir(2n) - Ir(n)) / events)"
  printf '%-12s %10s %10s %7s\n' scenario ours crt ratio
  n1=20480 # a multiple of the driver's 64 blocks
  [ $QUICK = 1 ] && n1=5120
  for sc in "${SCENARIOS[@]}"; do
    case $sc in floor|noop-stack) continue ;; esac
    for m in $(metrics_for "$sc"); do
      declare -A ir=()
      for side in "${SIDES[@]}"; do
        # A side whose timed runs failed their checks gets no count either.
        [ "$(check_of "$sc" "$side")" = ok ] || { ir[$side]=-; continue; }
        case $m in
          fdr-flush*|fdr-mean*|fdr-init) continue ;;
          repatch) continue ;;
          patch|unpatch) # timed_patch runs 16 times, timed_unpatch 16 times
            ir[$side]=$(callgrind_ir "$side" patch 0 "timed_$m")
            [ "${ir[$side]}" = - ] || ir[$side]=$(( ${ir[$side]} / 16 )) ;;
          *)
            toggle='timed_leaf'; per=2
            case $m in
              unpatched) per=1 ;;
              noxray) toggle='timed_plain'; per=1 ;;
              profiling) toggle='timed_tree'; per=8 ;;
              event-custom|fdr-custom) toggle='timed_custom'; per=1 ;;
              event-typed) toggle='timed_typed'; per=1 ;;
              fdr-2t) per=4 ;; # timed_leaf only: the threads' spinning barrier is not the runtime's
            esac
            a=$(callgrind_ir "$side" "$sc" "$n1" "$toggle")
            b=$(callgrind_ir "$side" "$sc" $((2 * n1)) "$toggle")
            if [ "$a" = - ] || [ "$b" = - ] || [ -z "$a" ] || [ -z "$b" ]; then ir[$side]=-
            else ir[$side]=$(awk -v a="$a" -v b="$b" -v n=$n1 -v p=$per 'BEGIN { printf "%.1f", (b - a) / (n * p) }'); fi ;;
        esac
      done
      case $m in fdr-flush*|fdr-mean*|fdr-init|repatch) continue ;; esac
      awk -v m="$m" -v o="${ir[ours]:--}" -v c="${ir[crt]:--}" 'BEGIN {
        r = (o != "-" && c != "-" && c > 0) ? sprintf("%.3f", o / c) : "-"
        printf "%-12s %10s %10s %7s%s\n", m, o, c, r, (m == "patch" || m == "unpatch" ? "   (Ir per call, 20k functions)" : "") }'
      unset ir
    done
  done
fi

# ---------------------------------------------------------------- profile
# Self instructions per event of each function the timed loop ran, from the
# larger callgrind run of each scenario.
if [ $PROFILE = 1 ] && [ $CALLGRIND = 1 ] && [ $CHECK_ONLY = 0 ] && command -v callgrind_annotate >/dev/null; then
  echo
  echo "where the instructions go (callgrind self Ir per event in the timed loop, $((2 * n1)) calls + 1000 warm-up):"
  for sc in "${SCENARIOS[@]}"; do
    case $sc in floor|patch|noop-stack) continue ;; esac
    per=2
    case $sc in unpatched) per=1 ;; profiling) per=8 ;; fdr-2t) per=4 ;; esac
    for side in "${SIDES[@]}"; do
      f=
      for g in "$LOGS/cg.$sc.$side.$((2 * n1))".timed_*/cg.out; do
        case $g in *timed_plain*) ;; *) f=$g ;; esac
      done
      [[ -n $f && -f $f ]] || continue
      echo "  $sc, $side:"
      callgrind_annotate --inclusive=no "$f" 2>/dev/null |
        awk -v ev=$(((2 * n1 + 1000) * per)) '/file:function/ { on = 1; next }
          on && /^$/ && seen { on = 0 } # read on: exiting early would SIGPIPE the pipe
          on && $1 ~ /^[0-9,]+$/ {
          seen = 1; ir = $1; gsub(",", "", ir); if (ir / ev < 0.5) next
          fn = $0; sub(/^ *[0-9,]+ *\([^)]*\) */, "", fn); sub(/ \[.*$/, "", fn); sub(/^[^ ]*:/, "", fn)
          printf "    %8.1f  %s\n", ir / ev, fn }'
    done
  done
fi

# ---------------------------------------------------------------- checks
echo
echo "checks (every run: exit status, the program's own checks, event counts in the log):"
fail_ours=0
for sc in "${SCENARIOS[@]}"; do
  for side in "${SIDES[@]}" floor; do
    c=$(check_of "$sc" "$side")
    [ "$c" = - ] && continue
    if [ "$c" = ok ]; then
      printf '  %-10s %-5s ok (%s run(s))\n' "$sc" "$side" "$(awk -v sc="$sc" -v s="$side" '$1 == sc && $2 == s' "$CHECKS" | wc -l)"
    else
      awk -v sc="$sc" -v s="$side" '$1 == sc && $2 == s && $3 != "ok" { $1 = $2 = $3 = ""; print }' "$CHECKS" |
        sort | uniq -c | sed "s/^/  $sc $side FAIL: /"
      [ "$side" = ours ] && fail_ours=1
    fi
  done
done
if [ -s "$WX" ]; then
  echo
  echo "W^X: mprotect calls asking for PROT_WRITE|PROT_EXEC during 16 patches + 16 unpatches of $MANY functions (strace):"
  awk '{ printf "  %-5s %s\n", $1, $2 }' "$WX"
fi
if [ -s "$NOTES" ]; then
  echo
  echo "stderr of the runs (distinct lines, count):"
  sort "$NOTES" | uniq -c | sort -rn | awk 'NR <= 20 { print "  " $0 }'
fi
exit $fail_ours
