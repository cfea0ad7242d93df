# Captured argument values in FDR logs, handed to the argument sink as
# lib/args does (progs/args.c): every value reaches the file exactly with
# its record (fdr_values.py reads it without the runtime's code), llvm-xray
# convert shows each entry's values as its args, account and the framing
# check still read the files; at a large threshold the calls with values
# stay and the others go; small buffers never split a call; a snapshot and
# format_version=1 hold them too; the slow-call trigger sees a call whose
# events come only through the sink; the Chrome JSON written in-process
# and xrayctl convert's show every value as its slice's args, and never an
# xray-args event.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog args -I"$XRAY_SRC/lib"
start="patch_premain=true xray_mode=xray-fdr"

# run NAME FDR_OPTIONS ARGS...: runs ./args, leaves its log in NAME.xray,
# what it handed over in NAME.expect, its stdout in NAME.out
run() {
  local name=$1 options=$2; shift 2
  rm -f xray-log.args.*
  XRAY_OPTIONS="$start" XRAY_FDR_OPTIONS="$options" ./args "$@" >"$name.out" ||
    fail "$name: exit status $?"
  sed -n '/^expect$/,$p' "$name.out" | tail -n +2 | by_thread >"$name.expect"
  [ -s "$name.expect" ] || fail "$name: the program handed nothing over"
  cp "$(only_file "xray-log.args.??????")" "$name.xray"
  python3 "$TEST_SRC_DIR/fdr_frame_check.py" "$name.xray" >/dev/null ||
    fail "$name: framing"
}
# by_thread: lines "T<tid> ...", each thread's together in their order
by_thread() { sort -s -k1,1; }
# values_of NAME FILE: the values FILE holds (fdr_values.py), by thread
values_of() {
  python3 "$TEST_SRC_DIR/fdr_values.py" "$2" >"$1.got" || fail "$1: fdr_values.py"
  by_thread <"$1.got"
}
# yaml_args FILE: "T<tid> function args..." of each enter-with-argument
# record, as llvm-xray convert shows them (args in hex), by thread; the
# YAML in FILE.yaml
yaml_args() {
  "$LLVM_XRAY" convert -output-format=yaml -instr_map=./args --symbolize "$1" >"$1.yaml" ||
    fail "llvm-xray convert $1"
  python3 -c '
import sys, yaml
for r in yaml.safe_load(open(sys.argv[1]))["records"]:
    if r["kind"] == "function-enter-arg":
        print("T%d %s %s" % (r["thread"], r["function"], " ".join("%x" % a for a in r["args"])))' \
    "$1.yaml" | by_thread
}
# The Chrome JSON the runtime writes beside the log, and xrayctl convert's
# of the log: each call's values as its slice's args, exactly.
json_values() {
  python3 - "$1" <<'PY' || fail "json: $1 does not hold the values exactly"
import json, sys
events = json.load(open(sys.argv[1]))
events = events if isinstance(events, list) else events["traceEvents"]
assert not [e for e in events if "xray-args" in json.dumps(e)], "an xray-args event shown"
calls = {}
for e in events:
    if e.get("ph") == "X" and e["name"].startswith("target_"):
        calls.setdefault(e["name"], []).append(e.get("args", {}))
assert sorted((k, len(v)) for k, v in calls.items()) == [
    ("target_ints", 10), ("target_one", 10), ("target_plain", 10), ("target_strings", 10)], calls.keys()
cut = "0123456789abcdef" * 4
seen = set()
for a in calls["target_ints"]:
    t, i = divmod(a["arg1"], 1000000)
    seen.add((t, i))
    want = {"arg1": t * 1000000 + i, "arg2": -2**63, "arg3": 2**64 - 1, "arg4": "0x%x" % (0x1000 + i),
            "arg5": "0x%x" % (0x7fff00000000 + 8 * i), "fparg1": "nan:0x7ff8dead0000beef",
            "fparg2": -0.0, "fparg3": "nan:0x7fc00001"}
    got = {k: v for k, v in a.items() if k != "retval"}
    assert got == want and str(a["fparg2"]) == "-0.0", (got, want)
    if i % 2:
        assert a["retval"] == "0x%x" % (0xfeedface00000000 + i), a
    else:
        assert isinstance(a["retval"], float), a
assert seen == {(t, i) for t in (0, 1) for i in range(5)}, seen
for a in calls["target_strings"]:
    i = -a["arg4"]
    assert a == {"arg1": a["arg1"], "arg2": None, "arg2.status": "null", "arg3": None,
                 "arg3.status": "unreadable", "arg4": -i, "arg5": cut, "arg5.status": "cut",
                 "arg6": "par", "arg6.status": "partial", "retval": "ret"}, a
    assert a["arg1"] in ("t0 i%d" % i, "t1 i%d" % i), a
assert sorted(a["arg1"] for a in calls["target_one"]) == sorted(list(range(5)) * 2), calls["target_one"]
assert all(a == {} for a in calls["target_plain"]), calls["target_plain"]
PY
}
ids=$("$LLVM_XRAY" extract --symbolize args)
id_of() { awk -v f="$1" '$0 ~ "function-name: " f "[, ]" { match($0, /id: *[0-9]+/); print substr($0, RSTART + 4, RLENGTH - 4) + 0; exit }' <<<"$ids"; }
# expect_args NAME: what llvm-xray should show of NAME.expect (the bits of
# each entry's values), by thread
expect_args() {
  awk -v ints="$(id_of target_ints)" -v strings="$(id_of target_strings)" -v one="$(id_of target_one)" '
    $3 == "enter" {
      name = $2 == "F" ints ? "target_ints" : $2 == "F" strings ? "target_strings" : \
             $2 == "F" one ? "target_one" : "?"
      line = $1 " " name
      for (i = 4; i <= NF; i++) { v = $i; sub(/^[^=]*=/, "", v); sub(/:.*/, "", v); line = line " " v }
      print line
    }' "$1.expect" | by_thread
}

