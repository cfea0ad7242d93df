# `xrayctl args` against a running program (docs/control.md): a SPEC set
# from outside, the reply exactly (the SPEC as understood, each pattern's
# matches), `status`'s line, --clear, and a bad SPEC refused with the
# message naming the bad part while the program serves on.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/surface_lib.sh"
XRAYCTL=${XRAYCTL:-$(dirname "$XRAY_LIB")/../bin/xrayctl} # cross.sh: under the emulator
[ -x "$XRAYCTL" ] || fail "xrayctl not built at $XRAYCTL"
export XRAYCTL_DIR=$TEST_WORK_DIR/ctl
surface_build
rm -f in; mkfifo in
XRAY_OPTIONS="xray_control=true xray_control_dir=$XRAYCTL_DIR" ./surface serve <in >out.txt 2>err.txt &
pid=$!
exec 7>in
trap 'exec 7>&-; wait $pid || true' EXIT
has_ready() { grep -qx "ready $pid" out.txt; }
xr_poll has_ready || fail "surface did not start"
[ -S "$XRAYCTL_DIR/$pid.sock" ] || fail "no control socket"
ctl() { "$XRAYCTL" "$@" 2>ctl.err; }
served() { [ "$(grep -cx "done" out.txt)" -ge "$1" ]; }

expect_eq "no SPEC" "args: none" "$(ctl args $pid)"
expect_eq "status before" "args: none" "$(ctl status $pid | grep '^args:')"
expect_eq "set" "args: lookup@arg1/d,arg2/s
1 lookup@arg1/d,arg2/s" "$(ctl args $pid 'lookup@arg1,arg2/s')"
expect_eq "status after" "args: lookup@arg1/d,arg2/s" "$(ctl status $pid | grep '^args:')"
functions=$(ctl status $pid | sed -n 's/^functions: //p')
expect_eq "several patterns" "args: look*@arg1/x;*@retval/d;scale@fparg1/f,fparg2/f32;nothing@arg3/d
2 look*@arg1/x
$functions *@retval/d
1 scale@fparg1/f,fparg2/f32
0 nothing@arg3/d" "$(ctl args $pid 'look*@arg1/x; *@retval ;scale@fparg1,fparg2/f32;nothing@arg3')"
echo call >&7
xr_poll served 1 || fail "no call served"
note "a bad SPEC: refused, the SPEC in effect stays, the program serves on"
status=0
ctl args $pid 'lookup@arg1;bad@arg9' >bad.out || status=$?
expect_eq "exit status" 1 "$status"
expect_eq "message" "xrayctl: process $pid: 'arg9' in 'bad@arg9': $INT_LIMIT" "$(cat ctl.err)"
expect_eq "kept" "args: look*@arg1/x;*@retval/d;scale@fparg1/f,fparg2/f32;nothing@arg3/d" \
  "$(ctl args $pid | head -1)"
status=0
ctl args $pid 'f@arg1/s;g@fparg1/s' >/dev/null || status=$?
expect_eq "fparg/s refused" 1 "$status"
grep -q "'fparg1/s' in 'g@fparg1/s': fpargN is a floating-point register, not a pointer" ctl.err ||
  fail "fparg1/s: $(cat ctl.err)"
status=0
"$XRAYCTL" args $pid $'f@arg1\tx' >/dev/null 2>&1 || status=$?
expect_eq "a control byte: a usage error of xrayctl's" 2 "$status"
status=0
"$XRAYCTL" args $pid a b >/dev/null 2>&1 || status=$?
expect_eq "two arguments: usage" 2 "$status"
expect_eq "clear" "args: none" "$(ctl args $pid --clear)"
expect_eq "status cleared" "args: none" "$(ctl status $pid | grep '^args:')"
echo call >&7
xr_poll served 2 || fail "the second call was not served"
echo quit >&7
exec 7>&-
trap - EXIT
wait $pid || fail "surface exited $?"
expect_eq "served both calls" 2 "$(grep -cx "done" out.txt)"
[ ! -s err.txt ] || { cat err.txt >&2; fail "the program complained"; }
