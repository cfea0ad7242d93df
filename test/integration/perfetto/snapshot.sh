# An FDR snapshot taken by the API with trace_output=xray+perfetto+chrome gets
# `<snapshot>.pftrace`, written by the helper thread or at flush, from the
# snapshot file: it decodes, nests, marks the calls the longjmps skipped
# (the file says which exits unwinding wrote) and has exactly llvm-xray
# account's calls of the snapshot; the snapshot's own note is an instant.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/perfetto_lib.sh"
xr_cc threads "$THREADS_C"
THREADS_SNAPSHOT=1 XRAY_OPTIONS=xray_logfile_base=snap- ./threads xray-fdr \
  "func_duration_threshold_us=0:trace_output=xray+perfetto+chrome:buffer_size=1024:buffer_max=2000" \
  4 3000 1 0
snap=$(only_file "snap-threads.*.snap000001")
[ -f "$snap.pftrace" ] || fail "no $snap.pftrace"
[ ! -e "$snap.pftrace.part" ] || fail "$snap.pftrace.part left"
pf_against_account threads "$snap"
expect_eq "snapshot" "deep:6864 leaf:24000 mid:12000 worker:4 marks:unwound=6864" "$(pf_calls)"
expect_eq "the snapshot's note" 1 "$(pf_field instants)"
echo "snapshot: ok"
