# An executable, a linked chain libfirst.so -> libsecond.so and a dlopen'd
# plugin.so, built by one compiler (argument: clang-13 ... clang-19; default:
# the build's clang; 77 when missing): exact per-object event sequences,
# packed ids, patching by object and by packed id, dlclose and reload, and
# patch_premain reaching objects loaded later.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/dso_lib.sh"
cc=$XRAY_CLANG
if [ $# -gt 0 ]; then
  cc=$(command -v "$1" || true)
  [ -n "$cc" ] || skip "$1 not installed"
fi
xr_need_sanitizer_runtime "$cc"
xr_so "$cc" libsecond.so "$TEST_SRC_DIR/second.c"
xr_so "$cc" libfirst.so "$TEST_SRC_DIR/first.c" -L. -lsecond -Wl,-rpath,\$ORIGIN
xr_so "$cc" plugin.so "$TEST_SRC_DIR/plugin.c"
xr_exe "$cc" objects "$TEST_SRC_DIR/objects.c" -L. -lfirst -Wl,-rpath,\$ORIGIN

./objects "$PWD/plugin.so" >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "objects exited $exit_status"; }
expect_file_eq "event sequences" "$TEST_SRC_DIR/objects.expected" out.txt
[ ! -s err.txt ] || fail "unexpected stderr: $(cat err.txt)"

XRAY_OPTIONS=patch_premain=true ./objects "$PWD/plugin.so" premain >out.txt 2>err.txt ||
  { exit_status=$?; cat err.txt >&2; fail "objects premain exited $exit_status"; }
expect_file_eq "patch_premain sequences" "$TEST_SRC_DIR/objects_premain.expected" out.txt
