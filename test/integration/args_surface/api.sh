# The API (include/xray/xray_args.h): set, get, clear, refusals with their
# exact messages; the tables and the hook, called as an argument
# trampoline calls it, with known registers: every value exact, plans
# merged in SPEC order, strings read or marked, events without a plan or
# sink passed to the program's handlers; fork children that inherit the
# SPEC and change it while the parent's other thread was changing it at
# the fork; and the hook's micro-benchmark,
# whose sink counts every call and value.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/surface_lib.sh"
surface_build
./surface api >out.txt 2>&1 || { cat out.txt >&2; fail "api"; }
./surface hook >out.txt 2>&1 || { cat out.txt >&2; fail "hook"; }
./surface fork 20 >out.txt 2>&1 || { cat out.txt >&2; fail "fork"; }
./surface bench 1000 >bench.txt 2>&1 || { cat bench.txt >&2; fail "bench"; }
expect_eq "bench rows" "0-values 1-value 3-values 6-values string bench:" \
  "$(awk '{ print $1 }' bench.txt | paste -sd' ' -)"
note "$(paste -sd' ' bench.txt)"
