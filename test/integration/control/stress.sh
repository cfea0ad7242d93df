# 10,000 commands in a loop while four threads call instrumented functions
# at full speed: patch, start profiling, status, stop, unpatch, 2,000
# times, each answered as expected; then an FDR session under the same
# load gives a log llvm-xray reads, and the program exits normally.
source "$TEST_SRC_DIR/control_lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
need_llvm_xray
build_driven
start_driven p
tell spin
cat >loop.py <<'PY'
import socket, sys
path, rounds = sys.argv[1], int(sys.argv[2])
def ask(line):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(("xray/1 " + line + "\n").encode())
    out = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        out += b
    s.close()
    return out.decode()
bad = 0
for i in range(rounds):
    for line, want in (("patch alpha;beta", "xray/1 ok\n2\nend\n"),
                       ("start profiling no_flush=true", "xray/1 ok\nxray-profiling initialized\nend\n"),
                       ("status", None),
                       ("stop", "xray/1 ok\nend\n"),
                       ("unpatch alpha;beta", "xray/1 ok\n2\nend\n")):
        got = ask(line)
        if (want is None and not (got.startswith("xray/1 ok\n") and "state: initialized" in got)) \
           or (want is not None and got != want):
            bad += 1
            if bad < 5:
                print(i, line, repr(got[:200]), file=sys.stderr)
print(rounds * 5, "commands,", bad, "unexpected")
PY
expect_eq "the loop" "10000 commands, 0 unexpected" "$(python3 loop.py "$CTL_DIR/$PID.sock" 2000)"
note "an FDR session under the same load"
ctl patch $PID 'alpha;beta' >/dev/null
ctl start $PID fdr func_duration_threshold_us=0 >/dev/null
snap=$(ctl snapshot $PID)
log=$(ctl stop $PID)
ctl unpatch $PID 'alpha;beta' >/dev/null
tell halt
"$LLVM_XRAY" account "$log" -m driven >account.txt 2>&1 || fail "llvm-xray account: $(head -5 account.txt)"
grep -q " alpha$" account.txt || fail "alpha not in the log: $(head account.txt)"
expect_eq "state at the end" "$PID driven xray-fdr uninitialized" "$(ctl list)"
expect_eq "patched at the end" "patched by control: 0" "$(ctl status $PID | grep '^patched')"
quit_driven
