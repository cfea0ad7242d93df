# Shared objects loaded after the SPEC was set (from code, or by
# XRAY_OPTIONS in a host without an instrumentation map, where it comes
# into effect at the first object's registration): the object gets its
# plans when it registers, patch_premain patches its sleds to the argument
# trampolines, its values arrive exactly; its functions count in the
# matches while it is loaded, not after dlclose, and again when loaded anew.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
# shellcheck source=../dso/dso_lib.sh
source "$XRAY_SRC/test/integration/dso/dso_lib.sh"
xr_so "$XRAY_CLANG" plugin.so "$TEST_SRC_DIR/dso_plugin.c"
xr_exe "$XRAY_CLANG" dso_map "$TEST_SRC_DIR/dso.c" -I"$XRAY_SRC/lib"
xr_host "$XRAY_CLANG" dso_nomap "$TEST_SRC_DIR/dso.c" -I"$XRAY_SRC/lib"
want_round="loaded: 2 plugin_*@arg1/d,arg2/s 1 plugin_fn@retval/x
values: entry arg1=2a arg2=STR:plug exit retval=c4
unloaded: 0 plugin_*@arg1/d,arg2/s 0 plugin_fn@retval/x"
XRAY_OPTIONS="patch_premain=true" ./dso_map "$PWD/plugin.so" map >out.txt 2>err.txt ||
  { cat err.txt >&2; fail "dso_map exited $?"; }
# the string's pointer differs from run to run: compared by its text
sed -i 's/arg2=[0-9a-f]*:/arg2=STR:/' out.txt
expect_eq "a program with its own map" "$want_round
$want_round" "$(cat out.txt)"
[ ! -s err.txt ] || { cat err.txt >&2; fail "dso_map complained"; }
XRAY_OPTIONS="patch_premain=true xray_args=plugin_*@arg1,arg2/s;plugin_fn@retval/x" \
  ./dso_nomap "$PWD/plugin.so" nomap >out.txt 2>err.txt ||
  { cat err.txt >&2; fail "dso_nomap exited $?"; }
sed -i 's/arg2=[0-9a-f]*:/arg2=STR:/' out.txt
expect_eq "a host without a map" "$want_round
$want_round" "$(cat out.txt)"
