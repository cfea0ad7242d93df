# FDR mode with trace_output=xray+chrome: the JSON beside the log parses,
# nests per thread, has exactly the calls and total times llvm-xray convert
# and account (14 and 19) find in the log, custom events as instant events
# with their payload escaped, and the calls longjmp skipped marked: in the
# JSON made from the buffers at flush, and in a snapshot's, made from the
# joined file read back, which says which exits unwinding skipped.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/trace_lib.sh"
source "$XRAY_SRC/test/integration/fdr/fdr_framing_lib.sh"
build_threads
cfg="func_duration_threshold_us=0:trace_output=xray+chrome"
XRAY_OPTIONS=xray_logfile_base=one- ./threads xray-fdr "$cfg" 1 3000 0 1
log=$(log_of one-threads.)
expect_eq "one thread" "leaf:6000 log_event:30 marks: mid:3000 worker:1" \
  "$(check_against_llvm_xray "$log" | sort | paste -sd' ' -)"
# 30 custom events, payload byte for byte (read as Latin-1)
python3 - "$log.json" <<'PY' || fail "custom events"
import json, sys
ev = [e for e in json.load(open(sys.argv[1])) if e["ph"] == "i"]
want = 'say "hi"\\ \n\t\x01\xff'
assert len(ev) == 30, len(ev)
assert all(e["name"] == "custom event" and e["args"]["data"] == want for e in ev), ev[0]
PY

# four threads, 1 KiB buffers (> 16 per thread), longjmp: every call, the
# skipped ones marked
XRAY_OPTIONS=xray_logfile_base=four- ./threads xray-fdr "$cfg:buffer_size=1024:buffer_max=2000" 4 3000 1 0
log=$(log_of four-threads.)
args=()
for x in "${LLVM_XRAY_VERSIONS[@]}"; do
  "$x" convert -f trace_event -m threads --symbolize "$log" -o "c-$(basename "$x").json" ||
    fail "$x convert"
  args+=(--ref "c-$(basename "$x").json")
done
expect_eq "four threads" "deep:6864 leaf:24000 marks:unwound=6864 mid:12000 worker:4" \
  "$($CHECK "$log.json" "${args[@]}" | sort | paste -sd' ' -)"

# the same workload, snapshot taken when the workers are done: its JSON,
# from the file, marks exactly the 6864 calls the longjmps skipped (each
# of deep(3)'s 4 frames, 1716 jumps), as llvm-xray convert of the snapshot
THREADS_SNAPSHOT=1 XRAY_OPTIONS=xray_logfile_base=snap- ./threads xray-fdr \
  "$cfg:buffer_size=1024:buffer_max=2000" 4 3000 1 0
snap=$(only_file "snap-threads.*.snap000001")
[ -f "$snap.json" ] || fail "no $snap.json"
args=()
for x in "${LLVM_XRAY_VERSIONS[@]}"; do
  "$x" convert -f trace_event -m threads --symbolize "$snap" -o "s-$(basename "$x").json" ||
    fail "$x convert $snap"
  "$x" account -m threads "$snap" >/dev/null || fail "$x account $snap"
  args+=(--ref "s-$(basename "$x").json")
done
expect_eq "four threads, snapshot" "deep:6864 leaf:24000 marks:unwound=6864 mid:12000 worker:4" \
  "$($CHECK "$snap.json" "${args[@]}" | sort | paste -sd' ' -)"
echo "fdr: ok"
