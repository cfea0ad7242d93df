# Where the socket goes without xray_control_dir, and that xrayctl finds it
# from another environment: $XDG_RUNTIME_DIR/xray when that directory is
# the user's, else /tmp/xray-<uid>; a process started with XDG_RUNTIME_DIR
# is found from a shell without it (xrayctl reads the process's own
# environment) and the other way round; `list` looks in both places;
# xray_control=true also works from __xray_default_options().
source "$TEST_SRC_DIR/control_lib.sh"
build_driven
xr_cc default_opts "$TEST_SRC_DIR/default_opts.c"
unset XRAYCTL_DIR
uid=$(id -u)
TMP_DIR=/tmp/xray-$uid
mkdir -m 700 xdg

launch() { # NAME ENV...: ./driven with that environment, sets PID
  local name=$1; shift
  rm -f "$name.in"; mkfifo "$name.in"
  env "$@" ./driven <"$name.in" >"$name.out" 2>"$name.err" &
  PID=$!
  eval "exec ${FD}>$name.in"
  wait_for "$name.out" "ready $PID"
}
FD=7; launch a -u XDG_RUNTIME_DIR XRAY_OPTIONS=xray_control=true
A=$PID
[ -S "$TMP_DIR/$A.sock" ] || fail "no socket in $TMP_DIR"
expect_eq "$TMP_DIR mode" 700 "$(stat -c %a "$TMP_DIR")"
FD=8; launch b XDG_RUNTIME_DIR="$PWD/xdg" XRAY_OPTIONS=xray_control=true
B=$PID
[ -S "$PWD/xdg/xray/$B.sock" ] || fail "no socket in \$XDG_RUNTIME_DIR/xray"
expect_eq "xdg/xray mode" 700 "$(stat -c %a xdg/xray)"

note "found from a shell without XDG_RUNTIME_DIR, and from one with it"
(unset XDG_RUNTIME_DIR; ctl status $B) | grep -qx "pid: $B" || fail "B from a shell without XDG"
XDG_RUNTIME_DIR=$PWD/xdg ctl status $A | grep -qx "pid: $A" || fail "A from a shell with XDG"
expect_eq "list sees both" "$A driven - -
$B driven - -" "$(XDG_RUNTIME_DIR=$PWD/xdg ctl list | grep -E "^($A|$B) " | sort -n)"

note "__xray_default_options"
rm -f c.in; mkfifo c.in
env -u XDG_RUNTIME_DIR -u XRAY_OPTIONS ./default_opts <c.in >c.out 2>c.err &
C=$!
exec 9>c.in
wait_for c.out "ready $C"
expect_eq "hello" "$C default_opts - -" "$(ctl list | grep "^$C ")"

echo quit >&7; echo quit >&8; echo x >&9
exec 7>&- 8>&- 9>&-
{ wait $A && wait $B && wait $C; } || fail "a program failed"
{ [ ! -e "$TMP_DIR/$A.sock" ] && [ ! -e "$PWD/xdg/xray/$B.sock" ]; } || fail "sockets left"
