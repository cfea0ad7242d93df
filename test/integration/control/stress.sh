# 10,000 commands in a loop while four threads call instrumented functions
# at full speed: patch, start profiling, status, stop, unpatch, 2,000
# times, each answered as expected; two clients at once sending commands
# at random, every reply whole; then an FDR session under the same load
# gives a log llvm-xray reads, and the program exits normally.
source "$TEST_SRC_DIR/control_lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
need_llvm_xray
build_driven
start_driven p
tell spin
expect_eq "the loop" "10000 commands, 0 unexpected" "$(python3 "$CTL_CLIENT" "$CTL_DIR/$PID.sock" loop 2000)"
note "two clients at once, commands at random"
python3 "$CTL_CLIENT" "$CTL_DIR/$PID.sock" race 1500 >race1.out &
r1=$!
python3 "$CTL_CLIENT" "$CTL_DIR/$PID.sock" race 1500 >race2.out
wait $r1 || fail "first racing client failed"
expect_eq "racing clients" "1500 commands, 0 malformed replies
1500 commands, 0 malformed replies" "$(cat race1.out race2.out)"
"$XRAYCTL" stop $PID >/dev/null 2>&1 || true # whatever the race left running
ctl unpatch $PID '*' >/dev/null
expect_eq "after the race" "$PID driven xray-profiling uninitialized" "$(ctl list)"

note "an FDR session under the same load"
ctl patch $PID 'alpha;beta' >/dev/null
ctl start $PID fdr func_duration_threshold_us=0 >/dev/null
ctl snapshot $PID >/dev/null
log=$(ctl stop $PID)
ctl unpatch $PID 'alpha;beta' >/dev/null
tell halt
"$LLVM_XRAY" account "$log" -m driven >account.txt 2>&1 || fail "llvm-xray account: $(head -5 account.txt)"
grep -q " alpha$" account.txt || fail "alpha not in the log: $(head account.txt)"
expect_eq "state at the end" "$PID driven xray-fdr uninitialized" "$(ctl list)"
expect_eq "patched at the end" "patched by control: 0" "$(ctl status $PID | grep '^patched')"
quit_driven
