# Helpers of the control socket tests (sourced after lib.sh's setup).
# The program under test is driven.c: it reads commands on stdin (a fifo
# here) and answers "done" on stdout, so a test knows exactly which calls
# happened between two xrayctl commands, without sleeping.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
XRAYCTL=${XRAYCTL:-$(dirname "$XRAY_LIB")/../bin/xrayctl}
[ -x "$XRAYCTL" ] || fail "xrayctl not built at $XRAYCTL"
# Each test's sockets in its own private directory (tests run in parallel).
CTL_DIR=$TEST_WORK_DIR/ctl
export XRAYCTL_DIR=$CTL_DIR

build_driven() { xr_cc driven "$TEST_SRC_DIR/driven.c"; }

# wait_for FILE TEXT [COUNT]: until FILE holds COUNT lines equal to TEXT
# (default 1); fails after 60 s (a hung program, never a timing assumption).
has_lines() { [ "$(grep -cx "$2" "$1" 2>/dev/null || true)" -ge "$3" ]; }
wait_for() {
  xr_poll has_lines "$1" "$2" "${3:-1}" && return 0
  cat "$1" >&2
  fail "timed out waiting for '$2' x${3:-1} in $1"
}

# start_driven NAME [XRAY_OPTIONS extra]: starts ./driven in the
# background with xray_control=true, stdin from fifo NAME.in; sets PID,
# and opens fd 7 on its stdin. NAME.out/.err hold its output.
DONE_COUNT=0
start_driven() {
  local name=$1
  rm -f "$name.in"; mkfifo "$name.in"
  XRAY_OPTIONS="xray_control=true xray_control_dir=$CTL_DIR ${2:-}" \
    ./driven <"$name.in" >"$name.out" 2>"$name.err" &
  PID=$!
  exec 7>"$name.in"
  wait_for "$name.out" "ready $PID"
  OUT=$name.out
  DONE_COUNT=0
  # the socket exists once the constructor ran, before main printed ready
  [ -S "$CTL_DIR/$PID.sock" ] || fail "no socket $CTL_DIR/$PID.sock"
}
# tell COMMAND: sends a line and waits for its "done".
tell() {
  echo "$1" >&7
  DONE_COUNT=$((DONE_COUNT + 1))
  wait_for "$OUT" "done" "$DONE_COUNT"
}
# control_tid PID: the control thread's id (named xray-control), or "".
control_tid() {
  local t
  for t in "/proc/$1/task"/*; do
    [ "$(cat "$t/comm" 2>/dev/null)" = xray-control ] && echo "${t##*/}"
  done
  return 0
}
# The host's poll system calls, as /proc/<pid>/task/<tid>/syscall numbers
# them (an emulator's thread shows the host call it makes: qemu-user's
# ppoll); empty where unknown, and then (or where that file cannot be read:
# ptrace restrictions) only the state is checked.
case $(uname -m) in
  x86_64) POLL_SYSCALLS=" 7 271 " ;;
  aarch64) POLL_SYSCALLS=" 73 " ;;
  *) POLL_SYSCALLS= ;;
esac
# wait_control_idle PID: the control thread's id once it has named itself
# and sleeps in its poll (state S, blocked in a poll system call); fails
# after 60 s. The thread names itself when it first runs, which may be
# after main printed "ready", and it can sleep elsewhere before its poll
# (a lock of a sanitizer's or an emulator's, while they translate code).
control_idle() { # PID: sets IDLE_TID
  local call
  IDLE_TID=$(control_tid "$1")
  [ -n "$IDLE_TID" ] && [ "$(awk '{ print $3 }' "/proc/$1/task/$IDLE_TID/stat" 2>/dev/null)" = S ] || return 1
  call=$(cut -d' ' -f1 "/proc/$1/task/$IDLE_TID/syscall" 2>/dev/null) || call=unreadable
  [ -z "$POLL_SYSCALLS" ] || [ "$call" = unreadable ] || [[ "$POLL_SYSCALLS" == *" $call "* ]]
}
wait_control_idle() {
  xr_poll control_idle "$1" || fail "no control thread in $1 sleeping in its poll after 60 s"
  echo "$IDLE_TID"
}
# wait_control_gone PID: until the process has no control thread (60 s at
# most): a client sees its connection end before the thread has finished.
no_control_thread() { [ -z "$(control_tid "$1")" ]; }
wait_control_gone() {
  xr_poll no_control_thread "$1" || fail "control thread still in $1 after 60 s"
}
# wait_list LINE: until `xrayctl list` prints exactly LINE (60 s at most),
# then checks it (a session starting or ending in the program).
list_is() { [ "$(ctl list)" = "$1" ]; }
wait_list() {
  xr_poll list_is "$1" || expect_eq "list" "$1" "$(ctl list)"
}
# CTL_CLIENT: a raw protocol client (python3 CTL_CLIENT SOCKET ...).
# shellcheck disable=SC2034  # used by the scripts that source this file
CTL_CLIENT=$TEST_SRC_DIR/ctl_client.py
# quit_driven: ends it normally and checks its exit status.
quit_driven() {
  echo quit >&7
  exec 7>&-
  wait "$PID" || fail "driven exited with status $?"
}
# ctl_rc EXPECTED ARGS...: runs xrayctl, checks its exit status, prints stdout.
ctl_rc() {
  local want=$1 rc=0; shift
  "$XRAYCTL" "$@" >ctl.out 2>ctl.err || rc=$?
  [ "$rc" -eq "$want" ] || { cat ctl.out ctl.err >&2; fail "xrayctl $*: exit $rc, expected $want"; }
  cat ctl.out
}
ctl() { ctl_rc 0 "$@"; }
# account_counts BIN LOG: "name count" for each function, sorted
account_counts() {
  "$LLVM_XRAY" account "$2" -m "$1" -sort=count -sortorder=dsc 2>/dev/null |
    awk '/^ +[0-9]+ +[0-9]+ \[/ { print $NF, $2 }' | sort
}
# yaml_entries BIN LOG: "name entries" from llvm-xray convert (reads FDR
# snapshots too), sorted
yaml_entries() {
  "$LLVM_XRAY" convert -f yaml -symbolize -m "$1" "$2" 2>/dev/null |
    awk '/kind: function-enter|kind: enter/ { for (i=1;i<=NF;i++) if ($i=="function:") { f=$(i+1); sub(/,$/,"",f); sub(/^.*: /,"",f); n[f]++ } }
         END { for (f in n) print f, n[f] }' | tr -d "'" | sort
}
