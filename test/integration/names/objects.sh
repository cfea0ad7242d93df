# Names across objects: xray_patch / xray_skip reach shared objects, linked
# and dlopen'd (patch_premain), patterns and names through the API cover
# every object with packed ids, symbolize names the object's file, and a
# dlclose'd then reloaded plugin is named and patched afresh.
source "$XRAY_TEST_LIB_SH"
source "$XRAY_SRC/test/integration/dso/dso_lib.sh"
dso=$XRAY_SRC/test/integration/dso
xr_so "$XRAY_CLANG" libsecond.so "$dso/second.c"
xr_so "$XRAY_CLANG" libfirst.so "$dso/first.c" -L. -lsecond -Wl,-rpath,'$ORIGIN'
xr_so "$XRAY_CLANG" plugin.so "$dso/plugin.c"
xr_exe "$XRAY_CLANG" objects "$TEST_SRC_DIR/objects.c" -L. -lfirst -Wl,-rpath,'$ORIGIN'

run() { # OPTIONS: prints the premain line
  XRAY_OPTIONS="patch_premain=true $1" ./objects run "$PWD/plugin.so" 2>err.txt ||
    fail "[$1] exited $?: $(cat err.txt)"
}
expect_eq "xray_patch across objects" \
  "premain: 0:exe_leaf:E 0:exe_leaf:X 3:plugin_fn:E 3:plugin_leaf:E 3:plugin_leaf:X 3:plugin_fn:X" \
  "$(run "xray_patch='plugin_*;exe_*'")"
expect_eq "xray_skip across objects" \
  "premain: 0:exe_leaf:E 0:exe_leaf:X 2:first_add:E 2:first_add:X 2:first_other:E 2:first_other:X 3:plugin_fn:E 3:plugin_fn:X" \
  "$(run "xray_skip='second_*;plugin_leaf'")"

./objects api "$PWD/plugin.so" >out.txt 2>err.txt || fail "api exited $?: $(cat err.txt)"
cat >want.txt <<'END'
patch 'first_*;plugin_leaf': 3
matching: 2:first_add:E 2:first_add:X 2:first_other:E 2:first_other:X 3:plugin_leaf:E 3:plugin_leaf:X
unpatch '*': 1
unpatched:
exe_leaf -> 0:1 (objects)
first_add -> 2:1 (libfirst.so)
second_mul -> 1:1 (libsecond.so)
plugin_fn -> 3:2 (plugin.so)
for_each: 0, 1 1 1 1
after dlclose: patch 'plugin_*': 0, name kept: plugin_fn -> 3:2 (plugin.so)
reloaded: patch 'plugin_fn': 1
reloaded: 3:plugin_fn:E 3:plugin_fn:X
END
expect_file_eq "names across objects" want.txt out.txt
echo "objects: ok"
