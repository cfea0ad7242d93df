# `xrayctl record PID --seconds S -o FILE.pftrace`: the program writes the
# Perfetto trace beside its log (trace_output=xray+perfetto asked of the
# mode) and xrayctl copies it to FILE; it holds exactly the calls made in
# the window. driven.c (the control tests' program) makes calls on command.
# shellcheck source=../lib.sh
source "$XRAY_SRC/test/integration/control/control_lib.sh"
source "$TEST_SRC_DIR/perfetto_lib.sh"
xr_cc driven "$XRAY_SRC/test/integration/control/driven.c"
start_driven prog
tell "run 3" # outside the window: not recorded
"$XRAYCTL" record "$PID" --seconds 3600 --mode fdr --patch 'alpha;beta' \
  -o "$PWD/window.pftrace" \
  >record.out 2>record.err &
client=$!
recording() { "$XRAYCTL" status "$PID" 2>/dev/null | grep -qx "state: initialized"; }
xr_poll recording || fail "the record did not start: $(cat record.err)"
tell "run 5" # four threads: alpha 2 x 5, beta 5 each
kill -INT $client
wait $client || fail "xrayctl record: exit $? ($(cat record.err))"
expect_eq "-o named last" "$PWD/window.pftrace" "$(tail -1 record.out)"
pf_check window.pftrace >summary.txt || fail "window.pftrace"
expect_eq "the window's calls" "alpha:40 beta:20 marks:" "$(pf_calls)"
echo quit >&7
wait "$PID" || fail "driven exit status $?"
echo "record: ok ($(pf_calls))"
