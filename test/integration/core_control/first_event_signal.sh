# A thread's first instrumented call in a signal handler that interrupted
# malloc, 200 threads one after another, for each built-in mode started from
# code after a constructor took 40 pthread keys: the tracer allocates nothing
# in the handler (malloc is interposed and counts), nothing deadlocks (the
# test's timeout), and every thread's call is recorded.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
need_llvm_xray
# (the program replaces malloc, which ASan and TSan own)
[ -z "${XRAY_TEST_SANITIZE:-}" ] || skip "interposes malloc: not under sanitizers"
xr_cc prog "$TEST_SRC_DIR/first_event_signal.c"
# (FDR keeps each exited thread's buffer until the flush: room for 200)
for mode in xray-basic xray-fdr xray-profiling; do
  rm -f xray-log.prog.*
  case $mode in
    xray-basic) config=func_duration_threshold_us=0 ;;
    xray-fdr) config="func_duration_threshold_us=0 buffer_max=256" ;;
    xray-profiling) config="" ;;
  esac
  ./prog 200 "$mode" "$config" > out.txt 2> err.txt ||
    { exit_status=$?; cat err.txt >&2; fail "$mode: exited $exit_status"; }
  expect_eq "$mode: output" "threads 200 allocations-in-handler 0" "$(cat out.txt)"
  log=$(only_file 'xray-log.prog.*')
  if [ "$mode" != xray-profiling ]; then
    calls=$("$LLVM_XRAY" convert -f yaml -m prog --symbolize "$log" |
      grep 'function: first_call' | grep -c 'kind: function-enter')
    expect_eq "$mode: first_call's calls" 200 "$calls"
  fi
done
exit 0
