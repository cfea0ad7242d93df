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
# llvm-xray account counts calls in the snapshot. With xray+chrome a crash
# still writes no .json (the Chrome writer is not async-signal-safe), nor
# with xray+perfetto+chrome beside the .pftrace. A file size limit below
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
protoc -I"$TEST_SRC_DIR" --python_out=. "$TEST_SRC_DIR/pftrace_slices.proto" ||
  fail "protoc pftrace_slices.proto"
# perfetto_slices TRACE: its slices, decoded with the schema (pftrace_slices.py)
perfetto_slices() { "$py" "$TEST_SRC_DIR/pftrace_slices.py" . "$1"; }
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
  tid=$(grep -o 'xray-snapshot number=1 reason=crash signal=11 tid=[0-9]*' <("$LLVM_XRAY" fdr-dump "$snap") |
        sed 's/.*tid=//')
  [ -n "$tid" ] || fail "$mode: no crash metadata in $snap"
  # the slices of every thread's track, from the real schema: nesting,
  # the open calls at the end, names, finished slices per function
  perfetto_slices "$snap.pftrace" >slices.txt || fail "$mode: cannot decode $snap.pftrace"
  python3 - slices.txt "$tid" "$mode" <<'PY' >check.txt || fail "$mode: $(cat check.txt)"
import collections, sys
# slices.txt (pftrace_slices.py): "TID NS B NAME" and "TID NS E CUT" per
# track in time order, then "thread TID NAME" and "process PID NAME"
tracks = collections.defaultdict(list)
threads, processes = {}, {}
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split(" ", 3)
    if f[0] == "thread":
        threads[f[1]] = f[2]
    elif f[0] == "process":
        processes[f[1]] = f[2]
    else:
        tracks[f[0]].append((int(f[1]), f[2], f[3]))
crashed, mode = sys.argv[2], sys.argv[3]
finished = collections.Counter()
try:
    for tid, events in tracks.items():
        stack, left_open = [], []
        for ts, kind, what in events:
            if kind == "B":
                assert not left_open, "thread %s: a call after the open ones" % tid
                stack.append(what)
                continue
            assert stack, "thread %s: an end without a begin at %d" % (tid, ts)
            name = stack.pop()
            if what == "open":  # the writer ends what never returned
                left_open.append(name)
            else:
                assert what == "-" and not left_open, \
                    "thread %s: %s ends %s after open calls" % (tid, name, what)
                finished[name] += 1
        assert not stack, "thread %s: %s never end" % (tid, stack)
        if tid == crashed:
            assert left_open == ["crash_null", "middle", "outer"], \
                "crashing thread %s ends with %s open" % (tid, left_open)
            assert events[-1][0] == events[-2][0] == events[-3][0], events[-3:]
        else:
            assert left_open in ([], ["work"]), \
                "thread %s ends with %s open" % (tid, left_open)
    assert crashed in tracks, "no track of the crashing thread %s" % crashed
    assert len(tracks) == (2 if mode == "threaded" else 1), sorted(tracks)
    assert threads.get(crashed) == ("crasher" if mode == "threaded"
                                    else "crash_trace"), threads
    assert list(processes.values()) == ["crash_trace"], processes
except AssertionError as e:
    print(e)
    sys.exit(1)
print(" ".join(sorted("%s:%d" % kv for kv in finished.items())))
PY
  want=$(account_counts "$snap")
  expect_eq "$mode: finished slices per function = llvm-xray account's calls" "$want" "$(cat check.txt)"
  case $mode in
    nested) expect_eq "nested: the calls" "plug_leaf:5 plug_work:5 work:10" "$want" ;;
    threaded) [[ "$want" == "plug_leaf:5 plug_work:5 work:"* ]] || fail "threaded: $want" ;;
  esac
done

# Chrome is not signal-safe: a crash writes no .json, perfetto or not.
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
