# Argument capture end to end, FDR mode: a program whose functions take
# and return integers, pointers, floats, doubles (NaN payloads, -0.0,
# infinities, a subnormal), a mix, structs by register and strings (valid,
# NULL, unmapped, at a page end without NUL, longer than the bound), traced
# with xray_args naming each value; every value read back bit for bit from
# llvm-xray convert (the call-argument records, the return values' and
# strings' events), the Chrome JSON and Perfetto trace the runtime writes
# beside the log, and xrayctl convert's of the log. llvm-xray account
# still reads the log.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/args_lib.sh"
XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr xray_logfile_base=fdr- xray_args=$SPEC" \
  XRAY_FDR_OPTIONS="func_duration_threshold_us=0:trace_output=xray+chrome+perfetto" \
  ./args_prog run || fail "args_prog exited $?"
log=$(log_of fdr-)
"$LLVM_XRAY" convert -output-format=yaml --symbolize -m "$PROG_FILE" "$log" >fdr.yaml ||
  fail "llvm-xray convert rejects $log"
check "llvm-xray convert" yaml-fdr expect.txt fdr.yaml
"$LLVM_XRAY" account -m "$PROG_FILE" "$log" >account.txt || fail "llvm-xray account rejects $log"
check "the runtime's Chrome JSON" chrome expect.txt "$log.json"
check "the runtime's Perfetto trace" perfetto expect.txt "$log.pftrace" pb
"$XRAYCTL" convert "$log" -m "$PROG_FILE" --to chrome -o xrayctl.json || fail "xrayctl convert"
check "xrayctl convert's Chrome JSON" chrome expect.txt xrayctl.json
"$XRAYCTL" convert "$log" -m "$PROG_FILE" --to perfetto -o xrayctl.pftrace || fail "xrayctl convert"
check "xrayctl convert's Perfetto trace" perfetto expect.txt xrayctl.pftrace pb
echo "args.fdr: ok"
