# 4 threads, exact event counts per function and kind.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cc threads "$TEST_SRC_DIR/threads.c" -O2
./threads >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "exited $exit_status"; }
expect_file_eq "event counts" "$(xr_expected threads)" out.txt
