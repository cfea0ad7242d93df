# Live retargeting under load (retarget.c): two threads call a function at
# least 10^6 times each while a third changes its want bits, at least
# 1,000 times and for as long as they run;
# every result and every recorded value exact, the other function's events
# at the usual handler exactly.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cc retarget "$TEST_SRC_DIR/retarget.c" -I"$XRAY_SRC/lib"
./retarget >out.txt 2>err.txt || { exit_status=$?; cat out.txt err.txt >&2; fail "exited $exit_status"; }
expect_file_eq "live retargeting" "$TEST_SRC_DIR/retarget.expected" out.txt
note "$(cat err.txt)"
