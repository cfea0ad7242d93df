#!/usr/bin/env bash
# The overhead budget on a real program: Lua 5.4.4, every function
# instrumented (threshold 1), running test/bench/budget.lua. Wall time of
# each mode with every function patched and with xray_budget, against the
# same binary unpatched; compiler-rt's runtime on the same objects for
# reference; how many functions the budget leaves traced and when it
# settles; and whether the budget's profile keeps the functions that matter.
# Method: test/bench/README.md ("The overhead budget"); figures:
# docs/performance.md ("Overhead budget").
set -euo pipefail
export LC_ALL=C # EPOCHREALTIME and awk's numbers with a '.'

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

usage() {
  cat <<'EOF'
usage: test/bench/budget.sh [options]

Downloads Lua 5.4.4's source from Debian (checked against its sha256, kept
in the work directory), builds it with every function instrumented, links
it with our libxray.a and with compiler-rt's, and runs test/bench/budget.lua
in fresh processes, the rows of one run interleaved (the order reversed
every other run). Prints each row's median wall (and CPU) time over that of
the same binary unpatched at the same work; how the budget settles (its
exit summary, the <log>.culled sidecar, one stamped run per mode at
verbosity=2); and the profile comparison: the functions at 1 % or more of
the run with every function patched, whether the budget keeps them traced
and their inclusive times.

  --runs N           runs per row (default 5)
  --quick            one run, --rounds 100: a smoke test (figures noisy,
                     the budget has little time to settle)
  --rounds N         the script's rounds for the budget rows and the
                     profile comparison (default 800: about 6 s unpatched
                     on an Intel Xeon VM)
  --full-rounds N    rounds for the every-function-patched rows, ours and
                     compiler-rt's (default rounds/10: compiler-rt's basic
                     mode runs about 65 times longer than unpatched)
  --compare-runs N   runs of profiling with every function patched at
                     --rounds, for the profile comparison (default 3, at
                     most --runs; 0: no comparison)
  --budget PCT       the xray_budget value (default 2)
  --modes LIST       comma-separated: basic,fdr,profiling (default all)
  --no-crt           leave out compiler-rt's rows
  --no-budget        leave out the budget's rows and the profile
                     comparison (the every-function rows only)
  --lib PATH         our libxray.a (default: $XRAY_LIB, else built with
                     cmake into WORK/runtime)
  --tarball PATH     lua5.4_5.4.4.orig.tar.gz already downloaded (it is
                     checked and copied into the work directory)
  --work DIR         build directory, tarball cache, results (default
                     build-bench/budget)
  --logs DIR         where the runs write (default: a fresh directory on
                     /dev/shm, else in $TMPDIR; removed at the end)
  -h, --help         this text

Environment: XRAY_CLANG (default clang), LLVM_XRAY (default llvm-xray).
Exit status 1 when a run of ours failed (exit status, checksum); targets
and the profile comparison are verdicts in the output, not the status.
EOF
}

RUNS=5
QUICK=0
ROUNDS=800
FULL_ROUNDS=
COMPARE_RUNS=3
BUDGET=2
MODES=(basic fdr profiling)
CRT=1
WITH_BUDGET=1
LIB=${XRAY_LIB:-}
TARBALL=
WORK=$ROOT/build-bench/budget
LOGS=
while [ $# -gt 0 ]; do
  case $1 in
    --runs) RUNS=$2; shift ;;
    --quick) QUICK=1 ;;
    --rounds) ROUNDS=$2; shift ;;
    --full-rounds) FULL_ROUNDS=$2; shift ;;
    --compare-runs) COMPARE_RUNS=$2; shift ;;
    --budget) BUDGET=$2; shift ;;
    --modes) IFS=, read -r -a MODES <<<"$2"; shift ;;
    --no-crt) CRT=0 ;;
    --no-budget) WITH_BUDGET=0 ;;
    --lib) LIB=$2; shift ;;
    --tarball) TARBALL=$2; shift ;;
    --work) WORK=$2; shift ;;
    --logs) LOGS=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "budget.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
if [ $QUICK = 1 ]; then RUNS=1; ROUNDS=100; fi
[ -n "$FULL_ROUNDS" ] || FULL_ROUNDS=$(( ROUNDS / 10 > 0 ? ROUNDS / 10 : 1 ))
(( COMPARE_RUNS <= RUNS )) || COMPARE_RUNS=$RUNS
for m in "${MODES[@]}"; do
  case $m in basic|fdr|profiling) ;; *) echo "budget.sh: unknown mode $m" >&2; exit 2 ;; esac
