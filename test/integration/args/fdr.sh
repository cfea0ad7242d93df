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
run_and_check fdr
echo "args.fdr: ok"
