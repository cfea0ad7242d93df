# fork mid-trace and signal handlers running instrumented code.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog fork_signal
rm -f xray-log.fork_signal.*
./fork_signal "func_duration_threshold_us=0 buffer_max=256"
files=( xray-log.fork_signal.* )
expect_eq "two files" 2 "${#files[@]}"
child="" parent=""
for f in "${files[@]}"; do
  calls=$(fdr_calls "$f" fork_signal)
  case "$calls" in
    in_child:*) child=$calls ;;
    before_fork:*) parent=$calls ;;
    *) fail "unexpected file content: $calls" ;;
  esac
done
expect_eq "child: only its own events" "in_child:5/5" "$child"
# parent: before_fork 3, in_parent 7, busy 200000 (256 buffers of 16 KiB
# hold them and at most 1000 alarms' events), on_usr1 7, on_alarm once per recorded SIGALRM, handler_work called
# by both handlers
alarms=$(echo "$parent" | grep -o 'on_alarm:[0-9]*' | cut -d: -f2 || true)
alarms=${alarms:-0}
want="before_fork:3/3 busy:200000/200000 handler_work:$((7 + alarms))/$((7 + alarms)) in_parent:7/7"
[ "$alarms" -gt 0 ] && want+=" on_alarm:$alarms/$alarms"
want+=" on_usr1:7/7"
expect_eq "parent" "$want" "$parent"
[ "$alarms" -le 1000 ] || fail "more alarms recorded than the program allows: $alarms"
echo "fork_signal: ok (SIGALRM recorded $alarms times)"