done
has_mode() { [[ " ${MODES[*]} " == *" $1 "* ]]; }

CLANG=${XRAY_CLANG:-clang}
LLVM_XRAY=${LLVM_XRAY:-llvm-xray}
command -v "$CLANG" >/dev/null || { echo "budget.sh: $CLANG not found" >&2; exit 2; }
say() { echo "budget.sh: $*" >&2; }
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

# ---------------------------------------------------------------- Lua's source
LUA_TGZ=lua5.4_5.4.4.orig.tar.gz
LUA_URL=http://deb.debian.org/debian/pool/main/l/lua5.4/$LUA_TGZ
LUA_SHA256=164c7849653b80ae67bec4b7473b884bf5cc8d2dca05653475ec2ed27b9ebf61
if [ -n "$TARBALL" ]; then
  cp "$TARBALL" "$WORK/$LUA_TGZ.part"
  mv "$WORK/$LUA_TGZ.part" "$WORK/$LUA_TGZ"
elif [ ! -f "$WORK/$LUA_TGZ" ]; then
  say "downloading $LUA_URL"
  if command -v curl >/dev/null; then
    curl -sSfL -o "$WORK/$LUA_TGZ.part" "$LUA_URL"
  else
    wget -q -O "$WORK/$LUA_TGZ.part" "$LUA_URL"
  fi
  mv "$WORK/$LUA_TGZ.part" "$WORK/$LUA_TGZ"
fi
if ! echo "$LUA_SHA256  $WORK/$LUA_TGZ" | sha256sum -c --quiet - >/dev/null 2>&1; then
  say "$WORK/$LUA_TGZ: sha256 is not $LUA_SHA256 (removed; run again to download)"
  rm -f "$WORK/$LUA_TGZ"
  exit 1
fi

# ---------------------------------------------------------------- builds
if [ -z "$LIB" ]; then
  say "building our runtime in $WORK/runtime"
  if ! { cmake -S "$ROOT" -B "$WORK/runtime" -DCMAKE_BUILD_TYPE=Release -DXRAY_BUILD_TESTS=OFF &&
         cmake --build "$WORK/runtime" -j2 --target xray; } >"$WORK/cmake.log" 2>&1; then
    say "our runtime did not build (see $WORK/cmake.log)"; exit 1
  fi
  LIB=$WORK/runtime/lib/libxray.a
fi
[ -f "$LIB" ] || { say "no $LIB"; exit 2; }
LIB=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")

