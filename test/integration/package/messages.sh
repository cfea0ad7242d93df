# A trace asked for by XRAY_OPTIONS that cannot happen is explained once,
# with the option that changes it: at the default verbosity to a person
# (stderr is a terminal), at verbosity=1 always. Scripts that redirect
# stderr, and programs that asked for nothing or got their trace, hear
# nothing.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/package_lib.sh"
command -v script >/dev/null || skip "script (util-linux) not installed: no pseudo-terminal"

# on_tty NAME OPTIONS CMD...: runs CMD with XRAY_OPTIONS=OPTIONS on a
# pseudo-terminal; everything it prints lands in NAME.err. Must exit 0.
on_tty() {
  local name=$1 opts=$2; shift 2
  XRAY_OPTIONS="$opts" script -qec "$*" /dev/null >"$name.err" </dev/null ||
    { exit_status=$?; cat "$name.err" >&2; fail "$name exited with $exit_status"; }
}
# piped NAME OPTIONS CMD...: stderr to NAME.err (not a terminal).
piped() {
  local name=$1 opts=$2; shift 2
  XRAY_OPTIONS="$opts" "$@" >"$name.out" 2>"$name.err" ||
    { exit_status=$?; cat "$name.err" >&2; fail "$name exited with $exit_status"; }
}
# said_once NAME TEXT: TEXT is on exactly one line of NAME.err
said_once() {
  expect_eq "$1: lines saying '$2'" 1 "$(grep -cF -- "$2" "$1.err" || true)"
}
# no_xray_words NAME: the runtime said nothing
no_xray_words() {
  expect_eq "$1: runtime messages" 0 "$(grep -c 'XRay:' "$1.err" || true)"
}

NOMAP="but this program has no XRay instrumentation map"
UNPATCHED="but the program never called __xray_patch()"

# 1. No instrumentation map: a program built without -fxray-instrument.
cat >plain.c <<'C'
#include <stdio.h>
int main(void) { puts("plain"); return 0; }
C
"$XRAY_CLANG" -O1 plain.c -o plain "${XRAY_LDFLAGS[@]}"
on_tty nomap "patch_premain=true xray_mode=xray-basic" ./plain
said_once nomap "asks for a trace (xray-basic), $NOMAP"
said_once nomap "build it with clang -fxray-instrument"
grep -q '^plain' nomap.err || fail "nomap: the program's own output is missing"
piped nomap-piped "patch_premain=true xray_mode=xray-basic" ./plain
no_xray_words nomap-piped
piped nomap-v1 "patch_premain=true verbosity=1" ./plain
said_once nomap-v1 "asks for a trace (patch_premain=true), $NOMAP"
on_tty nomap-quiet "" ./plain
no_xray_words nomap-quiet

# 2. A mode selected but nothing ever patched.
xr_cc app "$CONSUMER_SRC/app.c"
on_tty unpatched "xray_mode=xray-fdr" ./app
said_once unpatched "selected mode 'xray-fdr', $UNPATCHED"
said_once unpatched "add patch_premain=true"
grep -q '^result=180' unpatched.err || fail "unpatched: the program's own output is missing"
# basic, which XRAY_OPTIONS initialises without patching
on_tty unpatched-basic "xray_mode=xray-basic xray_logfile_base=basic-" ./app
said_once unpatched-basic "selected mode 'xray-basic', $UNPATCHED"
piped unpatched-piped "xray_mode=xray-fdr" ./app
no_xray_words unpatched-piped
piped unpatched-v1 "xray_mode=xray-fdr verbosity=1" ./app
said_once unpatched-v1 "selected mode 'xray-fdr', $UNPATCHED"

# Once per run: a fork child (which inherits the selection) stays quiet.
cat >forks.c <<'C'
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((xray_always_instrument, noinline)) int work(int x) { return x + 1; }
int main(void) {
  pid_t child = fork();
  printf("%s %d\n", child == 0 ? "child" : "parent", work(1));
  if (child > 0)
    waitpid(child, NULL, 0);
  return 0;
}
C
xr_cc forks forks.c
on_tty forked "xray_mode=xray-fdr" ./forks
said_once forked "$UNPATCHED"
expect_eq "forked: both processes ran" 2 "$(grep -c ' 2' forked.err)"

# ... and nothing when the program patched (and unpatched) by itself,
on_tty self-patched "xray_mode=xray-fdr" ./app count
no_xray_words self-patched
grep -q "$EXPECTED_COUNTS" self-patched.err || fail "self-patched: counts"
# with patch_premain,
on_tty premain "patch_premain=true xray_mode=xray-basic xray_logfile_base=traced- verbosity=0" \
  env XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 ./app
no_xray_words premain
only_file "traced-app.*" >/dev/null
# or without XRAY_OPTIONS.
on_tty quiet "" ./app
no_xray_words quiet
echo PASS
