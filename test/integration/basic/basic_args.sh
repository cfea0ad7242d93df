# xray_log_args(1): the argument payload records, as llvm-xray convert shows
# them (full 64-bit values), and the same as compiler-rt writes.
source "$TEST_SRC_DIR/basic_lib.sh"
build args
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./args >/dev/null
log=$(only_file "xray-log.args.*")
got=$(yaml args "$log" | grep 'function: add1' |
      sed -E 's/.*(args: \[ [^]]* \]).*kind: ([a-z-]+).*/\1 \2/; s/.*kind: ([a-z-]+).*/\1/')
expect_eq "add1 records" \
"args: [ 100 ] function-enter-arg
function-exit
args: [ 18446744073709551611 ] function-enter-arg
function-exit
args: [ 1311768467463790320 ] function-enter-arg
function-exit" "$got"
expect_eq "counts" "add1 3" "$(counts args "$log")"

# Not on AArch64: compiler-rt 14's __xray_ArgLoggerEntry there is a bare
# `ret`, which returns onto its sled's id word (SIGILL).
if have_ref && [ "$XRAY_TEST_ARCH" != aarch64 ]; then
  build_ref args
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" \
  XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./args.ref >/dev/null 2>&1
  ref=$(only_file "xray-log.args.ref.*")
  expect_eq "arguments like compiler-rt" \
    "$(yaml args.ref "$ref" | grep -o 'args: \[[^]]*\]')" \
    "$(yaml args "$log" | grep -o 'args: \[[^]]*\]')"
fi
