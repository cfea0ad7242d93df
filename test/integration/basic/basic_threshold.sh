# func_duration_threshold_us: the default is 5 us (said at verbosity 1); with
# 50 ms the three >= 100 ms calls stay and the 100 tiny ones are erased (a
# 50 ms threshold, not the 5 us default, which a tiny call exceeds whenever
# the machine preempts it: the result must not depend on timing); with 0
# every call stays; the legacy xray_naive_log_func_duration_threshold_us
# applies when XRAY_BASIC_OPTIONS is unset.
source "$TEST_SRC_DIR/basic_lib.sh"
build threshold

# Basic mode erases a short call only when it exits on the CPU it entered on
# (TSC values of two CPUs are not compared). Pin the program to one CPU so a
# migration under load cannot keep a call the threshold should erase.
command -v taskset >/dev/null || skip "taskset (util-linux) not found"
pinned() { taskset -c "$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')" "$@"; }

XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=default- verbosity=1" \
  pinned ./threshold >/dev/null 2>default.err
grep -q "basic mode: recording (func_duration_threshold_us=5 " default.err ||
  { cat default.err >&2; fail "the default threshold is not 5 us"; }
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=long-" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=50000" pinned ./threshold >/dev/null
expect_eq "50 ms threshold" "sleepy 3" "$(counts threshold "$(only_file 'long-threshold.*')")"

XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=zero-" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" pinned ./threshold >/dev/null
expect_eq "threshold 0" "sleepy 3
tiny 100" "$(counts threshold "$(only_file 'zero-threshold.*')")"

XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=legacy- xray_naive_log_func_duration_threshold_us=0" \
  pinned ./threshold >/dev/null
expect_eq "legacy threshold 0" "sleepy 3
tiny 100" "$(counts threshold "$(only_file 'legacy-threshold.*')")"

# A threshold above every call: nothing recorded, so no file at all.
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=high-" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=10000000" pinned ./threshold >/dev/null
expect_eq "files when everything is erased" 0 "$(nfiles 'high-*')"
