# Patch/unpatch (all, one, range) 2000 times while 2 threads run the code.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cc patch_race "$TEST_SRC_DIR/patch_race.c" -O2
timeout 60 ./patch_race >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "exited $exit_status"; }
expect_file_eq "counts after the race" "$(xr_expected patch_race)" out.txt
