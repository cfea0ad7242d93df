# Argument capture end to end, basic mode: the program of fdr.sh traced in
# basic mode; every value read back bit for bit from llvm-xray convert
# (the argument payload records after each entry and exit), the Chrome
# JSON the runtime writes beside the log and xrayctl convert's.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/args_lib.sh"
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=basic- xray_args=$SPEC" \
  XRAY_BASIC_OPTIONS="func_duration_threshold_us=0:trace_output=xray+chrome+perfetto" \
  ./args_prog run || fail "args_prog exited $?"
log=$(log_of basic-)
"$LLVM_XRAY" convert -output-format=yaml --symbolize -m "$PROG_FILE" "$log" >basic.yaml ||
  fail "llvm-xray convert rejects $log"
check "llvm-xray convert" yaml-basic expect.txt basic.yaml
"$LLVM_XRAY" account -m "$PROG_FILE" "$log" >account.txt || fail "llvm-xray account rejects $log"
check "the runtime's Chrome JSON" chrome expect.txt "$log.json"
check "the runtime's Perfetto trace" perfetto expect.txt "$log.pftrace" pb
"$XRAYCTL" convert "$log" -m "$PROG_FILE" --to chrome -o xrayctl.json || fail "xrayctl convert"
check "xrayctl convert's Chrome JSON" chrome expect.txt xrayctl.json
"$XRAYCTL" convert "$log" -m "$PROG_FILE" --to perfetto -o xrayctl.pftrace || fail "xrayctl convert"
check "xrayctl convert's Perfetto trace" perfetto expect.txt xrayctl.pftrace pb
echo "args.basic: ok"
