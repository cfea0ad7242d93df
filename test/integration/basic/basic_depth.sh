# max_stack_depth=3 with recursion 10 deep: only depths 1..3 are written
# (3 calls per recursion), and the log never nests deeper than 3.
source "$TEST_SRC_DIR/basic_lib.sh"
build depth
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0 max_stack_depth=3" ./depth >/dev/null
log=$(only_file "xray-log.depth.*")
expect_eq "counts" "recurse 15" "$(counts depth "$log")"
max=$(yaml depth "$log" | awk '/function-enter/ { d++; if (d > m) m = d } /function-exit/ { d-- } END { print m }')
expect_eq "deepest nesting in the log" 3 "$max"

# Without a limit all ten levels are there.
rm -f xray-log.depth.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./depth >/dev/null
expect_eq "counts without a limit" "recurse 50" "$(counts depth "$(only_file 'xray-log.depth.*')")"
