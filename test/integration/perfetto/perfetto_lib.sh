# Helpers of the Perfetto trace tests (sourced after lib.sh): the schema
# and a Python to read it (pb_lib.sh), and the checker (perfetto_check.py).
need_llvm_xray
# shellcheck source=pb_lib.sh
source "$XRAY_SRC/test/integration/perfetto/pb_lib.sh"

# pf_check TRACE [--account CSV]...: the checker's summary (see its usage).
pf_check() {
  "$PB_PYTHON" "$TEST_SRC_DIR/perfetto_check.py" pb "$@"
}
# pf_against_account PROG LOG: checks LOG.pftrace, its slices per function
# equal to llvm-xray account's calls of LOG, and when LOG.json is there
# (trace_output=...+chrome), each slice equal to its Chrome event; the
# summary in summary.txt.
pf_against_account() {
  local chrome=()
  [ ! -f "$2.json" ] || chrome=(--chrome "$2.json")
  "$LLVM_XRAY" account -m "$1" -format=csv "$2" >account.csv ||
    fail "llvm-xray account rejects $2"
  pf_check "$2.pftrace" --account account.csv "${chrome[@]}" >summary.txt ||
    fail "$2.pftrace"
}
# pf_calls [SUMMARY]: the "name:slices" and "marks:" lines on one line.
pf_calls() {
  grep -v '^instants:\|^drops:\|^threads:\|^process:\|^bytes_per_event:' \
    "${1:-summary.txt}" | paste -sd' ' -
}
# pf_field KEY [SUMMARY]: the value after "KEY:".
pf_field() {
  sed -n "s/^$1://p" "${2:-summary.txt}"
}
# log_of PREFIX: the one binary log matching PREFIX* (not a trace file).
log_of() {
  local f files=()
  for f in "$1"*; do
    case $f in *.json | *.pftrace | *.map) ;; *) [ -e "$f" ] && files+=("$f") ;; esac
  done
  [ ${#files[@]} -eq 1 ] || fail "expected one log $1*, got: ${files[*]:-none}"
  echo "${files[0]}"
}
# shellcheck disable=SC2034  # the scripts that source this file build it
THREADS_C=$XRAY_SRC/test/integration/trace_json/progs/threads.c
