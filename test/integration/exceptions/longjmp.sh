# longjmp into an untraced frame (progs/longjmp.c): jumper(), called by
# mid(), longjmps to the setjmp of an untraced function, 100 times, then
# later() runs 10 times: both calls of each jump are closed as unwound by
# the next entry of mid (chosen by name, jumper's alone by the next
# jumper), as an exception's are.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/exc_lib.sh"
xr_cc longjmp "$TEST_SRC_DIR/progs/longjmp.c"
exc_check_all longjmp longjmp 2 "" "jumped 100" \
"jumper calls=100 exit=0 tail=0 unwound=100 open=0
later calls=10 exit=10 tail=0 unwound=0 open=0
mid calls=100 exit=0 tail=0 unwound=100 open=0" \
"mid 100
mid;jumper 100
later 10" ./longjmp
exc_check_all longjmp longjmp 1 "jumper;later" "jumped 100" \
"jumper calls=100 exit=0 tail=0 unwound=100 open=0
later calls=10 exit=10 tail=0 unwound=0 open=0" \
"jumper 100
later 10" ./longjmp
