# Names longer than 20 000 characters (C++ names reach tens of kilobytes)
# reach every text the runtime writes whole, byte for byte: the sidecar
# <log>.map and the Chrome JSON of basic and FDR mode, the folded stacks,
# report and pprof profile of profiling mode; in the executable and in a
# dlopen'd shared object (long_gen.py says which names). A deleted shared
# object with a 240-character file name gives whole made-up names.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$XRAY_SRC/test/integration/dso/dso_lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
[ -n "${XRAY_CLANGXX:-}" ] || skip "clang++ not found"
CHECK="python3 $TEST_SRC_DIR/long_check.py"
python3 "$TEST_SRC_DIR/long_gen.py" exe >long_main.cc
python3 "$TEST_SRC_DIR/long_gen.py" plugin >long_plugin.cc
xr_so "$XRAY_CLANGXX" plugin.so long_plugin.cc -std=c++17
xr_exe "$XRAY_CLANGXX" long long_main.cc -std=c++17

# The names the runtime must write: every function symbol of our own, as
# the program's __cxa_demangle gives it (or the symbol when it refuses).
nm --defined-only long plugin.so | awk 'NF == 3 && $2 ~ /^[TtWw]$/ { print $3 }' |
  grep -E '(exe|plugin)_' >symbols.txt
./long demangle <symbols.txt >want.txt
$CHECK want want.txt || fail "the generated names are not what the test needs"

run() { # MODE VAR=VALUE...: ./long with MODE and VARs (PLUGIN, DELETE: main's arguments)
  local mode=$1; shift
  rm -f xray-log.*
  env XRAY_OPTIONS="patch_premain=true xray_mode=xray-$mode" "$@" \
    ./long "$PWD/${PLUGIN:-plugin.so}" ${DELETE:+"$DELETE"} >out.txt 2>err.txt ||
    { exit_status=$?; cat err.txt >&2; fail "$mode run exited $exit_status"; }
}

for mode in basic fdr; do
  opts="func_duration_threshold_us=0:trace_output=xray+chrome"
  run $mode XRAY_BASIC_OPTIONS=$opts XRAY_FDR_OPTIONS=$opts
  log=$(only_file "xray-log.long.??????")
  $CHECK map want.txt "$log.map" || fail "$mode: $log.map"
  $CHECK json want.txt "$log.json" || fail "$mode: $log.json"
done

run profiling XRAY_PROFILING_OPTIONS="profiling_output=folded+report+pprof folded_value=calls"
$CHECK folded want.txt "$(only_file 'xray-log.long.*.folded')" || fail "folded stacks"
$CHECK report want.txt "$(only_file 'xray-log.long.*.txt')" || fail "report"
if command -v go >/dev/null && go tool pprof -h >/dev/null 2>&1; then
  go tool pprof -raw -symbolize=none "$(only_file 'xray-log.long.*.pb')" >pprof.txt ||
    fail "pprof rejects the profile"
  $CHECK pprof want.txt pprof.txt symbols.txt || fail "pprof"
else
  echo "go tool pprof not found: the pprof profile is not read" >&2
fi

# Made-up names of a deleted object's functions carry its whole file name.
file=$(printf 'p%.0s' {1..237}).so
cp plugin.so "$file"
PLUGIN=$file DELETE=delete run profiling XRAY_PROFILING_OPTIONS="profiling_output=folded folded_value=calls"
[ ! -e "$file" ] || fail "the program did not delete $file"
nm --defined-only plugin.so >plugin_nm.txt
$CHECK made_up "$file" plugin_nm.txt "$(only_file 'xray-log.long.*.folded')" ||
  fail "made-up names of $file"
echo "long: ok"
