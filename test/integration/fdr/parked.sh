# A thread parked inside its first call (a job loop waiting on a condition
# variable) holds one record at exit: a preamble and 8 bytes. The log must
# still give every thread block the sync event, or llvm-xray account fails
# ("Error processing record ... record-type: enter") whenever it reads the
# main thread's block first, which depends on the thread ids' hash: 50 runs
# each of the exit-time log, a fork child's log and an API snapshot; account,
# stack and graph read every one (docs/formats.md, "What llvm-xray needs").
# The snapshot's .json (written from the joined file) has no sync event.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog parked
# read_all FILE: account (leaf's 100 calls; park never returns), stack, graph.
read_all() {
  expect_eq "account of $1" "leaf:100" "$(fdr_counts "$1" parked)"
  "$LLVM_XRAY" stack -m parked "$1" >stack.txt 2>&1 || { cat stack.txt >&2; fail "stack of $1"; }
  "$LLVM_XRAY" graph -m parked "$1" >graph.txt 2>&1 || { cat graph.txt >&2; fail "graph of $1"; }
  expect_eq "sync events in $1" 2 "$(fdr_dump_count "$1" 'xray-sync')"
}
for mode in exit fork snapshot; do
  for ((i = 0; i < 50; i++)); do
    rm -f xray-log.parked.*
    out=xray
    [ $mode != snapshot ] || out=xray+chrome
    XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr" \
      XRAY_FDR_OPTIONS="func_duration_threshold_us=0 trace_output=$out" ./parked $mode >out.txt ||
      fail "$mode run $i: exited with $?"
    if [ $mode = snapshot ]; then
      snap=$(cat out.txt)
      read_all "$snap"
      # its .json, written from the joined snapshot, leaves the sync out
      expect_eq "$snap.json: leaf calls" 100 "$(grep -c '"name":"leaf","ph":"X"' "$snap.json")"
      expect_eq "$snap.json: no sync event" 0 "$(grep -c 'xray-sync' "$snap.json" || true)"
    fi
    logs=$(printf '%s\n' xray-log.parked.* | grep -v -e '\.snap' -e '\.json')
    if [ $mode = fork ]; then # the parent recorded nothing: one empty buffer
      parent=$(for f in $logs; do [ "$(stat -c %s "$f")" != 112 ] || echo "$f"; done)
      [ -n "$parent" ] || fail "fork run $i: no 112-byte log of the parent in: $logs"
      logs=$(echo "$logs" | grep -vxF "$parent")
    fi
    [ "$(echo "$logs" | wc -w)" = 1 ] || fail "$mode run $i: logs: $logs"
    read_all "$logs"
  done
  echo "parked, $mode: 50 runs read"
done
echo "parked: ok"
