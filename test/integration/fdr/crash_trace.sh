# snapshot_on_crash=true with trace_output=xray+perfetto: the crash handler
# writes the crash snapshot's <snapshot>.pftrace. A SIGSEGV in a nested
# call (outer -> middle -> crash_null) after calls in the executable and in
# a plugin loaded with dlopen once FDR recorded; on the main thread, and on
# a second thread while the main thread keeps calling. Each crash ends
# exactly as without the option (signal, core dump, exit status); the
# .pftrace, decoded with the Perfetto schema, has properly nested slices,
# the crashing call and its callers open at the end of the crashing
# thread's track, names for the executable's and the plugin's functions,
# thread and process names, and per function as many finished slices as
# llvm-xray account counts calls in the snapshot (perfetto_check.py, from
# test/integration/perfetto, decodes and checks it). With xray+chrome a crash
# still writes no .json (a crash writes the native trace only), nor with
# xray+perfetto+chrome beside the .pftrace. A file size limit below
# the trace's size: no .pftrace, no .part, the crash unchanged.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
source "$XRAY_SRC/test/integration/dso/dso_lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
command -v protoc >/dev/null || skip "protoc not found (protobuf-compiler)"
# a python3 with the protobuf module (python3-protobuf)
py=""
for p in python3 /usr/bin/python3; do
  if "$p" -c "import google.protobuf" 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || skip "no python3 with the protobuf module (python3-protobuf)"
perfetto_dir=$XRAY_SRC/test/integration/perfetto
protoc -I"$perfetto_dir" --python_out=. "$perfetto_dir/xray_perfetto.proto" ||
  fail "protoc xray_perfetto.proto"
xr_so "$XRAY_CLANG" plug.so "$TEST_SRC_DIR/progs/crash_trace_plug.c"
xr_exe "$XRAY_CLANG" crash_trace "$TEST_SRC_DIR/progs/crash_trace.c" -I"$TEST_SRC_DIR/progs"
ulimit -c unlimited 2>/dev/null || true
plug=$PWD/plug.so
base="func_duration_threshold_us=0"

# run LABEL OPTIONS MODE: runs the program without snapshot_on_crash and
# with it plus OPTIONS; both must end alike. Leaves err.txt and $snap.
run() {
  rm -f xray-log.crash_trace.* core core.*
  local without with want=signal=11
  without=$(wait_status ./crash_trace "$base" "$3" "$plug" 2>/dev/null)
  rm -f core core.*
  with=$(XRAY_OPTIONS=verbosity=1 wait_status ./crash_trace "$base snapshot_on_crash=true $2" "$3" "$plug" 2>err.txt)
  rm -f core core.*
  expect_eq "$1: ends as without the option" "$without" "$with"
  # AddressSanitizer's SIGSEGV handler (the program's, from where we stand:
  # it was installed first) reports and exits 1
  [ -z "${XRAY_TEST_SANITIZE:-}" ] || want=exit=1
  [[ "$with" == "$want"* ]] || fail "$1: ended with $with, want $want"
  snap=$(only_file "xray-log.crash_trace.*.snap000001")
  expect_eq "$1: no file left half written" "" "$(ls ./*.part 2>/dev/null || true)"
}

# account_counts SNAP: "name:count ..." of llvm-xray account on the
# snapshot, its dense ids named by the snapshot's map (the plugin's ids are
# not the executable's), sorted by name.
account_counts() {
  "$LLVM_XRAY" account -m crash_trace -format=csv "$1" >account.csv ||
    fail "llvm-xray account $1"
  python3 - "$1.map" account.csv <<'PY'
import csv, sys
names = {}
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == "function":
        names[int(f[1])] = f[4]
rows = list(csv.DictReader(open(sys.argv[2])))
print(" ".join(sorted("%s:%s" % (names[int(r["funcid"])], r["count"]) for r in rows)))
PY
}