# Every value, bit for bit, with its record: two threads of 50 nested
# calls each; the snapshot taken after them holds the same.
run values "func_duration_threshold_us=0" values 50
expect_eq "values: lines handed over" 500 "$(wc -l <values.expect)"
for want in "21.6.0=7ff8dead0000beef" "22.6.0=8000000000000000" "12.1.0=8000000000000000" \
            "13.2.0=ffffffffffffffff" "23.7.0=7fc00001" "12.5.1=0:" "13.5.2=dead000:" \
            "15.5.3=6000:$(printf %s 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef | od -An -v -tx1 | tr -d ' \n')" \
            "16.5.4=7000:706172" "30.5.0=8000:726574"; do
  grep -q -F " $want" values.expect || fail "values: the program did not hand over $want"
done
values_of values values.xray >values.file
diff -u values.expect values.file >&2 || fail "values: the log's values differ"
yaml_args values.xray >values.yaml_args
expect_args values >values.want_args
diff -u values.want_args values.yaml_args >&2 || fail "values: llvm-xray's args differ"
# the events are printable: convert shows a return value's whole
grep -q "function: target_strings, .*kind: custom-event, .*data: 'xray-args retval/s=0000000000008000:ok:726574'" \
  values.xray.yaml || fail "values: llvm-xray does not show target_strings' return value"
expect_eq "values: llvm-xray account reads it" "inner:100 leaf:100 outer:100 target_ints:100 target_one:100 target_plain:100 target_strings:100" \
  "$("$LLVM_XRAY" account -m ./args -format=csv values.xray | awk -F, 'NR > 1 { gsub(/"/, "", $NF); print $NF ":" $2 }' | sort | paste -sd' ' -)"
snap=$(sed -n 's/^snapshot //p' values.out)
[ -f "$snap" ] || fail "values: no snapshot file ($snap)"
python3 "$TEST_SRC_DIR/fdr_frame_check.py" "$snap" >/dev/null || fail "snapshot: framing"
values_of values "$snap" >values.snap
diff -u values.expect values.snap >&2 || fail "snapshot: its values differ"
yaml_args "$snap" >values.snap_args
diff -u values.want_args values.snap_args >&2 || fail "snapshot: llvm-xray's args differ"

# A large threshold on one CPU: calls with values stay, and what encloses
# them: an exit with its value (target_strings, its exit's string), a call
# with a value at its entry only whose plain exit comes right after it
# (target_one: the exit does not take the entry back); leaf() and the
# sink's calls without values (target_plain) are erased.
rm -f xray-log.args.*
XRAY_OPTIONS="$start" XRAY_FDR_OPTIONS="func_duration_threshold_us=1000000" \
  xr_pinned ./args values 50 >threshold.out || fail "threshold: exit status $?"
f=$(only_file "xray-log.args.??????")
expect_eq "threshold: calls kept" "inner:100/100 main:1/0 outer:100/100 target_ints:100/100 target_one:100/100 target_strings:100/100" \
  "$(fdr_calls "$f" args)"
