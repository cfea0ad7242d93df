# Skipped exits (longjmp) neither corrupt the erasure of short calls nor
# stop recording.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog longjmp
rm -f xray-log.longjmp.*
# At 200 ms: the short calls take nanoseconds (a 200 ms stall would be
# needed to keep one), slow() spins 300 ms; on one CPU (xr_pinned), since a
# call that changed CPU is never erased.
xr_pinned ./longjmp "func_duration_threshold_us=200000"
f=$(only_file "xray-log.longjmp.*")
expect_eq "at 200 ms only the slow calls remain" "slow:3" "$(fdr_counts "$f" longjmp)"
# threshold 0: every record; inner() entered 3000 times, its exits (skipped
# by longjmp) written by the flush when outer() returns
rm -f xray-log.longjmp.*
./longjmp "func_duration_threshold_us=0"
f=$(only_file "xray-log.longjmp.*")
expect_eq "at 0 every record" "inner:3000/3000 outer:3000/3000 quick:30/30 slow:3/3" "$(fdr_calls "$f" longjmp)"
echo "longjmp: ok"

# The same with C++ exceptions thrown through two instrumented frames.
xr_cxx exceptions "$TEST_SRC_DIR/progs/exceptions.cc"
rm -f xray-log.exceptions.*
xr_pinned ./exceptions "func_duration_threshold_us=200000"
f=$(only_file "xray-log.exceptions.*")
expect_eq "exceptions at 200 ms" "slow():2/2" "$(fdr_calls "$f" exceptions)"
rm -f xray-log.exceptions.*
./exceptions "func_duration_threshold_us=0"
f=$(only_file "xray-log.exceptions.*")
got=$(fdr_calls "$f" exceptions)
echo "$got" | grep -q "catcher.*:400/400" || fail "exceptions at 0: $got"
echo "$got" | grep -q "thrower.*:400/400" || fail "exceptions at 0: $got"
echo "exceptions: ok"
