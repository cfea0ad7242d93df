# Basic mode with trace_output=xray+perfetto+chrome: the trace beside the log
# decodes, nests per thread, marks the calls longjmp skipped, and has
# exactly the calls llvm-xray account finds in the log; threads and the
# process are named, the process after the program with the runtime's
# version. perfetto+chrome leaves only the two trace files.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/perfetto_lib.sh"
xr_cc threads "$THREADS_C"
XRAY_OPTIONS=xray_logfile_base=one- ./threads xray-basic \
  "func_duration_threshold_us=0:trace_output=xray+perfetto+chrome" 1 3000 1 0
log=$(log_of one-threads.)
pf_against_account threads "$log"
# 429 jumps (i % 7 == 0 below 3000) leave 4 deep() frames each
expect_eq "one thread" "deep:1716 leaf:6000 mid:3000 worker:1 marks:unwound=1716" "$(pf_calls)"
expect_eq "thread" "worker-0" "$(pf_field threads)"
expect_eq "process" "threads;xray runtime $(xr_version)" "$(pf_field process)"
expect_eq "drops" "" "$(pf_field drops)"

XRAY_OPTIONS=xray_logfile_base=four- ./threads xray-basic \
  "func_duration_threshold_us=0:trace_output=perfetto+chrome" 4 3000 1 0
trace=$(only_file "four-threads.*.pftrace")
[ "$(find . -maxdepth 1 -name 'four-threads.*' | wc -l)" = 2 ] ||
  fail "perfetto+chrome: $(echo four-threads.*)"
[ -f "${trace%.pftrace}.json" ] || fail "no JSON beside $trace"
pf_check "$trace" >summary.txt || fail "$trace"
expect_eq "four threads" "deep:6864 leaf:24000 mid:12000 worker:4 marks:unwound=6864" "$(pf_calls)"
expect_eq "threads" "worker-0,worker-1,worker-2,worker-3" "$(pf_field threads)"
echo "basic: ok ($(pf_field bytes_per_event) bytes per event)"
