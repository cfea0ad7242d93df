# Frames of a shared object (built with libxray-dso.a) left by an
# exception: the program's untraced catcher calls so_mid(), whose
# so_thrower() throws, 100 times (progs/object_main.cc,
# progs/object_thrower.cc), then the program's later() runs 10 times.
# Both calls of each throw are closed as unwound by the next entry of
# so_mid (chosen by name, so_thrower's alone by the next so_thrower); the
# log's .map names the object's ids.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$XRAY_SRC/test/integration/dso/dso_lib.sh"
source "$TEST_SRC_DIR/exc_lib.sh"
[ -n "${XRAY_CLANGXX:-}" ] || skip "clang++ not found"
xr_so "$XRAY_CLANGXX" libobject_thrower.so "$TEST_SRC_DIR/progs/object_thrower.cc"
xr_exe "$XRAY_CLANGXX" object "$TEST_SRC_DIR/progs/object_main.cc" -L. -lobject_thrower -Wl,-rpath,\$ORIGIN
exc_check_all object map 2 "" "caught 100" \
"later calls=10 exit=10 tail=0 unwound=0 open=0
so_mid calls=100 exit=0 tail=0 unwound=100 open=0
so_thrower calls=100 exit=0 tail=0 unwound=100 open=0" \
"so_mid 100
so_mid;so_thrower 100
later 10" ./object
exc_check_all object map 1 "so_thrower;later" "caught 100" \
"later calls=10 exit=10 tail=0 unwound=0 open=0
so_thrower calls=100 exit=0 tail=0 unwound=100 open=0" \
"so_thrower 100
later 10" ./object
