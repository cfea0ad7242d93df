# `cmake --install` then a user's project with find_package(XRay) +
# target_link_libraries(app PRIVATE XRay::xray) and nothing else.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/package_lib.sh"

install_runtime "$PWD/prefix"

# The package's own link spelling ($<LINK_LIBRARY:WHOLE_ARCHIVE> on
# CMake >= 3.24) and the -Wl,--whole-archive fallback for older CMake.
for fallback in OFF ON; do
  note "consumer with XRAY_WHOLE_ARCHIVE_BY_FLAGS=$fallback"
  cxx_args=()
  [ $fallback = OFF ] && [ -n "${XRAY_CLANGXX:-}" ] &&
    cxx_args=(-DXRAY_CONSUMER_CXX=ON -DCMAKE_CXX_COMPILER="$XRAY_CLANGXX" ${SAN_CMAKE_ARGS[@]+"-DCMAKE_CXX_FLAGS=$XRAY_TEST_SANITIZE"})
  cmake -S "$CONSUMER_SRC" -B "build-$fallback" -DCMAKE_C_COMPILER="$XRAY_CLANG" \
    ${cxx_args[@]+"${cxx_args[@]}"} \
    -DCMAKE_PREFIX_PATH="$PWD/prefix" -DXRAY_WHOLE_ARCHIVE_BY_FLAGS=$fallback \
    ${SAN_CMAKE_ARGS[@]+"${SAN_CMAKE_ARGS[@]}"} \
    >"configure-$fallback.log" 2>&1 || { cat "configure-$fallback.log" >&2; fail "configure"; }
  cmake --build "build-$fallback" --verbose >"build-$fallback.log" 2>&1 ||
    { cat "build-$fallback.log" >&2; fail "build"; }
  grep -q -- '-fxray-instrument' "build-$fallback.log" || fail "no -fxray-instrument on the compile line"
  grep -Eq -- '-fno-?xray-link-deps' "build-$fallback.log" || fail "no -fno(-)xray-link-deps on the link line"
  grep -q -- '--whole-archive.*libxray\.a' "build-$fallback.log" || fail "libxray.a not linked whole"
  check_app "build-$fallback/app"
  check_plugin "build-$fallback/app_plugin" "$PWD/build-$fallback/plugin.so"
  check_host "build-$fallback/host_plugin" "$PWD/build-$fallback/plugin.so"
  [ ! -e "build-$fallback/app_cxx" ] || check_app "build-$fallback/app_cxx"
done
[ -z "${XRAY_CLANGXX:-}" ] || [ -x build-OFF/app_cxx ] || fail "the C++ consumer was not built"
check_traced build-OFF/app

# A cross build: the consumer cross-built as a user would, with the
# project's toolchain file (XRAY_TEST_TARGET's; cross.sh's compiler wrapper
# as its clang, so that the programs run under the emulator). There
# find_package searches only the target's root: XRay_DIR names the install.
if [ -n "${XRAY_TEST_EMULATOR:-}" ]; then
  note "consumer cross-built with cmake/$XRAY_TEST_TARGET.cmake"
  cmake -S "$CONSUMER_SRC" -B build-toolchain \
    -DCMAKE_TOOLCHAIN_FILE="$XRAY_SRC/cmake/$XRAY_TEST_TARGET.cmake" \
    -DXRAY_AARCH64_CLANG="$XRAY_CLANG" -DXRay_DIR="$PWD/prefix/lib/cmake/XRay" \
    >configure-toolchain.log 2>&1 || { cat configure-toolchain.log >&2; fail "configure with the toolchain file"; }
  grep -q "^set(CMAKE_SYSTEM_PROCESSOR \"$XRAY_TEST_ARCH\")" build-toolchain/CMakeFiles/*/CMakeSystem.cmake ||
    fail "the consumer's build is not for $XRAY_TEST_ARCH"
  cmake --build build-toolchain >build-toolchain.log 2>&1 || { cat build-toolchain.log >&2; fail "build with the toolchain file"; }
  check_app build-toolchain/app
  check_plugin build-toolchain/app_plugin "$PWD/build-toolchain/plugin.so"
  check_host build-toolchain/host_plugin "$PWD/build-toolchain/plugin.so"
fi

# clang 13-16 and clang 19 spell "no link deps" differently; the package
# asks the compiler. Try the other installed clangs.
for cc in $(other_clangs clang-13 clang-16 clang-19); do
  note "consumer built with $cc"
  cmake -S "$CONSUMER_SRC" -B "build-$cc" -DCMAKE_C_COMPILER="$(command -v "$cc")" \
    -DCMAKE_PREFIX_PATH="$PWD/prefix" >"configure-$cc.log" 2>&1 ||
    { cat "configure-$cc.log" >&2; fail "configure with $cc"; }
  cmake --build "build-$cc" >"build-$cc.log" 2>&1 || { cat "build-$cc.log" >&2; fail "build with $cc"; }
  check_app "build-$cc/app"
done

# With gcc: the runtime itself still configures (and builds), saying what
# instrumented code needs; a gcc project is told why it cannot use XRay::xray.
if command -v gcc >/dev/null; then
  cmake -S "$XRAY_SRC" -B runtime-gcc -DCMAKE_C_COMPILER=gcc -DXRAY_BUILD_TESTS=OFF \
    >runtime-gcc.log 2>&1 || { cat runtime-gcc.log >&2; fail "configure the runtime with gcc"; }
  grep -q 'XRay: C compiler is GNU, which has no -fxray-instrument' runtime-gcc.log ||
    { cat runtime-gcc.log >&2; fail "no clear message when the runtime is configured with gcc"; }
  cmake -S "$CONSUMER_SRC" -B build-gcc -DCMAKE_C_COMPILER=gcc \
    -DCMAKE_PREFIX_PATH="$PWD/prefix" >configure-gcc.log 2>&1 || true
  grep -q 'XRay: the C compiler is GNU' configure-gcc.log ||
    { cat configure-gcc.log >&2; fail "no clear message for a gcc consumer"; }
fi
echo "PASS"
