# Helpers of the reader tests (sourced after lib.sh's setup).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
XRAYCTL=${XRAYCTL:-$(dirname "$XRAY_LIB")/../bin/xrayctl}
[ -x "$XRAYCTL" ] || fail "xrayctl not built at $XRAYCTL"
command -v python3 >/dev/null || skip "python3 not found"
COMPARE="python3 $TEST_SRC_DIR/compare_account.py"

# build_workers: progs/workers.c -> ./workers (ours)
build_workers() {
  xr_cc workers "$TEST_SRC_DIR/progs/workers.c"
}
# build_workers_ref: the same against compiler-rt's runtime -> ./workers.ref;
# false when that runtime is not installed (or under sanitizers).
build_workers_ref() {
  local rt
  rt="$("$XRAY_CLANG" -print-resource-dir)/lib/linux"
  [ -z "${XRAY_TEST_SANITIZE:-}" ] && [ -f "$rt/libclang_rt.xray-${XRAY_TEST_ARCH}.a" ] &&
    [ -f "$rt/libclang_rt.xray-fdr-${XRAY_TEST_ARCH}.a" ] || return 1
  "$XRAY_CLANG" -g -O1 -fxray-instrument -fxray-instruction-threshold=1 \
    -fxray-modes=xray-basic,xray-fdr -I"$XRAY_INCLUDE" \
    "$TEST_SRC_DIR/progs/workers.c" -o workers.ref -lpthread
}
# run_workers BIN PREFIX MODE CONFIG THREADS CALLS SERIAL: the one log written
run_workers() {
  local bin=$1 prefix=$2; shift 2
  rm -f "$prefix"*
  XRAY_OPTIONS="xray_logfile_base=$prefix verbosity=0" "./$bin" "$@" 2>"$prefix.err" ||
    fail "$bin $*: $(cat "$prefix.err")"
  only_file "$prefix$bin.??????"
}
# same_as_account BIN LOG: xrayctl report --csv and llvm-xray account
# -format=csv agree on every function's calls and total; prints the
# functions as "id:calls".
same_as_account() {
  "$LLVM_XRAY" account -format=csv -m "$1" "$2" >"$2.account.csv" 2>"$2.account.err" ||
    fail "llvm-xray account rejects $2: $(head -3 "$2.account.err")"
  "$XRAYCTL" report --csv "$2" >"$2.report.csv" || fail "xrayctl report $2"
  $COMPARE --report "$2.report.csv" --account "$2.account.csv"
}
