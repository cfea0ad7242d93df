# A rethrow (progs/rethrow.cc): rethrower() catches thrower's exception,
# calls note() and rethrows with `throw;` into an untraced catcher, 100
# times, then later() runs 10 times. thrower's call is closed as unwound by
# note's entry (same stack pointer: both are called from rethrower's
# frame), rethrower's by the next rethrower; note returns normally.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/exc_lib.sh"
xr_cxx rethrow "$TEST_SRC_DIR/progs/rethrow.cc"
exc_check_all rethrow rethrow 2 "" "caught 100" \
"later calls=10 exit=10 tail=0 unwound=0 open=0
note calls=100 exit=100 tail=0 unwound=0 open=0
rethrower calls=100 exit=0 tail=0 unwound=100 open=0
thrower calls=100 exit=0 tail=0 unwound=100 open=0" \
"rethrower 100
rethrower;thrower 100
rethrower;note 100
later 10" ./rethrow
exc_check_all rethrow rethrow 1 "thrower;later" "caught 100" \
"later calls=10 exit=10 tail=0 unwound=0 open=0
thrower calls=100 exit=0 tail=0 unwound=100 open=0" \
"thrower 100
later 10" ./rethrow
