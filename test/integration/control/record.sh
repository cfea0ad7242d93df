# `xrayctl record` on a loopback TCP server written here, driven by its
# client: every request made inside the window is in the trace (exactly),
# the Chrome trace JSON too, and the server is unpatched and in the same
# state afterwards. The window is ended by Ctrl-C (SIGINT to xrayctl), so
# nothing depends on timing; a short timed record ends by itself.
source "$TEST_SRC_DIR/control_lib.sh"
need_llvm_xray
xr_cc tcp_server "$TEST_SRC_DIR/tcp_server.c"

XRAY_OPTIONS="xray_control=true xray_control_dir=$CTL_DIR" ./tcp_server >server.out 2>server.err &
PID=$!
xr_poll grep -q '^ready' server.out || true
read -r _ _ PORT < server.out
[ -n "$PORT" ] || fail "the server did not start: $(cat server.out server.err)"
ASKED=0
ask() { # N: one request, checks the answer, waits for handle_request's return
  local ans
  exec 5<>"/dev/tcp/127.0.0.1/$PORT"
  echo "$1" >&5
  read -r ans <&5
  exec 5>&-
  [ "$ans" = $(( 2 * $1 )) ] || fail "request $1 answered [$ans]"
  # The answer is written inside handle_request: its exit may come after
  # the client read it (and after a record the test ends next).
  ASKED=$((ASKED + 1))
  wait_for server.out served "$ASKED"
}
before=$(ctl list)
expect_eq "before" "$PID tcp_server - -" "$before"
for i in 1 2 3; do ask $i; done # outside any window: not recorded

note "record, ended by Ctrl-C, with a Chrome trace copy"
"$XRAYCTL" record $PID --seconds 3600 --mode fdr --patch 'handle_request;parse_number' \
  -o "$PWD/window.json" >record.out 2>record.err &
client=$!
recording() {
  ctl status $PID >status.out
  grep -qx "state: initialized" status.out && grep -qx "patched by control: 2" status.out
}
xr_poll recording || true
grep -qx "patched by control: 2" status.out || fail "the record did not start: $(cat status.out record.err)"
K=40
for i in $(seq 10 $((K + 9))); do ask "$i"; done
kill -INT $client
wait $client || fail "xrayctl record: exit $? ($(cat record.err))"
log=$(head -1 record.out)
{ [ "${log:0:1}" = / ] && [ -f "$log" ]; } || fail "record printed [$(cat record.out)]"
expect_eq "-o named last" "$PWD/window.json" "$(tail -1 record.out)"
expect_eq "requests in the trace" "handle_request $K
parse_number $K" "$(account_counts tcp_server "$log")"
expect_eq "requests in the Chrome trace" "$K" \
  "$(grep -o '"name":"handle_request","ph":"X"' window.json | wc -l)"

note "afterwards: same state, unpatched"
expect_eq "after" "$before" "$(ctl list)"
expect_eq "patched after" "patched by control: 0" "$(ctl status $PID | grep '^patched')"
# really unpatched: a mode started now records none of these calls
ctl start $PID basic func_duration_threshold_us=0 >/dev/null
for i in 100 101; do ask $i; done
expect_eq "calls after the record" "" "$(ctl stop $PID)"

note "a timed record ends by itself"
out=$(ctl record $PID --seconds 1 --mode basic --patch parse_number)
expect_eq "nothing called, no basic log" "" "$out"
expect_eq "after the timed record" "$PID tcp_server xray-basic uninitialized" "$(ctl list)"
ctl_rc 2 record $PID --mode fdr >/dev/null # no --seconds
echo quit >"/dev/tcp/127.0.0.1/$PORT"
wait $PID || fail "server exit status $?"
