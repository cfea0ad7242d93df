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
  # (no grep -q on a pipe: with pipefail, nm's SIGPIPE would fail the test)
  [ -n "${XRAY_ARCHIVE_SYMBOLS:-}" ] || XRAY_ARCHIVE_SYMBOLS=$(nm "$XRAY_LIB" 2>/dev/null || true)
  grep -Eq " [DdRrBbVv] $sym\$" <<<"$XRAY_ARCHIVE_SYMBOLS" && return 0
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

# check_trace FILE BINARY [strict]: llvm-xray must read a basic or FDR
# file. Writes FILE.csv (llvm-xray account: matched calls per function id)
# and prints the total number of matched calls. With "strict", every entry
# must have its exit (account fails on unbalanced stacks); otherwise
# (patching mid-call leaves calls half recorded) it keeps going.
check_trace() {
  local file=$1 bin=$2 keep=(-k)
  need_llvm_xray
  [ "${3:-}" = strict ] && keep=()
  "$LLVM_XRAY" account "${keep[@]}" -format=csv -m "$bin" "$file" -o "$file.csv" 2>"$file.err" ||
    { head -c 2000 "$file.err" >&2; fail "llvm-xray cannot read $file"; }
  awk -F, 'NR > 1 { n += $2 } END { print n + 0 }' "$file.csv"
}

# calls_of CSV FUNCTION_ID: matched calls of that function (0 if absent).
calls_of() {
  awk -F, -v id="$2" 'NR > 1 && $1 == id { n = $2 } END { print n + 0 }' "$1"
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
