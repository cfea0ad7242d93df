# Argument values in basic mode (docs/basic-mode.md "Argument values"):
# progs/values.c hands the mode's argument sink calls with values of every
# format and string status, nested, on two threads; values_check.py finds
# each value exactly in the log (as llvm-xray reads its payloads), the
# Chrome JSON (parsed by Python's json, floats compared by their bits) and
# the Perfetto trace (decoded with protoc's code for the perfetto tests'
# schema). llvm-xray account still reads the log (each llvm-xray there is),
# and the Perfetto trace still has the Chrome trace's calls and account's
# (perfetto_check.py). Then under a threshold that erases every plain call
# (the program pinned to one CPU: xr_pinned), the calls with values stay,
# with their callers.
source "$TEST_SRC_DIR/basic_lib.sh"
# shellcheck source=../perfetto/pb_lib.sh
source "$XRAY_SRC/test/integration/perfetto/pb_lib.sh"
build values -I"$XRAY_SRC/lib"

# run NAME THRESHOLD_US: runs the program, checks every value in its files.
run() {
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=$1-" \
  XRAY_BASIC_OPTIONS="func_duration_threshold_us=$2 trace_output=xray+chrome+perfetto" \
    xr_pinned ./values >"$1.values" 2>"$1.err" || { cat "$1.err" >&2; fail "$1: values exited $?"; }
  log=$(only_file "$1-values.??????")
  local x
  for x in "$LLVM_XRAY" $(command -v llvm-xray-14 llvm-xray-19 || true); do
    "$x" convert -f yaml -m values --symbolize "$log" >"$1.yaml" ||
      fail "$1: $x convert rejects the log"
    "$PB_PYTHON" "$TEST_SRC_DIR/values_check.py" pb "$1.values" "$1.yaml" "$log.json" \
      "$log.pftrace" >"$1.checked" || fail "$1: the values differ ($x)"
    "$x" account -m values -format=csv "$log" >"$1.account.csv" ||
      fail "$1: $x account rejects the log"
  done
  "$PB_PYTHON" "$PERFETTO_DIR/perfetto_check.py" pb "$log.pftrace" --account "$1.account.csv" \
    --chrome "$log.json" >"$1.summary" || fail "$1: $log.pftrace"
}

run all 0
expect_eq "calls checked" 6 "$(wc -l <all.checked)"
expect_eq "values checked" "compute values=1 lookup values=13 parse values=10" \
  "$(awk '{ print $2, $3 }' all.checked | sort -u | paste -sd' ' -)"
expect_eq "threshold 0: every call" "compute 2
lookup 2
middle 2
outer 2
parse 2
tiny 8" "$(counts values "$log")"

run erased 10000000
expect_eq "calls checked, threshold 10 s" 6 "$(wc -l <erased.checked)"
expect_eq "threshold 10 s: the calls with values and their callers" "compute 2
lookup 2
middle 2
outer 2
parse 2" "$(counts values "$log")"
