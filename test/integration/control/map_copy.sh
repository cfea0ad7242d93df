# `-o` copies a trace with its object map: `xrayctl snapshot PID -o FILE`
# and `xrayctl record PID -o FILE` of a program with an instrumented
# shared object write FILE and FILE.map (the program's map, byte for
# byte), and the real llvm-xray's records of FILE are all named by
# FILE.map, with exact counts (the object's function among them). A trace
# without a map (a program without shared objects) removes a FILE.map left
# from an earlier copy, which would name another trace's ids.
source "$TEST_SRC_DIR/control_lib.sh"
source "$TEST_SRC_DIR/../dso/dso_lib.sh"
need_llvm_xray
command -v python3 >/dev/null || skip "python3 not found"
xr_so "$XRAY_CLANG" libmapped.so "$TEST_SRC_DIR/mapped_lib.c"
xr_exe "$XRAY_CLANG" mapped "$TEST_SRC_DIR/mapped.c" -L. -lmapped -Wl,-rpath,\$ORIGIN
build_driven

rm -f m.in; mkfifo m.in
XRAY_OPTIONS="xray_control=true xray_control_dir=$CTL_DIR" ./mapped <m.in >m.out 2>m.err &
PID=$!
exec 7>m.in
wait_for m.out "ready $PID"
OUT=m.out

note "snapshot -o: the snapshot and its map"
expect_eq "patch" 3 "$(ctl patch $PID '*_fn;main')"
ctl start $PID xray-fdr func_duration_threshold_us=0 >/dev/null
tell "run 5"
ctl snapshot $PID -o "$PWD/snap.fdr" >snap.out
snap=$(head -1 snap.out)
expect_eq "printed" "$snap
$PWD/snap.fdr.map
$PWD/snap.fdr" "$(cat snap.out)"
cmp "$snap" snap.fdr || fail "snap.fdr differs from $snap"
cmp "$snap.map" snap.fdr.map || fail "snap.fdr.map differs from $snap.map"
expect_eq "the copied pair: every id named" "exe_fn enter 5 exit 5
lib_fn enter 5 exit 5" "$(xr_log_counts snap.fdr)"
ctl stop $PID >/dev/null
ctl unpatch $PID '*' >/dev/null

note "record -o: the log and its map"
"$XRAYCTL" record $PID --seconds 3600 --mode fdr --patch '*_fn' -o "$PWD/rec.fdr" >rec.out 2>rec.err &
client=$!
recording() {
  ctl status $PID >status.out
  grep -qx "state: initialized" status.out && grep -qx "patched by control: 2" status.out
}
xr_poll recording || fail "the record did not start: $(cat rec.err)"
tell "run 7"
kill -INT $client
wait $client || fail "xrayctl record: exit $? ($(cat rec.err))"
expect_eq "record prints FILE last" "$PWD/rec.fdr" "$(tail -1 rec.out)"
expect_eq "then its map before it" "$PWD/rec.fdr.map" "$(tail -2 rec.out | head -1)"
expect_eq "the recorded pair: every id named" "exe_fn enter 7 exit 7
lib_fn enter 7 exit 7" "$(xr_log_counts rec.fdr)"
echo quit >&7; exec 7>&-; wait $PID || fail "mapped exited $?"

note "a trace without a map: an old FILE.map is removed"
start_driven d
ctl start $PID xray-fdr func_duration_threshold_us=0 >/dev/null
ctl snapshot $PID -o "$PWD/snap.fdr" >/dev/null
[ ! -e snap.fdr.map ] || fail "snap.fdr.map of the earlier trace is left beside the new one"
grep -q "removed '$PWD/snap.fdr.map': the trace has no object map" ctl.err || fail "not said: $(cat ctl.err)"
quit_driven
