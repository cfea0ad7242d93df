# fork while other threads patch, load shared objects and read names
# (fork_locks.c): every child must patch, trace and look names up, and exit
# 0; a child that hangs on a lock its parent's threads held at fork time is
# killed after a bounded wait and fails the test.
# shellcheck source=../integration/lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/stress_lib.sh"
source "$TEST_SRC_DIR/../integration/dso/dso_lib.sh"
# A shared object with many instrumented functions: each dlopen registers
# it, each patch call writes all its sleds, each load reads its names anew,
# so the registry lock and the names' loading state are held most of the
# time (no hook in the runtime widens the window).
FUNCTIONS=4000
awk -v n=$FUNCTIONS 'BEGIN { for (i = 0; i < n; i++)
  printf "__attribute__((noinline)) int many_%d(int x) { return x * %d + 1; }\n", i, i + 3 }' \
  >many.c
xr_so "$XRAY_CLANG" many.so many.c
build fork_locks "${XRAY_EXPORT_FLAGS[@]}" -ldl
CHILDREN=${XRAY_FORK_CHILDREN:-$((200 / TSAN_SLOWDOWN))}
rc=0
./fork_locks "$PWD/many.so" "$CHILDREN" >out.txt 2>err.txt || rc=$?
cat out.txt
if [ $rc -ne 0 ]; then
  head -n 40 err.txt >&2
  fail "fork_locks exited $rc"
fi
grep -qx "children $CHILDREN, ok $CHILDREN, hung 0, failed 0" out.txt || fail "unexpected summary"
[ ! -s err.txt ] || fail "unexpected stderr: $(head -c 2000 err.txt)"
echo "fork_locks: ok"
