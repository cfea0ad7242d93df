# Calls an exception skips and tail exits (test/integration/exceptions/
# progs): deep.cc throws through three traced frames 100 times, tail.cc
# tail-calls a thrower and a finisher (built -O2). In basic and FDR mode
# with trace_output=xray+perfetto+chrome, every call is a slice, the skipped ones
# marked unwound, nested, as many per function as llvm-xray account counts.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/perfetto_lib.sh"
progs=$XRAY_SRC/test/integration/exceptions/progs
xr_cxx deep "$progs/deep.cc"
xr_cxx tail "$progs/tail.cc" -O2
run() { # MODE PROG: the trace of PROG checked against account of its log
  rm -f xray-log.*
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-$1" \
    XRAY_BASIC_OPTIONS="func_duration_threshold_us=0 trace_output=xray+perfetto+chrome" \
    XRAY_FDR_OPTIONS="func_duration_threshold_us=0 trace_output=xray+perfetto+chrome" \
    "./$2" >"$2.out" 2>"$2.err" || { cat "$2.err" >&2; fail "$1: $2 exited $?"; }
  pf_against_account "$2" "$(log_of "xray-log.$2.")"
}
for mode in basic fdr; do
  run "$mode" deep
  expect_eq "$mode: deep" "later:10 mid1:100 mid2:100 thrower:100 marks:unwound=300" "$(pf_calls)"
  run "$mode" tail
  expect_eq "$mode: tail" "finish:100 later:10 tail_caller:100 tail_catcher:100 thrower:200 marks:unwound=200" "$(pf_calls)"
done
echo "exceptions: ok"
