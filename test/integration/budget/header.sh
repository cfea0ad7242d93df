# The public header <xray/xray_budget.h>: strict C11 and C++11, 14, 17, 20
# (warnings as errors); a C program and a C++ one using it link and run.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
"$XRAY_CLANG" -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only -I"$XRAY_INCLUDE" \
  "$TEST_SRC_DIR/header.c" || fail "C11"
xr_cc header_c "$TEST_SRC_DIR/header.c" -std=c11
./header_c || fail "the C program exited $?"
[ -n "${XRAY_CLANGXX:-}" ] || skip "clang++ not found"
for std in c++11 c++14 c++17 c++20; do
  "$XRAY_CLANGXX" -std=$std -Wall -Wextra -Werror -pedantic -fsyntax-only \
    -I"$XRAY_INCLUDE" "$TEST_SRC_DIR/header_cxx.cc" || fail "$std"
done
xr_cxx header_cxx "$TEST_SRC_DIR/header_cxx.cc" -std=c++11
./header_cxx || fail "the C++ program exited $?"