LUA_FLAGS=(-O2 -DLUA_USE_LINUX -fxray-instrument -fxray-instruction-threshold=1)
SRC=$WORK/lua-5.4.4/src
OBJ=$WORK/obj
STAMP="$("$CLANG" --version | head -1) ${LUA_FLAGS[*]}"
if [ ! -f "$OBJ/stamp" ] || [ "$(cat "$OBJ/stamp")" != "$STAMP" ]; then
  say "compiling Lua 5.4.4 (${LUA_FLAGS[*]}) in $OBJ"
  rm -rf "$WORK/lua-5.4.4" "$OBJ"
  mkdir -p "$OBJ"
  tar -xzf "$WORK/$LUA_TGZ" -C "$WORK"
  pids=()
  for c in "$SRC"/*.c; do
    [ "${c##*/}" = luac.c ] && continue
    o=${c##*/}
    "$CLANG" "${LUA_FLAGS[@]}" -c "$c" -o "$OBJ/${o%.c}.o" &
    pids+=($!)
    if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  done
  for p in "${pids[@]}"; do wait "$p"; done
  echo "$STAMP" >"$OBJ/stamp"
fi
"$CLANG" -O2 -I"$ROOT/include" -c "$HERE/budget_fdr_start.c" -o "$WORK/budget_fdr_start.o"
LUA_OBJS=("$OBJ"/*.o "$WORK/budget_fdr_start.o")

# clang 13-16 spell the opt-out of the driver's runtime -fnoxray-link-deps,
# clang 19 -fno-xray-link-deps.
NO_DEPS=-fno-xray-link-deps
"$CLANG" -fxray-instrument $NO_DEPS -x c -E /dev/null -o /dev/null 2>/dev/null || NO_DEPS=-fnoxray-link-deps
say "linking lua.ours$([ $CRT = 1 ] && echo ' and lua.crt')"
"$CLANG" -fxray-instrument $NO_DEPS -o "$WORK/lua.ours" "${LUA_OBJS[@]}" -Wl,--wrap=main \
  -Wl,--whole-archive "$LIB" -Wl,--no-whole-archive -lpthread -lm -ldl
SIDES=(ours)
if [ $CRT = 1 ]; then
  # The driver adds its own runtime (compiler-rt's XRay archives).
  if "$CLANG" -fxray-instrument -o "$WORK/lua.crt" "${LUA_OBJS[@]}" -Wl,--wrap=main -lm -ldl \
       2>"$WORK/link.crt.log"; then
    SIDES+=(crt)
  else
    say "no compiler-rt XRay runtime to link (see $WORK/link.crt.log): its rows are left out"
    CRT=0
  fi
fi
FUNCTIONS=-
if command -v "$LLVM_XRAY" >/dev/null; then
  FUNCTIONS=$("$LLVM_XRAY" extract "$WORK/lua.ours" 2>/dev/null | grep -c 'kind: function-enter' || true)
fi

# ---------------------------------------------------------------- runs
SCRIPT=$HERE/budget.lua
if [ -z "$LOGS" ]; then
  LOGS=$(mktemp -d /dev/shm/xray-budget.XXXXXX 2>/dev/null || mktemp -d)
  trap 'rm -rf "$LOGS"' EXIT
fi
mkdir -p "$LOGS"
RES=$WORK/results
rm -rf "$RES"; mkdir -p "$RES"
RUNS_TXT=$RES/runs.txt # row run wall_s cpu_s checksum ok|FAIL reason
: >"$RUNS_TXT"

# The rows: NAME SIDE ROUNDS, and what each sets.
rows_of_run() { # run index -> the rows of that run, one a line
  local r=$1 m
  if [ $WITH_BUDGET = 1 ]; then
    echo "ours.unpatched.big"
    for m in "${MODES[@]}"; do echo "ours.budget.$m"; done
  fi
  echo "ours.unpatched.small"
  for m in "${MODES[@]}"; do echo "ours.full.$m"; done
  if [ $CRT = 1 ]; then
    echo "crt.unpatched.small"
    has_mode fdr && echo "crt.full.fdr"
    has_mode basic && echo "crt.full.basic"
  fi
  if [ $WITH_BUDGET = 1 ] && has_mode profiling && (( r <= COMPARE_RUNS )); then
    echo "ours.full.profiling.big"
  fi
  if [ $WITH_BUDGET = 1 ] && (( r == 1 )); then
    for m in "${MODES[@]}"; do echo "ours.timeline.$m"; done
  fi
}
rounds_of() { case $1 in *.big|ours.budget.*|ours.timeline.*) echo "$ROUNDS" ;; *) echo "$FULL_ROUNDS" ;; esac; }

# run_row ROW RUN: one fresh process, timed; records the result.
run_row() {
  local row=$1 r=$2 side mode rounds dir env=() t0 t1 rc=0 wall cpu=- sum problems=()
  side=${row%%.*}
  mode=$(echo "$row" | cut -d. -f3)
  rounds=$(rounds_of "$row")
  dir=$LOGS/$row.$r
  rm -rf "$dir"; mkdir -p "$dir"
  local base="xray_logfile_base=$dir/ verbosity=1"
  case $row in
    *.unpatched.*) env=(XRAY_OPTIONS="patch_premain=false $base") ;;
    crt.full.fdr) env=(XRAY_OPTIONS="patch_premain=true $base" BUDGET_BENCH_FDR="") ;;
    *.full.*) env=(XRAY_OPTIONS="patch_premain=true xray_mode=xray-$mode $base") ;;
    ours.budget.*) env=(XRAY_OPTIONS="patch_premain=true xray_mode=xray-$mode xray_budget=$BUDGET $base") ;;
    ours.timeline.*) env=(XRAY_OPTIONS="patch_premain=true xray_mode=xray-$mode xray_budget=$BUDGET ${base/verbosity=1/verbosity=2}") ;;
  esac
  [ "$mode" = profiling ] && env+=(XRAY_PROFILING_OPTIONS="profiling_output=report report_top=1048576")
  t0=$EPOCHREALTIME
  if [[ $row == ours.timeline.* ]]; then
    # Untimed: each line of stderr stamped as it comes (the budget's
    # evaluations at verbosity=2), the start first.
    echo "start $t0" >"$dir/stderr"
    (cd "$dir" && env "${env[@]}" "$WORK/lua.$side" "$SCRIPT" "$rounds" 2>&1 >"$dir/stdout") |
      while IFS= read -r line; do echo "$EPOCHREALTIME $line"; done >>"$dir/stderr" || rc=$?
  elif [ -x /usr/bin/time ]; then
    (cd "$dir" && env "${env[@]}" /usr/bin/time -f '%U %S' -o "$dir/time" \
       "$WORK/lua.$side" "$SCRIPT" "$rounds" >"$dir/stdout" 2>"$dir/stderr") || rc=$?
  else
    (cd "$dir" && env "${env[@]}" "$WORK/lua.$side" "$SCRIPT" "$rounds" \
       >"$dir/stdout" 2>"$dir/stderr") || rc=$?
  fi
  t1=$EPOCHREALTIME
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
  [ -f "$dir/time" ] && cpu=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%.2f", $1 + $2 }' "$dir/time")
  [ $rc = 0 ] || problems+=("exit status $rc")
  sum=$(awk '$1 == "checksum" { print $2 }' "$dir/stdout")
  local want
  want=$(awk -v n="$rounds" '$1 == "want" && $2 == n { print $3 }' "$RES/checksums" 2>/dev/null || true)
  if [ -z "$sum" ]; then problems+=("no checksum printed")
  elif [ -z "$want" ]; then echo "want $rounds $sum" >>"$RES/checksums"
  elif [ "$sum" != "$want" ]; then problems+=("checksum $sum, unpatched $want"); fi
  # What the comparison and the convergence figures read: the profile
  # report, the budget's sidecar and stderr. The logs themselves go.
  local f keep=$RES/$row.$r
  cp "$dir/stderr" "$keep.stderr"
  for f in "$dir"/*; do
    case $f in
      *.txt) cp "$f" "$keep.report.txt" ;;
      *.culled) cp "$f" "$keep.culled" ;;
    esac
  done
  rm -rf "$dir"
  local IFS=';'
  if [ ${#problems[@]} = 0 ]; then
    echo "$row $r $wall $cpu $sum ok" >>"$RUNS_TXT"
  else
    echo "$row $r $wall $cpu ${sum:--} FAIL ${problems[*]}" >>"$RUNS_TXT"
  fi
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
say "$RUNS run(s); rounds: budget $ROUNDS, every function patched $FULL_ROUNDS; $FUNCTIONS functions instrumented"
# The unpatched runs go first in run 1: they set the checksums the others must print.
for ((r = 1; r <= RUNS; r++)); do
  mapfile -t rows < <(rows_of_run "$r")
  if (( r % 2 == 0 )); then mapfile -t rows < <(printf '%s\n' "${rows[@]}" | tac); fi
  if (( r == 1 )); then
    [ $WITH_BUDGET = 0 ] || run_row ours.unpatched.big 1
    run_row ours.unpatched.small 1
  fi
  for row in "${rows[@]}"; do
    if (( r == 1 )) && [[ $row == ours.unpatched.* ]]; then continue; fi
    say "run $r: $row"
    run_row "$row" "$r"
  done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------- the table
stats() { # values on stdin -> "median min max n"
  sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "- - - 0"; exit }
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    print m, v[1], v[NR], NR }'
}
col_of() { awk -v row="$1" -v c="$2" '$1 == row && $6 == "ok" { print $c }' "$RUNS_TXT"; }
fails_of() { awk -v row="$1" '$1 == row && $6 == "FAIL"' "$RUNS_TXT" | wc -l; }
# The budget's exit summary at verbosity=1: "budget 2 %: 1,204 of 1,530
# functions traced, 326 culled, est. cost 1.8 %" -> "traced total culled cost".
summary_of() {
  sed -n 's/.*budget [0-9.]* %: \([0-9,]*\) of \([0-9,]*\) functions traced, \([0-9,]*\) culled, est\. cost \([0-9.]*\) %.*/\1 \2 \3 \4/p' "$1" |
    tr -d , | tail -1
}

mode_name() { case $1 in basic) echo basic ;; fdr) echo FDR ;; profiling) echo profiling ;; esac; }
echo
echo "== XRay overhead budget: Lua 5.4.4 running test/bench/budget.lua ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, Linux $(uname -r); load average $LOAD_BEFORE before, $LOAD_AFTER after"
echo "program: Lua 5.4.4 (Debian's orig tarball), all src/*.c but luac.c, $("$CLANG" --version | head -1 | sed 's/ version / /'), ${LUA_FLAGS[*]}: $FUNCTIONS functions instrumented"
echo "ours: $LIB"
[ $CRT = 1 ] && echo "crt:  the clang driver's XRay runtime (-fxray-instrument at the link)"
echo "runs per row: $RUNS, interleaved, fresh process each; ratio = median wall / median wall of the same binary unpatched at the same rounds"
echo
printf '%-34s %6s %9s %9s %7s %7s %8s %7s %s\n' row rounds "wall s" "unpat. s" ratio "cpu r." spread target verdict
print_row() { # ROW LABEL BASELINE_ROW
  local row=$1 label=$2 base=$3 w wmin wmax b c cb target=- failed
  read -r w wmin wmax _ <<<"$(col_of "$row" 3 | stats)"
  read -r b _ _ _ <<<"$(col_of "$base" 3 | stats)"
  read -r c _ _ _ <<<"$(col_of "$row" 4 | grep -v '^-$' | stats)"
  read -r cb _ _ _ <<<"$(col_of "$base" 4 | grep -v '^-$' | stats)"
  [[ $row == ours.budget.* ]] && target=1.05
  failed=$(fails_of "$row")
  awk -v label="$label" -v rounds="$(rounds_of "$row")" -v w="$w" -v wmin="$wmin" -v wmax="$wmax" \
      -v b="$b" -v c="$c" -v cb="$cb" -v t="$target" -v failed="$failed" 'BEGIN {
    ratio = (w != "-" && b != "-" && b > 0) ? w / b : -1
    cr = (c != "-" && cb != "-" && cb > 0) ? sprintf("%.3f", c / cb) : "-"
    sp = (w != "-" && w > 0) ? sprintf("%.1f%%", 50 * (wmax - wmin) / w) : "-"
    verdict = (t == "-" || ratio < 0) ? "" : (ratio <= t ? "met" : "NOT met")
    if (failed > 0) verdict = verdict " (" failed " run(s) FAILED)"
    printf "%-34s %6s %9s %9s %7s %7s %8s %7s %s\n", label, rounds, w, b, \
      (ratio < 0 ? "-" : sprintf("%.3f", ratio)), cr, sp, (t == "-" ? "-" : "<=" t), verdict }'
}
for m in "${MODES[@]}"; do
  print_row "ours.full.$m" "ours $(mode_name "$m"), every function" ours.unpatched.small
  [ $WITH_BUDGET = 0 ] || print_row "ours.budget.$m" "ours $(mode_name "$m"), xray_budget=$BUDGET" ours.unpatched.big
