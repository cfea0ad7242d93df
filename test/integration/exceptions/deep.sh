# An exception thrown through three traced frames (thrower <- mid1 <-
# mid2) into an untraced catcher, 100 times, then a traced function called
# 10 times (progs/deep.cc): the three calls of each throw are closed as
# unwound by the next entry of mid2; chosen by name (thrower and later
# only), thrower's alone, by the next entry of thrower.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/exc_lib.sh"
xr_cxx deep "$TEST_SRC_DIR/progs/deep.cc"
exc_check_all deep deep 3 "" "caught 100" \
"later calls=10 exit=10 tail=0 unwound=0 open=0
mid1 calls=100 exit=0 tail=0 unwound=100 open=0
mid2 calls=100 exit=0 tail=0 unwound=100 open=0
thrower calls=100 exit=0 tail=0 unwound=100 open=0" \
"mid2 100
mid2;mid1 100
mid2;mid1;thrower 100
later 10" ./deep
exc_check_all deep deep 1 "thrower;later" "caught 100" \
"later calls=10 exit=10 tail=0 unwound=0 open=0
thrower calls=100 exit=0 tail=0 unwound=100 open=0" \
"thrower 100
later 10" ./deep
