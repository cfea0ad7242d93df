# 4 threads, exact event counts per function and kind.
source "$XRAY_TEST_LIB_SH"
xr_cc threads "$TEST_SRC_DIR/threads.c" -O2
./threads >out.txt 2>err.txt || { cat err.txt >&2; fail "exited $?"; }
expect_file_eq "event counts" "$(xr_expected threads)" out.txt