done
if [ $WITH_BUDGET = 1 ] && [ "$COMPARE_RUNS" -gt 0 ] && has_mode profiling; then
  print_row ours.full.profiling.big "ours profiling, every function" ours.unpatched.big
fi
if [ $CRT = 1 ]; then
  for m in fdr basic; do
    has_mode $m && print_row "crt.full.$m" "compiler-rt $(mode_name "$m"), every function" crt.unpatched.small
  done
fi
echo "(cpu r.: the same ratio of user + system CPU time; spread: half the range over the median)"

# ---------------------------------------------------------------- convergence
med() { # values -> "median" or "median (min-max)", or - for none
  if [ $# = 0 ]; then echo -; else printf '%s\n' "$@" | stats | awk '{ print $1 ($2 != $3 ? " (" $2 "-" $3 ")" : "") }'; fi
}
# culled_at FILE -> "first p90 last": the culled_at_s column of a sidecar
# (one culled function a line after the '#' header that names the columns)
# for the functions culled at exit: when the first was culled, when 90 % of
# them were, when the last was (a function let back and culled again shows
# its last cull).
culled_at() {
  awk -F'\t' 'NR == 1 && /^#/ { for (i = 1; i <= NF; i++) { h = $i; sub(/^# */, "", h); if (h == "culled_at_s") col = i }; next }
    !/^#/ && col && $col ~ /^[0-9.]+$/ { print $col }' "$1" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR) printf "%.3f %.3f %.3f\n", v[1], v[int(0.9 * (NR - 1)) + 1], v[NR] }'
}
# timeline FILE -> "evaluations under_at over_after mean_after culls let_backs
# event_ns":
# the stamped stderr of a run at verbosity=2, whose evaluation lines say
# "budget: evaluation N: ..., event E ps, estimate A -> B per mille, C
# culled, D let back" (A: the estimate as measured, before this
# evaluation's culls). under_at: seconds from the start to the first
# evaluation that measured the estimate at or under the budget;
# over_after: evaluations after it that measured it over (a let-back that
# did not fit, a new phase); mean_after: the estimates after it, each
# weighed by the time since the evaluation before (the interval it
# measured), in percent; event_ns: the median cost of an event.
timeline() {
  awk -v budget="$BUDGET" '
    $1 == "start" { t0 = $2; next }
    /budget: evaluation [0-9]+:/ && match($0, /estimate [0-9]+ -> [0-9]+ per mille, [0-9]+ culled, [0-9]+ let back/) {
      split(substr($0, RSTART, RLENGTH), w, /[ ,]+/) # estimate A -> B per mille C culled D let back
      n++; before = w[2]; culls += w[7]; backs += w[9]
      if (match($0, /event [0-9]+ ps/)) { split(substr($0, RSTART, RLENGTH), e, " "); ev[n] = e[2] / 1000 }
      if (under != "") { area += before * ($1 - last); if (before > 10 * budget) over++ }
      else if (before <= 10 * budget) under = $1 - t0
      last = $1
    }
    END {
      if (n == 0) { print "-"; exit }
      m = 0; for (i = 1; i <= n; i++) if (i in ev) s[++m] = ev[i]
      for (i = 2; i <= m; i++) { t = s[i]; for (j = i - 1; j >= 1 && s[j] > t; j--) s[j + 1] = s[j]; s[j + 1] = t }
      med = m ? (m % 2 ? s[(m + 1) / 2] : (s[m / 2] + s[m / 2 + 1]) / 2) : 0
      span = last - t0 - under
      printf "%d %s %d %s %d %d %.1f\n", n, (under == "" ? "never" : sprintf("%.3f", under)), over, \
        (under == "" || span <= 0 ? "-" : sprintf("%.2f", area / span / 10)), culls, backs, med
    }' "$1"
}
if [ $WITH_BUDGET = 1 ]; then
  echo
  echo "budget $BUDGET %, how it settles. From the timed runs (medians over runs, range): the exit summary (verbosity=1)"
  echo "and the sidecar's culled_at_s of the functions culled at exit (first, 90 % of them, last; s since start)."
  printf '  %-10s %-22s %-14s %-14s %-20s %-20s %-20s %s\n' mode "traced" culled "est. cost %" "first cull s" "90 % culled by s" "last cull s" summaries
  for m in "${MODES[@]}"; do
    tr_=(); cu=(); co=(); c1=(); c9=(); cn=(); tot=-
    for ((r = 1; r <= RUNS; r++)); do
      f=$RES/ours.budget.$m.$r.stderr
      [ -f "$f" ] || continue
      s=$(summary_of "$f")
      if [ -n "$s" ]; then
        read -r n_tr n_all n_cu cost <<<"$s"
        tr_+=("$n_tr"); cu+=("$n_cu"); co+=("$cost"); tot=$n_all
      fi
      cf=$RES/ours.budget.$m.$r.culled
      if [ -f "$cf" ] && [ -n "$(culled_at "$cf")" ]; then
        read -r a b c <<<"$(culled_at "$cf")"
        c1+=("$a"); c9+=("$b"); cn+=("$c")
      fi
    done
    printf '  %-10s %-22s %-14s %-14s %-20s %-20s %-20s %s\n' "$(mode_name "$m")" "$(med "${tr_[@]}") of $tot" \
      "$(med "${cu[@]}")" "$(med "${co[@]}")" "$(med "${c1[@]}")" "$(med "${c9[@]}")" "$(med "${cn[@]}")" "${#tr_[@]} of $RUNS"
  done
  echo "From one more run per mode at verbosity=2 (untimed; its evaluation lines stamped as they came):"
  printf '  %-10s %12s %18s %26s %16s %8s %10s %9s\n' mode evaluations "under budget at s" "evaluations over it after" "mean est. after" culls "let backs" "event ns"
  for m in "${MODES[@]}"; do
    f=$RES/ours.timeline.$m.1.stderr
    t=-
    [ -f "$f" ] && t=$(timeline "$f")
    if [ "$t" = - ]; then
      printf '  %-10s %12s\n' "$(mode_name "$m")" "no evaluation lines"
    else
      read -r n under over mean culls backs ev <<<"$t"
      printf '  %-10s %12s %18s %26s %16s %8s %10s %9s\n' "$(mode_name "$m")" "$n" "$under" "$over" "$mean %" "$culls" "$backs" "$ev"
    fi
  done
fi

# ---------------------------------------------------------------- profiles
# Profiling mode's report (profiling_output=report): "total" is a function's
# inclusive time, outermost calls only. The run's time is main's total.
# Every function at >= 1 % of the run with every function patched (median
# over its runs): is it traced in every budget run (a row with calls, and not
# culled at exit: not in the sidecar), and is its inclusive time within 5 %
# of the unculled run's, as time and as a share of the run? Beside it, what
# tracing that function alone would cost: 2 events per call at the event
# cost the budget measured (the profiling timeline's median), over the
# unpatched run's time; a function that alone costs more than the budget
# cannot stay traced under it.
if [ $WITH_BUDGET = 1 ] && [ "$COMPARE_RUNS" -gt 0 ] && has_mode profiling; then
  full=("$RES"/ours.full.profiling.big.*.report.txt)
  budg=("$RES"/ours.budget.profiling.*.report.txt)
  culled=()
  for f in "$RES"/ours.budget.profiling.*.culled; do [ -f "$f" ] && culled+=("$f"); done
  echo
  if [ ! -f "${full[0]}" ] || [ ! -f "${budg[0]}" ]; then
    echo "profile comparison: no reports (${#full[@]} full, ${#budg[@]} budget)"
  else
    ev_ns=-
    [ -f "$RES/ours.timeline.profiling.1.stderr" ] && ev_ns=$(timeline "$RES/ours.timeline.profiling.1.stderr" | awk '{ print $NF }')
    read -r base_wall _ _ _ <<<"$(col_of ours.unpatched.big 3 | stats)"
    echo "profile comparison: profiling at $ROUNDS rounds, every function patched (${#full[@]} run(s)) against xray_budget=$BUDGET (${#budg[@]} run(s))."
    echo "Functions at >= 1 % of main's inclusive time in the unculled run (medians over runs); calls/s over the unpatched"
    echo "run's $base_wall s; alone: what tracing only that function costs at the budget's event cost ($ev_ns ns), % of CPU:"
    awk '
      function median(s,   n, a, i, j, t) {
        n = split(s, a, " ")
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return n == 0 ? 0 : (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2)
      }
      FNR == 1 { file++; kind = (FILENAME ~ /\.culled$/) ? "c" : (FILENAME ~ /ours\.full\./ ? "f" : "b") }
      kind == "c" { if (!/^#/) { n = split($0, col, "\t"); culled_in[col[n]]++ } ; next }
      /^#/ || NF < 8 { next }
      {
        name = $8; for (i = 9; i <= NF; i++) name = name " " $i
        tot[kind, file, name] = $3; calls[kind, file, name] = $4
        if (name == "main") mainof[kind, file] = $3
        seen[name] = 1; files[kind, file] = 1
      }
      END {
        for (k in files) { split(k, p, SUBSEP); list[p[1]] = list[p[1]] " " p[2] }
        for (name in seen) {
          sf = sb = tf = tb = cf = ""; missing = 0
          n = split(list["f"], fl, " ")
          for (i = 1; i <= n; i++) {
            t = tot["f", fl[i], name] + 0; tf = tf " " t; cf = cf " " calls["f", fl[i], name] + 0
            sf = sf " " (mainof["f", fl[i]] > 0 ? t / mainof["f", fl[i]] : 0)
          }
          if (median(sf) < 0.01) continue
          n = split(list["b"], bl, " ")
          for (i = 1; i <= n; i++) {
            t = tot["b", bl[i], name] + 0
            if (calls["b", bl[i], name] + 0 == 0) missing++
            tb = tb " " t; sb = sb " " (mainof["b", bl[i]] > 0 ? t / mainof["b", bl[i]] : 0)
          }
          printf "%s %.6f %.6f %.3f %.3f %d %d %d\n", name, median(sf), median(sb), median(tf), median(tb), missing, culled_in[name] + 0, median(cf)
        }
      }' "${full[@]}" "${budg[@]}" "${culled[@]}" | sort -k2,2gr >"$RES/compare.txt"
    # name share_full share_budget incl_us_full incl_us_budget missing culled calls
    awk -v nb=${#budg[@]} -v ev="$ev_ns" -v wall="$base_wall" -v budget="$BUDGET" '
      BEGIN { printf "  %-22s %8s %8s %10s %10s %7s %7s %9s %8s %s\n", "function", "share", "budget", "incl. ms", "budget ms", "time", "share", "calls/s", "alone %", "traced" }
      {
        rt = ($4 > 0) ? $5 / $4 : 0; rs = ($2 > 0) ? $3 / $2 : 0
        cps = (wall > 0) ? $8 / wall : 0
        alone = (ev != "-" && ev > 0) ? 100 * 2 * ev * 1e-9 * cps : -1
        ok = ($6 == 0 && $7 == 0)
        tr = ok ? "yes" : sprintf("NO (culled in %d of %d%s)", $7, nb, $6 ? sprintf(", no calls in %d", $6) : "")
        printf "  %-22s %7.2f%% %7.2f%% %10.1f %10.1f %6.3fx %6.3fx %9.0f %8s %s\n", $1, 100 * $2, 100 * $3, $4 / 1000, $5 / 1000, rt, rs, cps, (alone < 0 ? "-" : sprintf("%.2f", alone)), tr
        n++; if (ok) kept++
        if (alone >= 0) cost[++nc] = alone
        if (ok && rt >= 0.95 && rt <= 1.05) t++
        if (ok && rs >= 0.95 && rs <= 1.05) s++
      }
      END {
        printf "  still traced with the budget: %d of %d: %s\n", kept, n, (kept == n ? "met" : "NOT met")
        # How many of them could stay traced together at all: the cheapest
        # first, while their costs add up to at most the budget.
        for (i = 2; i <= nc; i++) { x = cost[i]; for (j = i - 1; j >= 1 && cost[j] > x; j--) cost[j + 1] = cost[j]; cost[j + 1] = x }
        sum = 0; fit = 0
        for (i = 1; i <= nc && sum + cost[i] <= budget; i++) { sum += cost[i]; fit++ }
        if (nc) printf "  at most %d of the %d fit in %s %% together (their costs alone, the cheapest first), the budget keeps %d\n", fit, n, budget, kept
        printf "  traced, and inclusive time within 5 %% of the unculled run'"'"'s: %d of %d: %s\n", t, n, (t == n ? "met" : "NOT met")
        printf "  traced, and share of main'"'"'s time within 5 %% (of itself): %d of %d: %s\n", s, n, (s == n ? "met" : "NOT met")
      }' "$RES/compare.txt"
  fi
fi

# ---------------------------------------------------------------- failures
echo
if grep -q ' FAIL ' "$RUNS_TXT"; then
  echo "failed runs (left out of the figures):"
  awk '$6 == "FAIL" { r = $1 " run " $2 ":"; $1 = $2 = $3 = $4 = $5 = $6 = ""; print "  " r $0 }' "$RUNS_TXT"
else
  echo "checks: every run exited 0 and printed the unpatched run's checksum ($(awk '{ printf "%s%s rounds %s", sep, $3, $2; sep = ", " }' "$RES/checksums"))"
fi
echo "stderr of the runs (distinct lines, count; the process id taken out):"
cat "$RES"/*.stderr 2>/dev/null | grep -v '^[0-9.]* \|^start ' | sed -e 's/^==[0-9]*==//' -e "s|$LOGS/[^ ']*|LOG|g" | sort | uniq -c | sort -rn | awk 'NR <= 15 { print "  " $0 }'
echo "results kept in $RES"
! awk '$1 ~ /^ours\./ && $6 == "FAIL" { bad = 1 } END { exit !bad }' "$RUNS_TXT"
