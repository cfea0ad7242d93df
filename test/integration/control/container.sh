# A program in a container: its own PID and mount namespaces and a private
# /tmp (unshare --pid --mount --fork --mount-proc, a tmpfs on /tmp), started
# with nothing but XRAY_OPTIONS=xray_control=true, so its socket is
# /tmp/xray-0/1.sock inside. From the host, xrayctl finds it by its host
# PID: `list` shows it once ("ns-pid=1"), `status`, `patch`, `start` and
# `snapshot -o` work (the snapshot copied out of the container's /tmp and
# read by llvm-xray). A program in a PID namespace only, sharing the host's
# directory, is listed once, under its host PID. Symlink traps in a
# container's /tmp (an absolute link for the directory, one for the socket,
# both pointing at a host program's socket) are refused before any
# connection, with openat2 and with the component walk of older kernels.
# Where unshare is not allowed (not root, a seccomp'd runner) it skips (77)
# and says why.
source "$TEST_SRC_DIR/control_lib.sh"
unset XRAYCTL_DIR
need_llvm_xray
[ "$(id -u)" -eq 0 ] || skip "not root: unshare --pid --mount needs root"
command -v unshare >/dev/null || skip "unshare not found (util-linux)"
unshare --pid --mount --fork --mount-proc true 2>unshare.err ||
  skip "unshare --pid --mount --fork is not allowed here: $(head -c 300 unshare.err)"
build_driven

# Every process started here, killed on the way out (a failure included):
# killing a namespace's first process ends every process inside it.
CLEANUP=()
cleanup() {
  local p
  for p in ${CLEANUP[@]+"${CLEANUP[@]}"}; do kill -9 "$p" 2>/dev/null || true; done
  for p in ${CLEANUP[@]+"${CLEANUP[@]}"}; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

# The PID (here) of unshare's child, once it has exec'd NAME.
child_of() { # UNSHARE_PID NAME: sets CHILD
  local c children
  read -r -a children <"/proc/$1/task/$1/children" 2>/dev/null || true
  for c in ${children[@]+"${children[@]}"}; do
    [ "$(cat "/proc/$c/comm" 2>/dev/null)" = "$2" ] && { CHILD=$c; return 0; }
  done
  return 1
}

# contain NAME [SETUP]: starts ./driven as the first process of new PID
# and mount namespaces with a tmpfs on /tmp and its working directory
# there; SETUP runs inside first (as shell code). Sets UNSHARE and HOSTPID;
# fd 7 is its stdin.
contain() {
  local name=$1 setup=${2:-true}
  rm -f "$name.in"; mkfifo "$name.in"
  # the work directory is reached through fd 9 once /tmp is covered
  XRAY_OPTIONS="xray_control=true" unshare --pid --mount --fork --mount-proc \
    bash -c "unset XDG_RUNTIME_DIR; exec 9<\"\$1\"; mount -t tmpfs -o mode=1777 tmpfs /tmp && cd /tmp && $setup &&
             exec /proc/self/fd/9/driven" contain "$PWD" <"$name.in" >"$name.out" 2>"$name.err" &
  UNSHARE=$!
  CLEANUP+=("$UNSHARE")
  exec 7>"$name.in"
  wait_for "$name.out" "ready 1"
  xr_poll child_of "$UNSHARE" driven || fail "no driven under unshare $UNSHARE"
  HOSTPID=$CHILD
  CLEANUP+=("$HOSTPID")
  OUT=$name.out
  DONE_COUNT=0
}

note "a program in its own PID and mount namespaces, found by its host PID"
contain c
[ "$HOSTPID" != 1 ] || fail "host PID 1?"
[ ! -e "/tmp/xray-0/1.sock" ] || [ "$(stat -c %i /tmp/xray-0/1.sock)" != "$(stat -c %i "/proc/$HOSTPID/root/tmp/xray-0/1.sock")" ] ||
  fail "the container's socket is the host's"
[ -S "/proc/$HOSTPID/root/tmp/xray-0/1.sock" ] || fail "no socket in the container's /tmp/xray-0"
expect_eq "list: the container's program, once, by its host PID" "$HOSTPID driven - - ns-pid=1" \
  "$(ctl list | grep -E "^$HOSTPID |ns-pid=1$")"
status=$(ctl status "$HOSTPID")
expect_eq "status: host pid" "host pid: $HOSTPID" "$(head -1 <<<"$status")"
expect_eq "status: the program's own pid" "pid: 1" "$(grep '^pid:' <<<"$status")"
expect_eq "patch" 2 "$(ctl patch "$HOSTPID" 'alpha;beta')"
ctl start "$HOSTPID" xray-fdr func_duration_threshold_us=0 >/dev/null
tell "run 100"
mkdir out
ctl snapshot "$HOSTPID" -o "$PWD/out/copied" >snap.out
snap=$(head -1 snap.out)
case $snap in /tmp/xray-log.driven.*.snap000001) ;; *) fail "snapshot path: $snap" ;; esac
[ ! -e "$snap" ] || [ "$(stat -c %i "$snap")" != "$(stat -c %i "/proc/$HOSTPID/root$snap")" ] ||
  fail "the snapshot is on the host's /tmp"
