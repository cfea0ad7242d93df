# A sampling window over a real instrumented program in each built-in mode:
# the window's samples of f and g are exact (main calls g, which calls f,
# 1000 times while the wrapper is in), and the mode's own log or profile
# still holds every call of the run, each entry and exit as the program
# made it: the wrapper passed every event on. (A mode closes a call whose
# exit it never saw as unwound, so the record counts alone would not show
# a lost exit: basic's closing count and FDR's "xray-unwound" events do.)
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
need_llvm_xray
xr_cc windows "$TEST_SRC_DIR/windows.c" -I"$XRAY_SRC/lib" -lpthread

want="f 1000 1000 1000
g 1000 1000 1000
others 0 events 4000 untracked 0 threads 1
timed yes, handler timed yes, wall yes"

# run MODE OPTIONS: runs the program in MODE (its files named MODE-*, its
# messages at verbosity 1 in MODE.err), checks the window's samples;
# leaves the total calls of f and g in $calls_f, $calls_g.
run() {
  local mode=$1 upper
  upper=$(echo "$mode" | tr '[:lower:]' '[:upper:]')
  env XRAY_OPTIONS="patch_premain=true xray_mode=xray-$mode xray_logfile_base=$mode- verbosity=1" \
    "XRAY_${upper}_OPTIONS=$2" ./windows >"$mode.out" 2>"$mode.err" ||
    { cat "$mode.out" "$mode.err" >&2; fail "$mode: exited $?"; }
  expect_eq "$mode: the window's samples" "$want" "$(cat "$mode.out")"
  grep '^calibration' "$mode.err" >&2
  calls_f=$(sed -n 's/^calls: f \([0-9]*\) g [0-9]*$/\1/p' "$mode.err")
  calls_g=$(sed -n 's/^calls: f [0-9]* g \([0-9]*\)$/\1/p' "$mode.err")
  if [ -z "$calls_f" ] || [ -z "$calls_g" ]; then
    fail "$mode: no call totals in $(cat "$mode.err")"
  fi
}

# records LOG: "f E X g E X" entries and exits (tail exits too) of f and
# g in LOG, then the number of "xray-unwound" events
records() {
  "$LLVM_XRAY" convert -f yaml -m windows --symbolize "$1" | awk '
    /kind: function-enter/ { match($0, /function: [^,]*/); enters[substr($0, RSTART + 10, RLENGTH - 10)]++ }
    /kind: function-(exit|tail-exit)/ { match($0, /function: [^,]*/); exits[substr($0, RSTART + 10, RLENGTH - 10)]++ }
    /data: xray-unwound/ { unwound++ }
    END { print "f", enters["f"] + 0, exits["f"] + 0, "g", enters["g"] + 0, exits["g"] + 0,
                "unwound", unwound + 0 }'
}
# account LOG: "f N g M" from llvm-xray account
account() {
  "$LLVM_XRAY" account -m windows -format=csv "$1" |
    awk -F, 'NR > 1 { gsub(/"/, "", $NF); n[$NF] = $2 } END { print "f", n["f"], "g", n["g"] }'
}

for mode in basic fdr; do
  run $mode "func_duration_threshold_us=0"
  log=$(only_file "$mode-windows.*")
  expect_eq "$mode: calls in the log" "f $calls_f g $calls_g" "$(account "$log")"
  expect_eq "$mode: records in the log" "f $calls_f $calls_f g $calls_g $calls_g unwound 0" \
    "$(records "$log")"
  if [ $mode = basic ]; then
    expect_eq "basic: the mode's own counts" \
      "basic mode: 0 nested events dropped, 0 exits without entries, 0 calls closed by unwinding, 0 calls open at the end" \
      "$(grep -o 'basic mode: [0-9]* nested events.*' basic.err)"
  fi
done

run profiling "profiling_output=folded+report folded_value=calls"
folded=$(only_file "profiling-windows.*.folded")
expect_eq "profiling: calls in the profile" "f $calls_f g $calls_g" "$(awk '
  { n = split($1, frames, ";"); count[frames[n]] += $2 }
  END { print "f", count["f"], "g", count["g"] }' "$folded")"
expect_eq "profiling: nothing lost" "# not recorded: 0 call(s) out of memory, 0 call(s) too deep, 0 unmatched exit(s), 0 thread(s) not collected" \
  "$(grep '^# not recorded' "$(only_file "profiling-windows.*.txt")")"
echo "windows: ok"
