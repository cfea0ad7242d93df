# Size: one hot function called 2,000,000 times in FDR mode (threshold 0,
# buffers for all of it): the Perfetto trace holds every call (llvm-xray
# account's count) in at most 14 bytes per event on average (a begin with
# an interned name and a delta, an end with a delta; the Chrome JSON of the
# same trace takes 38 or more).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/perfetto_lib.sh"
xr_cc hot "$TEST_SRC_DIR/progs/hot.c"
XRAY_OPTIONS=xray_logfile_base=hot- ./hot 2000000 \
  "func_duration_threshold_us=0:trace_output=xray+perfetto:buffer_size=1048576:buffer_max=48"
log=$(log_of hot-hot.)
pf_against_account hot "$log"
expect_eq "calls" "hot:2000000 marks:" "$(pf_calls)"
bpe=$(pf_field bytes_per_event)
awk -v b="$bpe" 'BEGIN { exit !(b <= 14) }' || fail "$bpe bytes per event (more than 14)"
echo "size: ok ($bpe bytes per event, $(stat -c %s "$log.pftrace") bytes)"
