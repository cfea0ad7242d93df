# Argument capture under valgrind's memcheck: the program of fdr.sh in FDR
# mode exits 0 with no memcheck error (the strings' copy reads unmapped
# and unterminated memory through the kernel, which valgrind checks too),
# and every value reads back exactly from llvm-xray and the Chrome JSON.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
command -v valgrind >/dev/null || skip "valgrind not found (apt-get install valgrind)"
[ -z "${XRAY_TEST_SANITIZE:-}" ] || skip "valgrind does not run sanitized programs"
[ -z "${XRAY_TEST_EMULATOR:-}" ] || skip "valgrind does not run under an emulator"
source "$TEST_SRC_DIR/args_lib.sh"
rc=0
XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr xray_logfile_base=vg- xray_args=$SPEC" \
  XRAY_FDR_OPTIONS="func_duration_threshold_us=0:trace_output=xray+chrome" \
  valgrind --error-exitcode=97 --log-file=vg.log ./args_prog run >out.txt 2>err.txt || rc=$?
[ $rc = 0 ] || { cat vg.log err.txt >&2; fail "exit status $rc under memcheck"; }
grep -q "ERROR SUMMARY: 0 errors from 0 contexts" vg.log || { cat vg.log >&2; fail "memcheck errors"; }
log=$(log_of vg-)
"$LLVM_XRAY" convert -output-format=yaml --symbolize -m "$PROG_FILE" "$log" >vg.yaml ||
  fail "llvm-xray convert rejects $log"
check "llvm-xray convert" yaml-fdr expect.txt vg.yaml
check "the runtime's Chrome JSON" chrome expect.txt "$log.json"
echo "args.valgrind: ok"
