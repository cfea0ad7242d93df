# patch_premain=true from XRAY_OPTIONS patches before main, in dynamic and
# -static programs; without it nothing is patched. __xray_init is idempotent
# under concurrent calls.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cc premain "$TEST_SRC_DIR/premain.c"
printf '[premain]\nenter f\nexit f\n' >patched.txt
printf '[premain]\n' >unpatched.txt
XRAY_OPTIONS=patch_premain=true ./premain >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "exited $exit_status"; }
expect_file_eq "patch_premain=true" patched.txt out.txt
./premain >out.txt 2>err.txt || fail "exited $?"
expect_file_eq "no patch_premain" unpatched.txt out.txt
if xr_cc premain_static "$TEST_SRC_DIR/premain.c" -static 2>static.err; then
  XRAY_OPTIONS=patch_premain=true ./premain_static >out.txt 2>err.txt || fail "static: exited $?"
  expect_file_eq "patch_premain=true (-static)" patched.txt out.txt
else
  note "no static libc: -static case skipped"
fi