for mode in nested threaded; do
  run "$mode" "trace_output=xray+perfetto" "$mode"
  [ -f "$snap.pftrace" ] || { cat err.txt >&2; fail "$mode: no $snap.pftrace"; }
  expect_eq "$mode: said" 1 \
    "$(grep -cF "crash snapshot '$snap' also as '$snap.pftrace'" err.txt)"
  # the real schema: every packet, sequence, clock, name and track as the
  # trace processor reads them, slices that nest (perfetto_check.py)
  "$py" "$perfetto_dir/perfetto_check.py" . "$snap.pftrace" >check.txt ||
    fail "$mode: $snap.pftrace does not check"
  want=$(account_counts "$snap")
  if [ "$mode" = nested ]; then
    crasher=crash_trace other=""
  else
    crasher=crasher other=crash_trace
  fi
  # the crashing call and its callers never returned: their slices are
  # marked open and end at the end of the crashing thread's events; the
  # main thread, still calling, may be inside work()
  expect_eq "$mode: open at the crash" 1 "$(grep -c ':outer,middle,crash_null$' check.txt)"
  main_open=$(grep -c "^open:.*:work$" check.txt || true)
  expect_eq "$mode: other open slices" $((1 + main_open)) "$(grep -c '^open:' check.txt)"
  expect_eq "$mode: marks" "marks:open=$((3 + main_open))" "$(grep '^marks:' check.txt)"
  if [ -n "${XRAY_TEST_EMULATOR:-}" ]; then
    note "thread names not checked under emulation (/proc shows the emulator's)"
  else
    expect_eq "$mode: the crashing thread's" "open:$crasher:outer,middle,crash_null" \
      "$(grep ':outer,middle,crash_null$' check.txt)"
    expect_eq "$mode: threads" "threads:$(printf '%s\n' $crasher $other | sort | paste -sd,)" \
      "$(grep '^threads:' check.txt)"
  fi
  [[ "$(grep '^process:' check.txt)" == "process:crash_trace;xray runtime "* ]] ||
    fail "$mode: $(grep '^process:' check.txt)"
  # per function, the slices that ended are llvm-xray account's calls (it
  # counts calls that returned); names of the executable and the plugin
  expect_eq "$mode: one instant (the snapshot's metadata)" instants:1 "$(grep '^instants:' check.txt)"
  got=$(grep -vE '^(marks|instants|drops|threads|process|open|bytes_per_event):' check.txt | python3 -c '
import sys
open_calls = {"outer": 1, "middle": 1, "crash_null": 1, "work": int(sys.argv[1])}
out = []
for line in sys.stdin:
    name, n = line.strip().split(":")
    n = int(n) - open_calls.get(name, 0)
    if n:
        out.append("%s:%d" % (name, n))
print(" ".join(sorted(out)))' "$main_open")
  expect_eq "$mode: finished slices per function = llvm-xray account's calls" "$want" "$got"
  case $mode in
    nested) expect_eq "nested: the calls" "plug_leaf:5 plug_work:5 work:10" "$want" ;;
    threaded) [[ "$want" == "plug_leaf:5 plug_work:5 work:"* ]] || fail "threaded: $want" ;;
  esac
done

# A crash writes the native trace only: no .json, perfetto or not.
run chrome "trace_output=xray+chrome" nested
expect_eq "chrome: no trace beside the snapshot" "" "$(ls "$snap".json* "$snap".pftrace* 2>/dev/null || true)"
run both "trace_output=xray+perfetto+chrome" nested
[ -f "$snap.pftrace" ] || fail "both: no $snap.pftrace"
expect_eq "both: no .json" "" "$(ls "$snap".json* 2>/dev/null || true)"

# A file size limit that the snapshot fits under and its trace does not
# (3000 calls: the trace is the larger): the trace is removed and said,
# and SIGXFSZ does not end the process instead of its crash.
run long "trace_output=xray+perfetto" long
snap_size=$(stat -c %s "$snap")
trace_size=$(stat -c %s "$snap.pftrace")
limit=$(( (snap_size + 1023) / 1024 ))
[ "$trace_size" -gt $((limit * 1024)) ] ||
  fail "the trace ($trace_size bytes) fits under the snapshot's limit ($limit KiB)"
( ulimit -f "$limit" && run fsize "trace_output=xray+perfetto" long ) || exit 1
snap=$(only_file "xray-log.crash_trace.*.snap000001")
expect_eq "fsize: the snapshot is whole" "plug_leaf:5 plug_work:5 work:3000" "$(account_counts "$snap")"
expect_eq "fsize: no trace" "" "$(ls "$snap".pftrace* 2>/dev/null || true)"
grep -qF "no trace file '$snap.pftrace' of the crash snapshot: file size limit" err.txt ||
  fail "fsize: not said: $(cat err.txt)"
echo "crash_trace: ok"
