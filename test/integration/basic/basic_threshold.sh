# func_duration_threshold_us: the default is 5 us (said at verbosity 1); with
# 200 ms the three sleepy() calls of 300 ms stay and the 100 tiny ones are
# erased; with 0 every call stays; the legacy
# xray_naive_log_func_duration_threshold_us applies when XRAY_BASIC_OPTIONS
# is unset. Timing cannot decide the result: a tiny call takes nanoseconds,
# and would need a 200 ms stall (a preemption, a page fault under memory
# pressure) to reach the threshold, not the 5 us default, which any
# preemption exceeds; sleepy() waits on the clock until its 300 ms have
# passed (half as much again as the threshold, far more than the error of
# the TSC's frequency). And the program runs on one CPU: basic mode erases
# a call only when it exits on the CPU it entered on (xr_pinned).
source "$TEST_SRC_DIR/basic_lib.sh"
build threshold
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=default- verbosity=1" \
  xr_pinned ./threshold >/dev/null 2>default.err
grep -q "basic mode: recording (func_duration_threshold_us=5 " default.err ||
  { cat default.err >&2; fail "the default threshold is not 5 us"; }
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=long-" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=200000" xr_pinned ./threshold 300 >/dev/null
expect_eq "200 ms threshold" "sleepy 3" "$(counts threshold "$(only_file 'long-threshold.*')")"

XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=zero-" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" xr_pinned ./threshold >/dev/null
expect_eq "threshold 0" "sleepy 3
tiny 100" "$(counts threshold "$(only_file 'zero-threshold.*')")"

XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=legacy- xray_naive_log_func_duration_threshold_us=0" \
  xr_pinned ./threshold >/dev/null
expect_eq "legacy threshold 0" "sleepy 3
tiny 100" "$(counts threshold "$(only_file 'legacy-threshold.*')")"

# A threshold above every call: nothing recorded, so no file at all.
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=high-" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=10000000" xr_pinned ./threshold >/dev/null
expect_eq "files when everything is erased" 0 "$(nfiles 'high-*')"
