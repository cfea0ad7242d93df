# A shared object linked with -z initfirst runs its constructor, and so
# registers with the runtime, before libc has set `environ` (and before the
# executable's preinit): XRAY_OPTIONS must still be read (from the kernel's
# copy of the environment) and the trace must hold both objects' calls.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/dso_lib.sh"
xr_so "$XRAY_CLANG" libinitfirst.so "$TEST_SRC_DIR/initfirst_lib.c" -Wl,-z,initfirst
"${XRAY_READELF:-readelf}" -d libinitfirst.so | grep -q INITFIRST ||
  fail "libinitfirst.so has no DF_1_INITFIRST flag"
xr_exe "$XRAY_CLANG" app "$TEST_SRC_DIR/initfirst.c" -L. -linitfirst -Wl,-rpath,"$PWD"
rm -f xray-log.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" \
  XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 ./app >out.txt 2>err.txt ||
  { exit_status=$?; cat err.txt >&2; fail "app exited $exit_status"; }
expect_eq "program output" 110 "$(cat out.txt)"
log=$(only_file "xray-log.app.??????")
xr_log_counts "$log" >counts.txt || fail "reading the log"
cat >expected.txt <<'END'
exe_fn enter 10 exit 10
lib_fn enter 10 exit 10
main enter 1 exit 1
END
expect_file_eq "calls per function" expected.txt counts.txt
echo "initfirst: ok"
