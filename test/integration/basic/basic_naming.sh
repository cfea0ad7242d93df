# Log file names: <xray_logfile_base><program>.<6 chars>, the base being a
# prefix (a directory part is allowed); the default base is "xray-log.".
source "$TEST_SRC_DIR/basic_lib.sh"
build calls
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic verbosity=1" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./calls 1 10 >/dev/null 2>err.txt
f=$(only_file "xray-log.calls.*")
[[ "$f" =~ ^xray-log\.calls\.[A-Za-z0-9]{6}$ ]] || fail "default name: $f"
grep -q "$f" err.txt || { cat err.txt >&2; fail "verbosity=1 names the file"; }

mkdir out
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=out/run1-" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./calls 1 10 >/dev/null
f=$(only_file "out/run1-calls.*")
[[ "$f" =~ ^out/run1-calls\.[A-Za-z0-9]{6}$ ]] || fail "name with a base: $f"
expect_eq "counts" "leaf 20
mid 10
top 1
worker 1" "$(counts calls "$f")"
# legacy xray_naive_log=true starts the mode too
XRAY_OPTIONS="patch_premain=true xray_naive_log=true xray_logfile_base=out/legacy-" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./calls 1 10 >/dev/null
only_file "out/legacy-calls.*" >/dev/null
