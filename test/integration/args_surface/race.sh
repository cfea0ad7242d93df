# SPECs changed while threads run the hook (and threads start and end):
# no record mixes two SPECs, each change reaches the readers, no table is
# freed while a thread reads it (it would fault; under ASan and TSan,
# reported). Also in run-all.sh's TSan phase.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/surface_lib.sh"
surface_build
./surface race 1000 >out.txt 2>&1 || { cat out.txt >&2; fail "race"; }
expect_eq "race" "race: ok" "$(cat out.txt)"
