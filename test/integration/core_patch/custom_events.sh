# Custom and typed events: exact payloads, removal, event-type ids (also from
# 4 threads), and an aligned stack in the handler for events from frameless
# leaves and framed functions (compiler-rt 14 crashes on the former).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cc custom_events "$TEST_SRC_DIR/custom_events.c" -I"$XRAY_SRC/lib" -O2 -fomit-frame-pointer
./custom_events >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "exited $exit_status"; }
expect_file_eq "custom/typed events" "$TEST_SRC_DIR/custom_events.expected" out.txt
[ ! -s err.txt ] || fail "unexpected stderr: $(cat err.txt)"
