# FDR mode with trace_output=xray+perfetto+chrome: the trace beside the log decodes
# and nests per thread, with exactly the calls llvm-xray account finds in
# the log: one thread with custom events (instants), four threads with
# longjmps (the skipped calls marked unwound), and a ring that wrapped (its
# kept records begin inside calls: those calls marked no-entry, begun
# before the thread's first time on sequence 1, nest around the rest), whose
# overwritten buffers the trace says (the count FDR prints).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/perfetto_lib.sh"
xr_cc threads "$THREADS_C"
cfg="func_duration_threshold_us=0:trace_output=xray+perfetto+chrome"
XRAY_OPTIONS=xray_logfile_base=one- ./threads xray-fdr "$cfg" 1 3000 0 1
log=$(log_of one-threads.)
pf_against_account threads "$log"
expect_eq "one thread" "leaf:6000 log_event:30 mid:3000 worker:1 marks:" "$(pf_calls)"
expect_eq "custom events" 30 "$(pf_field instants)"

XRAY_OPTIONS=xray_logfile_base=four- ./threads xray-fdr \
  "$cfg:buffer_size=1024:buffer_max=2000" 4 3000 1 0
log=$(log_of four-threads.)
pf_against_account threads "$log"
expect_eq "four threads" "deep:6864 leaf:24000 mid:12000 worker:4 marks:unwound=6864" "$(pf_calls)"
expect_eq "threads" "worker-0,worker-1,worker-2,worker-3" "$(pf_field threads)"

# 16 buffers of 1 KiB for ~800 KiB of records
XRAY_OPTIONS="xray_logfile_base=ring- verbosity=1" ./threads xray-fdr \
  "$cfg:buffer_size=1024:buffer_max=16" 4 3000 1 0 2>ring.err
log=$(log_of ring-threads.)
over=$(grep -o '[0-9]* buffers overwritten' ring.err | cut -d' ' -f1)
[ "${over:-0}" -ge 500 ] || fail "ring: only ${over:-0} buffers overwritten"
pf_against_account threads "$log"
grep -q "^mid:" summary.txt || fail "ring: no calls kept"
grep -q "^marks:.*no-entry=" summary.txt || fail "ring: no call cut at its start: $(pf_calls)"
expect_eq "ring: drops said" "buffers overwritten (oldest records)=$over" "$(pf_field drops)"
echo "fdr: ok (ring: $(pf_calls))"