sed -n '/^expect$/,$p' threshold.out | tail -n +2 | by_thread >threshold.expect
values_of threshold "$f" >threshold.file
diff -u threshold.expect threshold.file >&2 || fail "threshold: the log's values differ"
python3 "$TEST_SRC_DIR/fdr_frame_check.py" "$f" >/dev/null || fail "threshold: framing"

# 4096-byte buffers, nested calls of 16 values with 8 strings (1545 bytes
# an entry at most): the ring keeps the last buffers, each call's records
# whole, in order; an exit whose entry the ring took is dropped with its
# value. On one CPU the buffers' layout depends only on the number of
# calls: in these runs the oldest kept buffer begins between an entry
# and its exit (checked: such an exit is dropped in one of them at least).
dropped=0
for n in 203 204 205; do
  rm -f xray-log.args.*
  XRAY_OPTIONS="$start" XRAY_FDR_OPTIONS="func_duration_threshold_us=0 buffer_size=4096 buffer_max=8" \
    xr_pinned ./args big "$n" >big.out || fail "big $n: exit status $?"
  sed -n '/^expect$/,$p' big.out | tail -n +2 >big.expect
  cp "$(only_file "xray-log.args.??????")" big.xray
  python3 "$TEST_SRC_DIR/fdr_frame_check.py" big.xray >/dev/null || fail "big $n: framing"
  values_of big big.xray >big.file
  expect_eq "big $n: 16 values an entry" "16" \
    "$(awk '$3 == "enter" { print NF - 3 }' big.file | sort -u | paste -sd' ' -)"
  d=$(python3 - big.expect big.file <<'PY') || fail "big $n: the kept calls differ from the last ones handed over"
import sys
want, got = [open(p).read().splitlines() for p in sys.argv[1:]]
assert got and " enter " in got[0], got[:1]
start = len(want) - 1 - want[::-1].index(got[0])
open_calls, kept, dropped = 0, [], 0
for line in want[start:]:
    if " enter " in line:
        open_calls += 1
    elif open_calls == 0:
        dropped += 1  # its entry was in a buffer the ring took
        continue
    else:
        open_calls -= 1
    kept.append(line)
assert got == kept, "first difference at line %d" % next(
    i for i, (a, b) in enumerate(zip(got + [""], kept + [""])) if a != b)
assert 20 <= len(got) < len(want), len(got)
print(dropped)
PY
  dropped=$((dropped + d))
done
[ "$dropped" -ge 1 ] || fail "big: no exit with a value lost its entry: that case was not tested"
rm -f xray-log.args.*

# format_version=1: the same values, the events' markers with their time.
run v1 "func_duration_threshold_us=0 format_version=1" values 20
values_of v1 v1.xray >v1.file
diff -u v1.expect v1.file >&2 || fail "v1: the log's values differ"
yaml_args v1.xray >v1.yaml_args
expect_args v1 >v1.want_args
diff -u v1.want_args v1.yaml_args >&2 || fail "v1: llvm-xray's args differ"

# The slow-call trigger watches a function whose events come only through
# the sink: its 20 ms call writes a snapshot holding it.
run slow "func_duration_threshold_us=0 snapshot_if_slower_than_us=1000 snapshot_function=target_slow" slow
s=$(only_file "xray-log.args.*.snap??????") # one snapshot
grep -q "reason=slow_call function=$(id_of target_slow) " <("$LLVM_XRAY" fdr-dump "$s") ||
  fail "slow: the snapshot does not name target_slow"
values_of slow "$s" >slow.snap
diff -u slow.expect slow.snap >&2 || fail "slow: the snapshot's values differ"

# The Chrome JSON written in-process at flush (from the buffers) and
# beside the snapshot (from its file), and xrayctl convert's of the log:
# each call's values as its slice's args, exactly, and no xray-args event.
XRAYCTL=${XRAYCTL:-$(dirname "$XRAY_LIB")/../bin/xrayctl} # cross.sh: under the emulator
rm -f xray-log.args.*
XRAY_OPTIONS="$start" XRAY_FDR_OPTIONS="func_duration_threshold_us=0 trace_output=xray+chrome" \
  ./args values 5 >json.out || fail "json: exit status $?"
json_values "$(only_file "xray-log.args.??????.json")"
json_values "$(only_file "xray-log.args.??????.snap000001.json")"
"$XRAYCTL" convert "$(only_file "xray-log.args.??????")" -m ./args --to chrome -o xrayctl.json ||
  fail "xrayctl convert"
json_values xrayctl.json
echo "args: ok"
