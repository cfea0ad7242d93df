# The public headers: strict C11; C++11/14/17/20 with compiler-rt-style code
# (first checked against compiler-rt's own headers), linked and run; the
# generated xray_version.h in each, its function from C++.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
"$XRAY_CLANG" -std=c11 -Wall -Wextra -Werror -pedantic -I"$XRAY_INCLUDE" -I"$XRAY_GEN_INCLUDE" \
  "$TEST_SRC_DIR/headers_c.c" -o headers_c "${XRAY_LDFLAGS[@]}"
./headers_c || fail "C11 program exited $?"
if command -v gcc >/dev/null; then
  gcc -std=c11 -Wall -Wextra -Werror -pedantic -I"$XRAY_INCLUDE" -I"$XRAY_GEN_INCLUDE" \
    -fsyntax-only "$TEST_SRC_DIR/headers_c.c"
fi
[ -n "${XRAY_CLANGXX:-}" ] || skip "clang++ not found"
ref_include="$("$XRAY_CLANG" -print-resource-dir)/include"
for std in c++11 c++14 c++17 c++20; do
  if [ -f "$ref_include/xray/xray_interface.h" ]; then
    "$XRAY_CLANGXX" -std=$std -fsyntax-only -Wall -Wno-unused-parameter -I"$ref_include" \
      "$TEST_SRC_DIR/headers_cxx.cc" || fail "$std: the test is not valid against compiler-rt's headers"
  fi
  "$XRAY_CLANGXX" -std=$std -Wall -Wextra -Werror -Wno-unused-parameter -pedantic -fsyntax-only \
    -I"$XRAY_INCLUDE" "$TEST_SRC_DIR/headers_cxx.cc" || fail "$std: our headers"
  # our own header (compiler-rt has none): C linkage, usable in #if and constexpr
  "$XRAY_CLANGXX" -std=$std -Wall -Wextra -Werror -pedantic -fsyntax-only \
    -I"$XRAY_GEN_INCLUDE" "$TEST_SRC_DIR/headers_version.cc" || fail "$std: xray_version.h"
done
xr_cxx headers_version "$TEST_SRC_DIR/headers_version.cc" -std=c++11
expect_eq "C++ program's version" "$(xr_version)" "$(./headers_version)"
xr_cxx headers_cxx "$TEST_SRC_DIR/headers_cxx.cc" -std=c++17
./headers_cxx >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "C++ program exited $exit_status"; }
expect_eq "C++ program output" "events 2" "$(cat out.txt)"
