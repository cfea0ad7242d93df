# Argument capture end to end, basic mode: the program of fdr.sh traced in
# basic mode; every value read back bit for bit from llvm-xray convert
# (the argument payload records after each entry and exit), the Chrome
# JSON the runtime writes beside the log and xrayctl convert's.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/args_lib.sh"
run_and_check basic
echo "args.basic: ok"
