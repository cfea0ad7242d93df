# `xrayctl top --batch` names the busiest function of a program with a
# known hot spot (hot(): a busy loop; cold(): one add), with exact call
# counts, and leaves the program as it was. The interval is ended by
# SIGINT to xrayctl once the calls are made, so nothing depends on timing.
source "$TEST_SRC_DIR/control_lib.sh"
build_driven
start_driven p
before=$(ctl list)
"$XRAYCTL" top $PID --batch --interval 60 >top.out 2>top.err &
client=$!
wait_list "$PID driven xray-profiling initialized"
tell "hot 20"
kill -INT $client
wait $client || fail "xrayctl top: exit $? ($(cat top.err))"
cat top.out >&2
rows=$(grep -v '^#' top.out)
expect_eq "busiest function" hot "$(echo "$rows" | head -1 | awk '{ print $4 }')"
expect_eq "calls of hot and cold" "20 cold
20 hot" "$(echo "$rows" | awk '$4 == "hot" || $4 == "cold" { print $1, $4 }' | sort -k2)"
expect_eq "after top" "$before" "$(ctl list)"
expect_eq "patched after" "patched by control: 0" "$(ctl status $PID | grep '^patched')"
ls xray-log.* 2>/dev/null && fail "top wrote files"
# really unpatched: a mode started now records none of these calls
ctl start $PID basic func_duration_threshold_us=0 >/dev/null
tell "hot 1"
expect_eq "calls after top" "" "$(ctl stop $PID)"
quit_driven
