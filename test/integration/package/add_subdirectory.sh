# A user's project that vendors the sources: add_subdirectory(xray) +
# target_link_libraries(app PRIVATE XRay::xray).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/package_lib.sh"

cmake -S "$CONSUMER_SRC" -B build -DCMAKE_C_COMPILER="$XRAY_CLANG" \
  -DXRAY_CONSUMER_MODE=add_subdirectory -DXRAY_SOURCE_DIR="$XRAY_SRC" \
  -DCMAKE_BUILD_TYPE=Release ${SAN_CMAKE_ARGS[@]+"${SAN_CMAKE_ARGS[@]}"} >configure.log 2>&1 || { cat configure.log >&2; fail "configure"; }
cmake --build build -j2 >build.log 2>&1 || { cat build.log >&2; fail "build"; }
# The parent project did not ask for our tests or install rules.
[ ! -e build/xray-runtime/test ] || fail "the runtime's tests were configured in a parent project"
check_app build/app
check_plugin build/app_plugin "$PWD/build/plugin.so"
check_host build/host_plugin "$PWD/build/plugin.so"
check_traced build/app
echo "PASS"
