# Programmatic start (__xray_log_init_mode + __xray_patch, no XRAY_OPTIONS)
# and finalize + flush from main: every thread's records are written, the
# main thread's and a still-running thread's included; nothing after.
source "$TEST_SRC_DIR/basic_lib.sh"
build flush
env -u XRAY_OPTIONS -u XRAY_BASIC_OPTIONS ./flush > out.txt
expect_eq "statuses" "init=2 patch=1 finalize=4 flush=2 again=0" "$(cat out.txt)"
log=$(only_file "xray-log.flush.*")
expect_eq "counts" "in_joined 5
in_main 7
in_waiting 3" "$(counts flush "$log")"
