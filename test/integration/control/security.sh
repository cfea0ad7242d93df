# Nobody else gets in, and nothing a client does hurts the program:
# no thread without the option, no wake-up while idle, hostile directories
# refused (the program runs on), malformed / oversized / truncated / random
# requests answered with an error, a client killed in the middle of a
# record leaves the program as it was, another uid is refused twice over
# (the directory, and SO_PEERCRED on the socket itself).
source "$TEST_SRC_DIR/control_lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
build_driven

threads() { find "/proc/$1/task" -mindepth 1 -maxdepth 1 | wc -l; }
# The threads an emulator runs of its own (qemu-user: one, for RCU), counted
# in a program without XRay that waits once it runs: none natively.
own_threads=0
if [ -n "${XRAY_TEST_EMULATOR:-}" ]; then
  printf '#include <stdio.h>\n#include <unistd.h>\nint main(void) { puts("ready"); fflush(stdout); pause(); }\n' >idle.c
  "$XRAY_CLANG" -O1 idle.c -o idle
  ./idle >idle.out & IDLE=$!
  wait_for idle.out ready
  own_threads=$(( $(threads $IDLE) - 1 ))
  kill $IDLE; wait $IDLE 2>/dev/null || true
  note "the emulator runs $own_threads thread(s) of its own"
fi

note "without xray_control: no thread, no socket"
rm -f plain.in; mkfifo plain.in
XRAY_OPTIONS="xray_control_dir=$CTL_DIR" ./driven <plain.in >plain.out 2>plain.err &
PLAIN=$!
exec 8>plain.in
wait_for plain.out "ready $PLAIN"
plain_threads=$(threads $PLAIN)
case ${XRAY_TEST_SANITIZE:-} in
  *thread*) ;; # TSan adds a thread of its own, at the first pthread_create
  *) expect_eq "threads without control" $((1 + own_threads)) "$plain_threads" ;;
esac
expect_eq "no control thread without the option" "" "$(control_tid $PLAIN)"
[ ! -e "$CTL_DIR" ] || fail "a directory was made without xray_control"
echo quit >&8; exec 8>&-; wait $PLAIN

note "with it: one thread, idle without wake-ups"
start_driven p
case ${XRAY_TEST_SANITIZE:-} in
  *thread*) ;;
  *) expect_eq "threads with control" $((2 + own_threads)) "$(threads $PID)" ;;
