# Programs that end without exit(): one killed before its first append
# leaves an empty file, never a header-only one (the header comes with the
# first records).
source "$TEST_SRC_DIR/basic_lib.sh"
build exit_kids

# Killed with its only records still buffered: an empty file (the header
# comes with the first append), never a header-only one.
rm -f xray-log.exit_kids.*
rc=0
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./exit_kids kill > pids.txt || rc=$?
expect_eq "killed by SIGKILL" 137 "$rc"
log=$(only_file 'xray-log.exit_kids.*')
expect_eq "size of the killed program's file" 0 "$(stat -c %s "$log")"
exit 0
