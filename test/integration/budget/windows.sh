# A sampling window over a real instrumented program in each built-in mode:
# the window's samples of f and g are exact (main calls g, which calls f,
# 1000 times while the wrapper is in), and the mode's own log or profile
# still holds every call of the run (llvm-xray account for basic and FDR,
# the folded profile for profiling): the wrapper passed every event on.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
need_llvm_xray
xr_cc windows "$TEST_SRC_DIR/windows.c" -I"$XRAY_SRC/lib" -lpthread

want="f 1000 1000 1000
g 1000 1000 1000
others 0 events 4000 untracked 0 threads 1
timed yes, handler timed yes, wall yes"

# run MODE: runs the program in MODE (its files named MODE-*), checks the
# window's samples; leaves the total calls of f and g in $calls_f, $calls_g.
run() {
  local mode=$1 options
  case $mode in
    basic) options="func_duration_threshold_us=0" ;;
    fdr) options="func_duration_threshold_us=0" ;;
    profiling) options="profiling_output=folded folded_value=calls" ;;
  esac
  env XRAY_OPTIONS="patch_premain=true xray_mode=xray-$mode xray_logfile_base=$mode-" \
    "XRAY_$(echo "$mode" | tr '[:lower:]' '[:upper:]')_OPTIONS=$options" \
    ./windows >"$mode.out" 2>"$mode.err" ||
    { cat "$mode.out" "$mode.err" >&2; fail "$mode: exited $?"; }
  expect_eq "$mode: the window's samples" "$want" "$(cat "$mode.out")"
  grep '^calibration' "$mode.err" >&2
  calls_f=$(sed -n 's/^calls: f \([0-9]*\) g [0-9]*$/\1/p' "$mode.err")
  calls_g=$(sed -n 's/^calls: f [0-9]* g \([0-9]*\)$/\1/p' "$mode.err")
  if [ -z "$calls_f" ] || [ -z "$calls_g" ]; then
    fail "$mode: no call totals in $(cat "$mode.err")"
  fi
}

# account LOG: "f N g M" from llvm-xray account
account() {
  "$LLVM_XRAY" account -m windows -format=csv "$1" |
    awk -F, 'NR > 1 { gsub(/"/, "", $NF); n[$NF] = $2 } END { print "f", n["f"], "g", n["g"] }'
}

for mode in basic fdr; do
  run $mode
  log=$(only_file "$mode-windows.*")
  expect_eq "$mode: calls in the log" "f $calls_f g $calls_g" "$(account "$log")"
done

run profiling
folded=$(only_file "profiling-windows.*.folded")
expect_eq "profiling: calls in the profile" "f $calls_f g $calls_g" "$(awk '
  { n = split($1, frames, ";"); count[frames[n]] += $2 }
  END { print "f", count["f"], "g", count["g"] }' "$folded")"
echo "windows: ok"
