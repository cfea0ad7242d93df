# What control does across the program's life: a fork child gets no
# listener; a process killed with -9 leaves a socket that `xrayctl list`
# removes; a program that closes all its descriptors (as daemons do) runs
# on and control ends cleanly; one that drops root keeps answering root;
# one that exits during a record exits normally and writes basic's log.
source "$TEST_SRC_DIR/control_lib.sh"
build_driven
socket_fds() { for fd in "/proc/$1/fd"/*; do readlink "$fd"; done | grep -c '^socket:' || true; }

note "fork: the child has no listener, the parent keeps its own"
start_driven p
expect_eq "parent's socket descriptors" 1 "$(socket_fds $PID)"
tell fork
child=$(awk '/^child [0-9]/ { print $2 }' p.out)
[ -n "$child" ] || fail "no child pid"
# The parent's fork() may return before the child ran its fork handlers
# (which close the listener): wait for the child to say it is past them.
wait_for p.out "child ready"
expect_eq "no control thread in the child" "" "$(control_tid "$child")"
expect_eq "child socket descriptors" 0 "$(socket_fds "$child")"
[ ! -e "$CTL_DIR/$child.sock" ] || fail "the child made a socket"
ctl_rc 3 status "$child" >/dev/null
kill "$child"
expect_eq "parent after the fork" "$PID driven - -" "$(ctl list)"
quit_driven

note "kill -9: the stale socket is removed by list"
start_driven k
kill -9 $PID; wait $PID 2>/dev/null || true
[ -S "$CTL_DIR/$PID.sock" ] || fail "expected the dead process's socket to remain"
expect_eq "list skips the dead" "" "$(ctl list)"
[ ! -e "$CTL_DIR/$PID.sock" ] || fail "list left the stale socket"
ctl_rc 3 status $PID >/dev/null

note "closing every descriptor: the program runs on, control ends"
start_driven c
wait_control_idle $PID >/dev/null
tell closefds
# The first request wakes the thread, which finds its descriptor gone:
# that request gets no answer (exit 1), the socket file is removed.
ctl_rc 1 status $PID >/dev/null
grep -q "reply cut short" ctl.err || fail "$(cat ctl.err)"
wait_control_gone $PID
[ ! -e "$CTL_DIR/$PID.sock" ] || fail "socket file left"
ctl_rc 3 status $PID >/dev/null
tell "run 10"
quit_driven

note "the program exits during a record: it exits normally, basic is written"
need_llvm_xray
start_driven e
"$XRAYCTL" record $PID --seconds 3600 --mode basic --patch 'alpha;beta' >rec.out 2>rec.err &
client=$!
wait_list "$PID driven xray-basic initialized"
expect_eq "patched" "patched by control: 2" "$(ctl status $PID | grep '^patched')"
tell "run 100"
quit_driven # checks exit status 0
rc=0; wait $client || rc=$?
expect_eq "xrayctl record when the program is gone: exit" 1 "$rc"
# the exit policy finalizes and flushes basic mode, however it was started
log=$(only_file "xray-log.driven.*")
expect_eq "counts written at exit" "alpha 800
beta 400" "$(account_counts driven "$log")"

if [ "$(id -u)" -eq 0 ]; then
  note "dropping root: root still controls it, the directory stays root's"
  start_driven u
  tell setuid
  expect_eq "uid" 65534 "$(awk '/^Uid:/ { print $3 }' /proc/$PID/status)"
  ctl status $PID | grep -qx "pid: $PID" || fail "status after setuid"
  expect_eq "patch after setuid" 2 "$(ctl patch $PID 'alpha;beta')"
  expect_eq "unpatch after setuid" 2 "$(ctl unpatch $PID 'alpha;beta')"
  quit_driven
fi
