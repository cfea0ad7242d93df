# `xrayctl budget PID N` and the budget's lines of `xrayctl status`: a
# program started with the control socket and a mode but no budget gets
# one from outside, culls its hot function, and patches it back when the
# budget is turned off; xrayctl refuses a percent it cannot send.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/budget_lib.sh"
XRAYCTL=${XRAYCTL:-$(dirname "$XRAY_LIB")/../bin/xrayctl} # cross.sh: under the emulator
[ -x "$XRAYCTL" ] || fail "xrayctl not built at $XRAYCTL"
export XRAYCTL_DIR=$TEST_WORK_DIR/ctl
budget_build
XRAY_OPTIONS="patch_premain=true xray_mode=xray-profiling xray_logfile_base=log. xray_control=true xray_control_dir=$XRAYCTL_DIR" \
  ./budget_prog serve >out.txt 2>err.txt &
pid=$!
trap 'touch stop; wait $pid || true' EXIT
xr_poll test -S "$XRAYCTL_DIR/$pid.sock" || fail "no control socket"
expect_eq "status before" "budget: off" "$("$XRAYCTL" status $pid | grep '^budget')"
"$XRAYCTL" budget $pid 1.50 >set.txt || fail "xrayctl budget 1.50 failed"
expect_eq "budget set" "budget: 1.5 %" "$(head -1 set.txt)"
culled_one() {
  "$XRAYCTL" status $pid >status.txt &&
    grep -qE '^budget functions: [0-9]+ traced, 1 culled, 0 kept$' status.txt
}
xr_poll culled_one || { cat status.txt >&2; fail "hot_tiny not culled"; }
grep -qE '^budget estimate: [0-9]+\.[0-9] % \([0-9]+ evaluations\)$' status.txt ||
  { cat status.txt >&2; fail "no estimate line"; }
"$XRAYCTL" budget $pid 0 >off.txt || fail "xrayctl budget 0 failed"
expect_eq "budget off" "budget: off" "$(head -1 off.txt)"
grep -qE '^budget functions: [0-9]+ traced, 0 culled, 0 kept$' off.txt ||
  { cat off.txt >&2; fail "not all patched back"; }
for bad in 101 abc -1 2%% 0.0001 ""; do
  status=0
  "$XRAYCTL" budget $pid "$bad" 2>bad.err || status=$?
  expect_eq "xrayctl budget '$bad'" 2 "$status"
done
touch stop
trap - EXIT
wait $pid || fail "the program exited $?"
log=$(log_of .)
expect_eq "culled file" "$CULLED_HEADER" "$(cat "$log.culled")"
