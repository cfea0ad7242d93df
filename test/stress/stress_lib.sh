# Helpers for the stress scripts (sourced after $XRAY_TEST_LIB_SH).
MODES=(xray-basic xray-fdr xray-profiling)

# have_mode MODE: the archive defines that built-in mode (the modes are
# written in parallel; a missing one is skipped with a note).
have_mode() {
  local sym
  case $1 in
    xray-basic) sym=xr_basic_impl ;;
    xray-fdr) sym=xr_fdr_impl ;;
    xray-profiling) sym=xr_profiling_impl ;;
    *) return 0 ;;
  esac
  nm "$XRAY_LIB" 2>/dev/null | grep -Eq " [DdRrBb] $sym\$" && return 0
  note "$1 is not in the archive: skipped"
  return 1
}

# build NAME [extra clang flags...]: compiles $TEST_SRC_DIR/NAME.c with the
# shared stress.h into ./NAME, instrumented and linked with libxray.a.
build() {
  local name=$1; shift
  xr_cc "$name" "$TEST_SRC_DIR/$name.c" -I"$TEST_SRC_DIR" -Wall -Wno-unused-function "$@"
}

# run LOG CMD...: runs CMD with stdout+stderr in LOG; on a non-zero exit
# shows the log tail and fails.
run() {
  local log=$1; shift
  local rc=0
  "$@" >"$log" 2>&1 || rc=$?
  if [ $rc -ne 0 ]; then
    tail -n 30 "$log" >&2
    fail "$* exited with $rc"
  fi
}

# check_trace FILE BINARY: llvm-xray must read a basic or FDR file; prints
# the number of function records (enter + exit + tail).
check_trace() {
  local file=$1 bin=$2
  need_llvm_xray
  "$LLVM_XRAY" convert -f yaml -m "$bin" "$file" -o "$file.yaml" 2>"$file.err" ||
    { cat "$file.err" >&2; fail "llvm-xray cannot read $file"; }
  grep -c 'kind: *function-' "$file.yaml" || true
}

# count_kind YAML FUNCTION_ID KIND: records of that id and kind
# (function-enter, function-exit, function-tail-exit, function-enter-arg).
count_kind() {
  grep -E "id: *$2, .*kind: *$3[ ,]" "$1" | wc -l
}

# check_profile FILE: a profiling-mode file starts with the magic "forpyarx"
# header (xray-abi.md 5.5) and its blocks tile the file exactly.
check_profile() {
  local file=$1
  [ "$(head -c 8 "$file" | od -An -c | tr -d ' \n')" = forpyarx ] ||
    fail "$file: no profiling magic"
  local size off=32 bsize
  size=$(stat -c %s "$file")
  while [ $off -lt "$size" ]; do
    bsize=$(od -An -tu4 -j $off -N4 "$file" | tr -d ' ')
    [ "$bsize" -ge 16 ] || fail "$file: block at $off has size $bsize"
    off=$((off + bsize))
  done
  [ $off -eq "$size" ] || fail "$file: blocks end at $off, file is $size bytes"
}

# mode_file MODE PREFIX: the single file a mode wrote with that logfile base.
mode_file() {
  only_file "$2*"
}
