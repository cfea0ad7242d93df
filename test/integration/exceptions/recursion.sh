# Recursion (progs/recursion.cc): f(0) throws, f(2) catches and returns
# normally, 100 times; each time an untraced caller with a large frame
# then calls probe(), deeper on the stack than any f was. The exit of f(2)
# closes f(0) and f(1) as unwound and then f(2) by its exit (an exit of f
# with f on top: only the stack pointer tells which f returns), so probe()
# is a root call, not a callee of a stale f. Then later() runs 10 times.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/exc_lib.sh"
xr_cxx recursion "$TEST_SRC_DIR/progs/recursion.cc"
export EXC_PROFILING_MORE=fold_recursion=false # a node per depth, as the binary profile
exc_check_all recursion recursion 3 "" "caught 100" \
"f calls=300 exit=100 tail=0 unwound=200 open=0
later calls=10 exit=10 tail=0 unwound=0 open=0
probe calls=100 exit=100 tail=0 unwound=0 open=0" \
"f 100
f;f 100
f;f;f 100
probe 100
later 10" ./recursion
exc_check_all recursion recursion 3 "f;later" "caught 100" \
"f calls=300 exit=100 tail=0 unwound=200 open=0
later calls=10 exit=10 tail=0 unwound=0 open=0" \
"f 100
f;f 100
f;f;f 100
later 10" ./recursion
