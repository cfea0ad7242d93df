# A fork while a host's first instrumented object starts the mode (another
# thread forks inside the start, fork_start.c): the child starts it once,
# not again when it loads an object of its own. glibc's pthread_once runs an
# initialiser again in a fork child when the parent's other thread was
# inside it; the start's steps are done once per process tree instead.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/dso_lib.sh"
echo '__attribute__((noinline)) int one_fn(int x) { return x + 1; }' >one.c
echo '__attribute__((noinline)) int two_fn(int x) { return x + 2; }' >two.c
xr_so "$XRAY_CLANG" one.so one.c
xr_so "$XRAY_CLANG" two.so two.c
xr_host "$XRAY_CLANG" fork_start "$TEST_SRC_DIR/fork_start.c"
XRAY_OPTIONS="xray_mode=mymode patch_premain=true" ./fork_start "$PWD/one.so" "$PWD/two.so" \
  >out.txt 2>err.txt || { exit_status=$?; cat out.txt err.txt >&2; fail "fork_start exited $exit_status"; }
expect_eq "log_init calls" "child inits 1
parent inits 1" "$(sort out.txt)"
echo "fork_start: ok"
