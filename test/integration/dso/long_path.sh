# Paths longer than 1,100 bytes (up to PATH_MAX, 4,096 on Linux) are kept
# whole: a dlopen'd instrumented shared object deep in nested directories
# keeps its symbols' names (the .map, the folded stacks, the report) and its
# whole path (the .map's object line, the pprof mapping's file name); an
# xray_logfile_base that long still names every log and sibling file. Past
# PATH_MAX a base is refused and a log name not made, each said once.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/dso_lib.sh"
need_llvm_xray
command -v python3 >/dev/null || skip "no python3"
xr_modes_build

# 12 nested directories of 99 characters: the plugin's path is > 1,200 bytes.
deep=$PWD
for i in $(seq 12); do deep=$deep/$(printf 'd%.0s' $(seq 98))$((i % 10)); done
mkdir -p "$deep"
xr_so "$XRAY_CLANG" "$deep/plugin.so" "$TEST_SRC_DIR/plugin.c"
plugin=$deep/plugin.so
[ ${#plugin} -gt 1100 ] || fail "the test's path is only ${#plugin} bytes"

rm -f xray-log.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 \
  ./modes "$plugin" >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "basic run exited $exit_status"; }
log=$(only_file "xray-log.modes.??????")
awk '$1 == "object" && $NF ~ /plugin.so$/ { print $NF }' "$log.map" >map_path.txt
expect_eq "the plugin's path in the .map" "$plugin" "$(cat map_path.txt)"
grep -E '^function ' "$log.map" | awk '{ print $5 }' | grep -E '^plugin_' | sort >map_names.txt
expect_eq "the plugin's names in the .map" "plugin_fn plugin_leaf" "$(tr '\n' ' ' <map_names.txt | sed 's/ $//')"

xr_modes_profile "$plugin" folded+report+pprof
python3 "$XRAY_SRC/test/integration/profiling/pprof_mappings.py" \
  "$(only_file 'xray-log.modes.*.pb')" | awk '{ print $1 }' >pprof_files.txt
grep -qxF "$plugin" pprof_files.txt || { cat pprof_files.txt >&2; fail "no pprof mapping named the plugin's whole path"; }

# A logfile base as long: the log, its .map and the profiling siblings.
rm -f xray-log.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=$deep/x-" \
  XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 \
  ./modes "$plugin" >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "long base run exited $exit_status"; }
log=$(only_file "$deep/x-modes.??????")
[ -s "$log.map" ] || fail "no $log.map"
xr_log_counts "$log" >counts.txt || fail "reading $log"
grep -qx "plugin_leaf enter 4 exit 4" counts.txt || { cat counts.txt >&2; fail "plugin_leaf's counts in $log"; }
XRAY_OPTIONS="patch_premain=true xray_mode=xray-profiling xray_logfile_base=$deep/y-" \
  XRAY_PROFILING_OPTIONS="profiling_output=folded folded_value=calls" \
  ./modes "$plugin" >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "long base profiling run exited $exit_status"; }
expect_file_eq "folded stacks, long base" expected.folded "$(only_file "$deep/y-modes.*.folded")"

# Past PATH_MAX: a base of 4,100 bytes is refused (the default kept); one
# of 4,090 leaves no room for the name: no log, one error line.
rm -f xray-log.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=$(printf 'b%.0s' $(seq 4100))" \
  XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 \
  ./modes "$plugin" >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "4,100-byte base run exited $exit_status"; }
grep -q "too long (4100 bytes, at most 4095); keeping 'xray-log.'" err.txt || { cat err.txt >&2; fail "no word on the 4,100-byte base"; }
only_file "xray-log.modes.??????" >/dev/null
rm -f xray-log.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=$(printf 'c%.0s' $(seq 4090))" \
  XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 \
  ./modes "$plugin" >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "4,090-byte base run exited $exit_status"; }
grep -q "log file name too long" err.txt || { cat err.txt >&2; fail "no word on the 4,090-byte base"; }
[ -z "$(find . -maxdepth 1 -name 'ccc*')" ] || fail "a file was created with the 4,090-byte base"
echo "long_path: ok"
