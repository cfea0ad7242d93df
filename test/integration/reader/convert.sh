# xrayctl convert of basic and FDR logs (ours, 4 threads): --to chrome is
# valid JSON with account's calls per function; --to folded has exactly
# the program's call paths, in the order first called (recursion folded),
# and all together the self time report gives; --to perfetto passes the
# Perfetto checker with account's calls (when python's protobuf is there);
# and --to chrome of a log whose calls longjmp skipped is the runtime's own
# JSON of it, marks included.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/reader_lib.sh"
need_llvm_xray
build_workers
N=400
account_calls() { # LOG: "name:calls" per function, sorted by name
  "$LLVM_XRAY" account -format=csv -m workers "$1" |
    awk -F, 'NR > 1 { gsub(/"/, "", $NF); print $NF ":" $2 }' | sort | xargs
}
# the Perfetto tests' schema and checker, with a python3 that has protobuf
pb2='' pb_python=''
for py in python3 /usr/bin/python3; do
  if [ -z "$pb_python" ] && command -v "$py" >/dev/null &&
    "$py" -c 'import google.protobuf' 2>/dev/null; then
    pb_python=$py
  fi
done
if [ -n "$pb_python" ] && command -v protoc >/dev/null; then
  mkdir -p pb2
  protoc -I"$XRAY_SRC/test/integration/perfetto" --python_out=pb2 \
    "$XRAY_SRC/test/integration/perfetto/xray_perfetto.proto" && pb2=pb2
fi

for mode in basic fdr; do
  note "$mode"
  log=$(run_workers workers $mode- xray-$mode "func_duration_threshold_us=0" 4 $N 0)
  want=$(account_calls "$log")
  expect_eq "$mode: account's calls" \
    "fib:$((36 * N)) leaf:$((8 * N)) logged:$((4 * N)) step:$((4 * N)) worker:4" "$want"

  "$XRAYCTL" convert "$log" -m workers --to chrome -o "$mode.json" || fail "--to chrome"
  expect_eq "$mode: chrome calls" "$want" "$(python3 "$TEST_SRC_DIR/chrome_calls.py" "$mode.json")"

  "$XRAYCTL" convert "$log" -m workers --to folded -o "$mode.folded" || fail "--to folded"
  expect_eq "$mode: folded stacks" \
    "worker worker;step worker;step;leaf worker;step;fib worker;step;logged" \
    "$(cut -d' ' -f1 "$mode.folded" | xargs)"
  "$XRAYCTL" report --csv "$log" >"$mode.csv"
  self=$(awk -F, 'NR > 1 { s += $9 } END { print s }' "$mode.csv")
  folded=$(awk '{ s += $2 } END { print s }' "$mode.folded")
  # each line's ns and each function's are rounded down apart: 5 lines, 5 ns
  if [ $((self - folded)) -lt -5 ] || [ $((self - folded)) -gt 5 ]; then
    fail "$mode: folded total $folded ns, report's self total $self ns"
  fi

  if [ -n "$pb2" ]; then
    "$XRAYCTL" convert "$log" -m workers --to perfetto -o "$mode.pftrace" || fail "--to perfetto"
    "$LLVM_XRAY" account -format=csv -m workers "$log" >"$mode.account.csv"
    "$pb_python" "$XRAY_SRC/test/integration/perfetto/perfetto_check.py" "$pb2" "$mode.pftrace" \
      --account "$mode.account.csv" >"$mode.perfetto.txt" || fail "$mode: perfetto_check"
  else
    note "python3's protobuf or protoc missing: --to perfetto not checked"
  fi
done
# calls longjmp skipped, custom events: --to chrome of the log holds the
# calls of the runtime's own JSON, "unwound" marks included (basic: the
# flag byte; FDR: the "xray-unwound N" events)
xr_cc threads "$XRAY_SRC/test/integration/trace_json/progs/threads.c"
for mode in basic fdr; do
  rm -f "j-$mode-"*
  XRAY_OPTIONS="xray_logfile_base=j-$mode- verbosity=0" ./threads "xray-$mode" \
    "func_duration_threshold_us=0:trace_output=xray+chrome" 4 700 1 1 || fail "threads $mode"
  log=$(only_file "j-$mode-threads.??????")
  "$XRAYCTL" convert "$log" -m threads --to chrome -o "j-$mode.json" || fail "--to chrome"
  # 4 threads x 700 mid: 100 deep(3) jumps a thread, 4 frames each unwound
  expect_eq "$mode: calls and marks against the runtime's JSON" "whole=8432 unwound=1600" \
    "$(python3 "$TEST_SRC_DIR/chrome_calls.py" "j-$mode.json" --same-as "$log.json")"
done
echo "convert: ok"
