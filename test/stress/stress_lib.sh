# Helpers for the stress scripts (sourced after $XRAY_TEST_LIB_SH).
# shellcheck disable=SC2034  # used by the scripts that source this file
MODES=(xray-basic xray-fdr xray-profiling)
# Under ThreadSanitizer every memory access is a call: timed and counted
# phases shrink by this factor there (the checks stay the same).
TSAN_SLOWDOWN=1
# shellcheck disable=SC2034  # used by the scripts that source this file
case ${XRAY_TEST_SANITIZE:-} in *thread*) TSAN_SLOWDOWN=4 ;; esac

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

# known_bug AREA TEXT: a bug these tests found in another area and its
# owner has not fixed yet (docs/reliability.md lists them). Printed as
# "KNOWN BUG"; fails the test only with XRAY_STRESS_STRICT=1, so the suite
# stays green while the check stays visible. Remove the call with the fix.
known_bug() {
  echo "KNOWN BUG ($1): $2" >&2
  [ "${XRAY_STRESS_STRICT:-0}" != 1 ] || fail "known bug ($1): $2"
}

# trace_loads FILE BINARY: true when llvm-xray loads the file.
trace_loads() {
  "$LLVM_XRAY" convert -f yaml -m "$2" "$1" -o /dev/null >/dev/null 2>&1
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

# check_trace FILE BINARY: llvm-xray must load a basic or FDR file (its
# loader checks every record). Prints the number of function records.
check_trace() {
  local file=$1 bin=$2 n
  need_llvm_xray
  n=$("$LLVM_XRAY" convert -f yaml -m "$bin" "$file" 2>"$file.err" | grep -c 'kind: function-') ||
    true
  [ -s "$file.err" ] && { head -c 2000 "$file.err" >&2; fail "llvm-xray cannot read $file"; }
  echo "${n:-0}"
}

# exact_counts FILE BINARY: llvm-xray convert must load the file; writes
# FILE.counts, one line per (thread, function id): "tid id enters exits",
# where enters count enter and enter-arg records and exits count exit and
# tail-exit records. Keep such files small: YAML is slow to write.
exact_counts() {
  local file=$1 bin=$2
  need_llvm_xray
  "$LLVM_XRAY" convert -f yaml -m "$bin" "$file" -o "$file.yaml" 2>"$file.err" ||
    { head -c 2000 "$file.err" >&2; fail "llvm-xray cannot read $file"; }
  awk '/kind: function-/ {
         id = $0; sub(/.*func-id: */, "", id); sub(/,.*/, "", id)
         tid = $0; sub(/.*thread: */, "", tid); sub(/,.*/, "", tid)
         k = $0; sub(/.*kind: */, "", k); sub(/,.*/, "", k)
         key = tid " " id
         if (k == "function-enter" || k == "function-enter-arg") en[key]++
         else ex[key]++
         seen[key] = 1
       }
       END { for (key in seen) print key, en[key] + 0, ex[key] + 0 }' \
    "$file.yaml" >"$file.counts"
  rm -f "$file.yaml"
}

# enters_of COUNTS ID / exits_of COUNTS ID: totals over all threads.
enters_of() { awk -v id="$2" '$2 == id { n += $3 } END { print n + 0 }' "$1"; }
exits_of() { awk -v id="$2" '$2 == id { n += $4 } END { print n + 0 }' "$1"; }
# unbalanced COUNTS: lines whose enters differ from exits (empty if none).
unbalanced() { awk '$3 != $4' "$1"; }

# check_profile FILE: a profiling-mode file starts with the magic "forpyarx"
# header (compiler-rt's xray_profile_collector.cpp) and its blocks tile the file exactly.
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
