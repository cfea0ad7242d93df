# dlopen/dlclose of plugin.so in a loop while two threads call into linked
# objects and a third patches (stress.c): exact counts while it only
# patches, no invalid id and no failed patching call while it toggles.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/dso_lib.sh"
xr_so "$XRAY_CLANG" libsecond.so "$TEST_SRC_DIR/second.c"
xr_so "$XRAY_CLANG" libfirst.so "$TEST_SRC_DIR/first.c" -L. -lsecond -Wl,-rpath,\$ORIGIN
xr_so "$XRAY_CLANG" plugin.so "$TEST_SRC_DIR/plugin.c"
xr_exe "$XRAY_CLANG" stress "$TEST_SRC_DIR/stress.c" -L. -lfirst -Wl,-rpath,\$ORIGIN -pthread

XRAY_OPTIONS=patch_premain=true ./stress "$PWD/plugin.so" >out.txt 2>err.txt ||
  { exit_status=$?; cat err.txt >&2; fail "stress exited $exit_status"; }
# 2 threads x 20000 calls x (entry + exit); 150 loads x 10 calls x 2 functions x 2
cat >expected.txt <<'END'
exact: exe 80000, libsecond 80000, libfirst 80000, plugin 6000, bad 0, failed 0, objects 4
toggling: bad 0, failed 0, objects 4
after: libsecond 2, libfirst 2, plugin 4
END
expect_file_eq "stress counts" expected.txt out.txt
[ ! -s err.txt ] || fail "unexpected stderr: $(cat err.txt)"