esac
ctl_tid=$(wait_control_idle $PID)
switches() { awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$PID/task/$ctl_tid/status"; }
before=$(switches)
sleep 2 # docs/control.md: no wake-up at all while nobody connects
expect_eq "control thread wake-ups over 2 idle seconds" "$before" "$(switches)"
blk=$(awk '/^SigBlk/ { print $2 }' "/proc/$PID/task/$ctl_tid/status")
# every signal the kernel lets a thread block (all but SIGKILL, SIGSTOP,
# and the two glibc keeps for itself, 32 and 33); qemu-user keeps the
# guest's masks to itself (/proc shows its own)
if [ -n "${XRAY_TEST_EMULATOR:-}" ]; then
  note "control thread's SigBlk not checked under emulation (/proc shows the emulator's mask)"
else
  [ "$blk" = fffffffe7ffbfeff ] || [ "$blk" = fffffffc7ffbfeff ] || fail "control thread blocks $blk"
fi
stat -c %a "$CTL_DIR" | grep -qx 700 || fail "directory mode $(stat -c %a "$CTL_DIR")"
stat -c %a "$CTL_DIR/$PID.sock" | grep -qx 600 || fail "socket mode"
fdinfo_flags=$(for fd in "/proc/$PID/fd"/*; do
  [[ $(readlink "$fd") == socket:* ]] &&
    awk '/^flags/ { print $2 }' "/proc/$PID/fdinfo/${fd##*/}"; done)
[ -n "$fdinfo_flags" ] || fail "no socket descriptor in the program"
for f in $fdinfo_flags; do
  (( (8#$f & 8#2000000) != 0 )) || fail "socket descriptor without close-on-exec (flags $f)"
done

note "malformed requests: an error reply each, the program goes on"
expect_eq "malformed requests" "random error
oversized error
truncated error
unknown error
version error
nul error
args error
range error
hello $PID driven - -" "$(python3 "$CTL_CLIENT" "$CTL_DIR/$PID.sock" malformed)"
grep -q "^requests: 2 served, 48 malformed, 0 refused" <(ctl status $PID) ||
  fail "counters: $(ctl status $PID | grep requests)"
tell "run 10"

note "a client killed in the middle of a record"
"$XRAYCTL" record $PID --seconds 600 --mode basic --patch 'alpha;beta' >killed.out 2>&1 &
client=$!
wait_list "$PID driven xray-basic initialized"
kill -9 $client; wait $client 2>/dev/null || true
# the program notices the hang-up, stops, writes, unpatches and restores
wait_list "$PID driven - -"
expect_eq "nothing left patched" "patched by control: 0" "$(ctl status $PID | grep '^patched')"
tell "run 10"

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  note "another uid"
  shared=$(mktemp -d /tmp/xrayctl-test.XXXXXX)
  trap 'rm -rf "$shared"' EXIT
  cp "$XRAYCTL" "$shared/xrayctl"; chmod 755 "$shared" "$shared/xrayctl"
  as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
  rc=0; as_nobody "$shared/xrayctl" --dir "$CTL_DIR" status $PID >nobody.out 2>&1 || rc=$?
  expect_eq "nobody through the private directory: exit" 4 "$rc"
  rc=0; as_nobody "$shared/xrayctl" status $PID >nobody.out 2>&1 || rc=$?
  expect_eq "nobody, default directories: exit" 4 "$rc"
  # The second wall: a socket nobody could reach (the test opens it up)
  # still refuses a peer of another uid.
  ln "$CTL_DIR/$PID.sock" "$shared/$PID.sock"
  chmod 666 "$shared/$PID.sock"
  rc=0; as_nobody "$shared/xrayctl" --dir "$shared" status $PID >nobody.out 2>&1 || rc=$?
  expect_eq "nobody at an open socket: exit" 4 "$rc"
  grep -q "uid 65534 may not control" nobody.out || fail "refusal: $(cat nobody.out)"
  chmod 600 "$shared/$PID.sock"
  grep -q "0 malformed, 1 refused\|, 1 refused" <(ctl status $PID) || fail "refusal not counted"
else
  note "not root (or no setpriv): the other-uid part is skipped"
fi
quit_driven

note "a hostile program: its escapes are not printed, its files not copied"
mkdir -m 700 fake
echo secret >notmine
python3 "$CTL_CLIENT" "$PWD/fake" hostile "$PWD/notmine" >fake.out &
FAKE=$!
wait_for fake.out "ready $FAKE"
expect_eq "escape neutralised" "$FAKE evil?[2J - -" "$(XRAYCTL_DIR=$PWD/fake ctl list)"
if [ "$(id -u)" -eq 0 ]; then
  chown 65534 notmine # not the (fake) program's uid: root must not copy it out
  XRAYCTL_DIR=$PWD/fake ctl_rc 1 record $FAKE --seconds 1 -o copied >/dev/null
  grep -q "is not a regular file of uid 0: not copied" ctl.err || fail "$(cat ctl.err)"
  [ ! -e copied ] || fail "the file was copied"
else
  ln -s /etc/passwd notmine.link # a symlink is never followed
  kill $FAKE; wait $FAKE 2>/dev/null || true
  python3 "$CTL_CLIENT" "$PWD/fake" hostile "$PWD/notmine.link" >fake2.out &
  FAKE=$!
  wait_for fake2.out "ready $FAKE"
  XRAYCTL_DIR=$PWD/fake ctl list >/dev/null
  XRAYCTL_DIR=$PWD/fake ctl_rc 1 record $FAKE --seconds 1 -o copied >/dev/null
  [ ! -e copied ] || fail "the link was followed"
fi
wait $FAKE
# A first line of 4095 bytes fills xrayctl's buffer: "<it>.json" does not
# fit (xrayctl wrote the 5 more bytes past the buffer's end; clang-tidy's
# insecureAPI.strcpy found the strcat).
long=$PWD/$(printf '%*s' $((4094 - ${#PWD})) '' | tr ' ' x)
python3 "$CTL_CLIENT" "$PWD/fake" hostile "$long" >fake3.out &
FAKE=$!
wait_for fake3.out "ready $FAKE"
XRAYCTL_DIR=$PWD/fake ctl list >/dev/null
XRAYCTL_DIR=$PWD/fake ctl_rc 1 record $FAKE --seconds 1 -o copied.json >/dev/null
grep -q "the program named a file too long to copy (4095 bytes)" ctl.err || fail "long name: $(cut -c1-200 ctl.err)"
[ ! -e copied.json ] || fail "long name: a file was copied"
wait $FAKE

note "hostile directories: refused, said at verbosity 1, the program runs on"
hostile() { # NAME DIR WHY
  rm -f h.in; mkfifo h.in
  XRAY_OPTIONS="xray_control=true verbosity=1 xray_control_dir=$2" ./driven <h.in >h.out 2>h.err &
  local pid=$!
  exec 8>h.in
  wait_for h.out "ready $pid"
  grep -q "control: not listening: xray_control_dir directory '$2': $3" h.err ||
    fail "$1: $(cat h.err)"
  expect_eq "$1: no control thread" "" "$(control_tid $pid)"
  [ ! -e "$2/$pid.sock" ] || fail "$1: a socket was made"
  echo "run 5" >&8; wait_for h.out "done"
  echo quit >&8; exec 8>&-; wait $pid || fail "$1: exit status $?"
}
mkdir -m 700 real; ln -s "$PWD/real" link
hostile symlink "$PWD/link" "the directory is a symbolic link"
mkdir -m 755 wide
hostile "wide permissions" "$PWD/wide" "the directory's permissions are not 0700"
touch file
hostile "not a directory" "$PWD/file" "the path is not a directory"
if [ "$(id -u)" -eq 0 ]; then
  mkdir -m 700 theirs; chown 65534 theirs
  hostile "another owner" "$PWD/theirs" "the directory belongs to another user"
fi
