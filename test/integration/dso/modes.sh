# Basic, FDR and profiling across objects (modes.c: the executable, a linked
# chain libfirst.so -> libsecond.so, a dlopen'd plugin.so): exact counts per
# function read by the real llvm-xray, every id of the log named by the
# sidecar <log>.map, and names from every object in the folded stacks and
# the report.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/dso_lib.sh"
need_llvm_xray
command -v python3 >/dev/null || skip "no python3"
xr_modes_build
xr_so "$XRAY_CLANG" plugin.so "$TEST_SRC_DIR/plugin.c"

xr_modes_expected_counts >expected.txt


for mode in basic fdr; do
  rm -f xray-log.*
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-$mode" \
    XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 XRAY_FDR_OPTIONS=func_duration_threshold_us=0 \
    ./modes "$PWD/plugin.so" >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "$mode run exited $exit_status"; }
  log=$(only_file "xray-log.modes.??????")
  [ -f "$log.map" ] || fail "$mode: no $log.map"
  expect_eq "$mode: map objects" "modes libsecond.so libfirst.so plugin.so" \
    "$(xr_map_objects "$log.map" | tr ',' '\n' | awk '{ printf "%s%s", sep, $2; sep = " " }')"
  xr_log_counts "$log" >counts.txt || fail "$mode: reading the log"
  expect_file_eq "$mode counts per function" expected.txt counts.txt
done

xr_modes_profile "$PWD/plugin.so" folded+report

# The plugin's file deleted while it is loaded: its functions get made-up
# names fn<id>@<file>+0x<offset> (offsets in the file: the symbol values).
cp plugin.so deleted.so
rm -f xray-log.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-profiling" \
  XRAY_PROFILING_OPTIONS="profiling_output=folded folded_value=calls" \
  ./modes "$PWD/deleted.so" delete >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "deleted run exited $exit_status"; }
[ ! -e deleted.so ] || fail "the program did not delete deleted.so"
off() { printf '0x%x' "0x$(nm plugin.so | awk -v s="$1" '$3 == s { print $1 }')"; }
cat >expected.folded <<END
exe_leaf 3
first_add 5
first_add;second_mul 5
fn2@deleted.so+$(off plugin_fn) 4
fn2@deleted.so+$(off plugin_fn);fn1@deleted.so+$(off plugin_leaf) 4
END
expect_file_eq "folded stacks, deleted file" expected.folded "$(only_file 'xray-log.modes.*.folded')"