expect_eq "snapshot -o prints FILE last" "$PWD/out/copied" "$(tail -1 snap.out)"
cmp "/proc/$HOSTPID/root$snap" out/copied || fail "the copy differs from the snapshot"
expect_eq "the copied snapshot, read by llvm-xray" "alpha 800
beta 400" "$(yaml_entries "$(xr_program_file ./driven)" out/copied)"
quit_driven() { echo quit >&7; exec 7>&-; wait "$UNSHARE" || fail "contained driven exited $?"; }
quit_driven

note "a program in a PID namespace only, sharing the host's directory: listed once"
rm -f p.in; mkfifo p.in
XRAY_OPTIONS="xray_control=true xray_control_dir=$CTL_DIR" unshare --pid --fork ./driven <p.in >p.out 2>p.err &
UNSHARE=$!
CLEANUP+=("$UNSHARE")
exec 7>p.in
wait_for p.out "ready 1"
xr_poll child_of "$UNSHARE" driven || fail "no driven under unshare $UNSHARE"
HOSTPID=$CHILD
[ -S "$CTL_DIR/1.sock" ] || fail "no $CTL_DIR/1.sock"
expect_eq "list --dir" "$HOSTPID driven - - ns-pid=1" "$(ctl --dir "$CTL_DIR" list)"
ctl --dir "$CTL_DIR" status "$HOSTPID" | grep -qx "pid: 1" || fail "status by host PID"
quit_driven

note "symlink traps in the container's /tmp: never followed to the host"
# A host program the traps point at (hard links to its socket in a
# directory of the host's /tmp); it counts the connections it gets.
TRAP=/tmp/xray-trap.$$
mkdir -m 700 "$TRAP" || fail "cannot make $TRAP"
trap 'cleanup; rm -rf "$TRAP"' EXIT
rm -f d.in; mkfifo d.in
XRAY_OPTIONS="xray_control=true xray_control_dir=$TRAP" ./driven <d.in >d.out 2>d.err &
DECOY=$!
CLEANUP+=("$DECOY")
exec 8>d.in
wait_for d.out "ready $DECOY"
ln "$TRAP/$DECOY.sock" "$TRAP/1.sock"
mkdir -m 700 "$TRAP/xray"
ln "$TRAP/$DECOY.sock" "$TRAP/xray/1.sock"
# trapped NAME SETUP EXIT TEXT: xrayctl status of a container made with
# SETUP exits EXIT, says TEXT, and never reaches the decoy, with openat2
# and with the component walk.
trapped() {
  contain "$1" "$2"
  local how rc
  for how in openat2 components; do
    rc=0
    XRAYCTL_RESOLVE=$how "$XRAYCTL" status "$HOSTPID" >trap.out 2>trap.err || rc=$?
    cat trap.out >>trap.err
    expect_eq "$1 ($how): exit" "$3" "$rc"
    grep -qF "$4" trap.err || fail "$1 ($how): $(cat trap.err)"
    ! grep -q "served by process" trap.err || fail "$1 ($how): connected to the decoy: $(cat trap.err)"
  done
  quit_driven
}
# the directory: an absolute link to the host's $TRAP (the program does
# not listen in a linked directory; a host path would find the decoy)
trapped "directory link" "ln -s $TRAP /tmp/xray-0" 3 \
  "skipping '/tmp/xray-0' in the root of process"
# the socket: a link to the decoy's, the program without control
trapped "socket link" "export XRAY_OPTIONS=xray_control=false && mkdir -m 700 /tmp/xray-0 &&
  ln -s $TRAP/$DECOY.sock /tmp/xray-0/1.sock" 3 \
  "its socket is not a socket of the process's uid"
# a link on the way: XDG_RUNTIME_DIR=/tmp/run, /tmp/run -> $TRAP (whose
# xray/1.sock is the decoy's); the program itself listens in /tmp/xray-0
trapped "link on the way" "export XDG_RUNTIME_DIR=/tmp/run && ln -s $TRAP /tmp/run" 0 \
  "pid: 1"
# The decoy's one connection is this status: nobody else reached it.
expect_eq "the decoy was never reached" "requests: 1 served, 0 malformed, 0 refused" \
  "$("$XRAYCTL" --dir "$TRAP" status "$DECOY" | grep '^requests:')"
echo quit >&8; exec 8>&-; wait "$DECOY" || fail "decoy exited $?"
