# Runs test/bench/run.sh --check-only against the archive under test.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
export XRAY_CLANG LLVM_XRAY
bash "$XRAY_SRC/test/bench/run.sh" --check-only --lib "$XRAY_LIB" \
  --work "$TEST_WORK_DIR" --logs "$TEST_WORK_DIR/logs"
