# One version everywhere an installed runtime shows it: project(VERSION) of
# the top-level CMakeLists.txt, pkg-config --modversion xray and xray-dso,
# the CMake package's XRay_VERSION, the installed <xray/xray_version.h>,
# __xray_runtime_version() of the installed archive (a program built with
# pkg-config's flags), and the installed xrayctl --version.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/package_lib.sh"

want=$(sed -n 's/^project(xray_runtime VERSION \([0-9][0-9.]*\) .*/\1/p' "$XRAY_SRC/CMakeLists.txt")
[ -n "$want" ] || fail "no project(xray_runtime VERSION ...) in $XRAY_SRC/CMakeLists.txt"
expect_eq "the build's generated header" "$want" "$(xr_version)"
install_runtime "$PWD/prefix"

expect_eq "installed header" "$want" \
  "$(sed -n 's/^#define XRAY_RUNTIME_VERSION "\(.*\)"$/\1/p' prefix/include/xray/xray_version.h)"
expect_eq "installed xrayctl --version" "xrayctl $want" "$(prefix/bin/xrayctl --version)"

# The CMake package: XRay_VERSION, and SameMinorVersion (MAJOR.MINOR found,
# the minor before not).
mkdir -p cmake-project
cat >cmake-project/CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(version_probe LANGUAGES C)
find_package(XRay ${ASK} REQUIRED)
message(STATUS "XRay_VERSION=${XRay_VERSION}")
CMAKE
major=${want%%.*} minor=${want#*.}; minor=${minor%%.*}
cmake -S cmake-project -B cmake-build -DCMAKE_C_COMPILER="$XRAY_CLANG" \
  -DCMAKE_PREFIX_PATH="$PWD/prefix" -DASK="$major.$minor" >cmake.log 2>&1 ||
  { cat cmake.log >&2; fail "find_package(XRay $major.$minor)"; }
expect_eq "CMake package" "$want" "$(sed -n 's/^-- XRay_VERSION=//p' cmake.log)"
if [ "$minor" -gt 0 ]; then
  if cmake -S cmake-project -B cmake-old -DCMAKE_C_COMPILER="$XRAY_CLANG" \
       -DCMAKE_PREFIX_PATH="$PWD/prefix" -DASK="$major.$((minor - 1))" >cmake-old.log 2>&1; then
    fail "find_package(XRay $major.$((minor - 1))) accepted $want (the package is SameMinorVersion)"
  fi
fi

# pkg-config, and a program built with its flags against the install.
if command -v pkg-config >/dev/null; then
  export PKG_CONFIG_PATH="$PWD/prefix/lib/pkgconfig"
  expect_eq "pkg-config --modversion xray" "$want" "$(pkg-config --modversion xray)"
  expect_eq "pkg-config --modversion xray-dso" "$want" "$(pkg-config --modversion xray-dso)"
  # shellcheck disable=SC2046  # pkg-config's flags, split on purpose
  "$XRAY_CLANG" $(pkg-config --cflags --libs xray) "$CONSUMER_SRC/app.c" -o app \
    ${SAN_FLAGS[@]+"${SAN_FLAGS[@]}"} || fail "clang with pkg-config flags"
else
  note "pkg-config not installed: its version not checked"
  "$XRAY_CLANG" -I"$PWD/prefix/include" -fxray-instrument "$(xr_no_link_deps_flag "$XRAY_CLANG")" \
    "$CONSUMER_SRC/app.c" -o app -Wl,--whole-archive prefix/lib/libxray.a -Wl,--no-whole-archive \
    -lpthread ${SAN_FLAGS[@]+"${SAN_FLAGS[@]}"} || fail "clang against the install"
fi
expect_eq "__xray_runtime_version() and XRAY_RUNTIME_VERSION" "$want $want" "$(./app version)"
echo "PASS: $want everywhere"
