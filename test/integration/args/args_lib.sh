# Helpers of the argument-capture tests (sourced after lib.sh): the program
# (args_prog.c) and the checker (check_args.py), whose table is the one
# SPEC the tests give.
need_llvm_xray
XRAYCTL=${XRAYCTL:-$(dirname "$XRAY_LIB")/../bin/xrayctl} # cross.sh: under the emulator
[ -x "$XRAYCTL" ] || fail "xrayctl not built at $XRAYCTL"
PB_MODULES=yaml
# shellcheck source=../perfetto/pb_lib.sh
source "$XRAY_SRC/test/integration/perfetto/pb_lib.sh"
CHECK=("$PB_PYTHON" "$TEST_SRC_DIR/check_args.py")
xr_cc args_prog "$TEST_SRC_DIR/args_prog.c" -lm
# shellcheck disable=SC2034  # used by the scripts that source this file
SPEC=$("${CHECK[@]}" spec "$XRAY_TEST_ARCH")
# shellcheck disable=SC2034  # used by the scripts that source this file
PROG_FILE=$(xr_program_file args_prog)

# log_of PREFIX: the one binary log matching PREFIX* (not .json/.pftrace/.map)
log_of() {
  local f files=()
  for f in "$1"*; do
    case $f in *.json | *.pftrace | *.map | *.culled) ;; *) [ -e "$f" ] && files+=("$f") ;; esac
  done
  [ ${#files[@]} -eq 1 ] || fail "expected one log $1*, got: ${files[*]:-none}"
  echo "${files[0]}"
}
# check WHAT KIND FILE...: the checker on FILE, its "ok: N values" line kept
check() {
  local what=$1
  shift
  "${CHECK[@]}" "$@" "$XRAY_TEST_ARCH" >check.out || { cat check.out >&2; fail "$what"; }
  note "$what: $(cat check.out)"
}
# run_and_check MODE (basic or fdr): args_prog traced in that mode with the
# SPEC, every output of its log checked: llvm-xray convert (the checker's
# yaml-MODE reading), account, the runtime's Chrome JSON and Perfetto trace,
# and xrayctl convert's.
run_and_check() {
  local mode=$1 upper
  upper=$(echo "$1" | tr '[:lower:]' '[:upper:]')
  env XRAY_OPTIONS="patch_premain=true xray_mode=xray-$mode xray_logfile_base=$mode- xray_args=$SPEC" \
    "XRAY_${upper}_OPTIONS=func_duration_threshold_us=0:trace_output=xray+chrome+perfetto" \
    ./args_prog run || fail "args_prog exited $?"
  local log
  log=$(log_of "$mode-")
  "$LLVM_XRAY" convert -output-format=yaml --symbolize -m "$PROG_FILE" "$log" >"$mode.yaml" ||
    fail "llvm-xray convert rejects $log"
  check "llvm-xray convert" "yaml-$mode" expect.txt "$mode.yaml"
  "$LLVM_XRAY" account -m "$PROG_FILE" "$log" >account.txt || fail "llvm-xray account rejects $log"
  check "the runtime's Chrome JSON" chrome expect.txt "$log.json"
  check "the runtime's Perfetto trace" perfetto expect.txt "$log.pftrace" pb
  "$XRAYCTL" convert "$log" -m "$PROG_FILE" --to chrome -o xrayctl.json || fail "xrayctl convert"
  check "xrayctl convert's Chrome JSON" chrome expect.txt xrayctl.json
  "$XRAYCTL" convert "$log" -m "$PROG_FILE" --to perfetto -o xrayctl.pftrace || fail "xrayctl convert"
  check "xrayctl convert's Perfetto trace" perfetto expect.txt xrayctl.pftrace pb
}
