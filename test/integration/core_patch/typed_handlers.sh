# Typed-event handlers written for LLVM 14-19 (uint16_t type) and for LLVM 20+
# (size_t type) compile unchanged against our header, strict C11 and C++11..20
# with -Werror, and receive the same events, the type zero-extended.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cc typed_c "$TEST_SRC_DIR/typed_handlers.c" -std=c11 -Wall -Wextra -Werror -pedantic
./typed_c >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "C program exited $exit_status"; }
{ cat "$TEST_SRC_DIR/typed_handlers.expected"; echo "size_t 0xffff max"; } >expected_c.txt
expect_file_eq "C11 typed events" expected_c.txt out.txt
if command -v gcc >/dev/null; then
  gcc -std=c11 -Wall -Wextra -Werror -pedantic -I"$XRAY_INCLUDE" -fsyntax-only \
    "$TEST_SRC_DIR/typed_handlers.c" || fail "gcc -std=c11 rejects the C program"
fi
[ -n "${XRAY_CLANGXX:-}" ] || skip "clang++ not found"
for std in c++11 c++14 c++17 c++20; do
  "$XRAY_CLANGXX" -std=$std -Wall -Wextra -Werror -pedantic -fsyntax-only \
    -I"$XRAY_INCLUDE" "$TEST_SRC_DIR/typed_handlers.cc" || fail "$std rejects the C++ program"
done
xr_cxx typed_cxx "$TEST_SRC_DIR/typed_handlers.cc" -std=c++17
./typed_cxx >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "C++ program exited $exit_status"; }
{ cat "$TEST_SRC_DIR/typed_handlers.expected"; echo "lambda size_t 0xffff"; echo "lambda u16 65535"; } >expected_cxx.txt
expect_file_eq "C++ typed events" expected_cxx.txt out.txt
exit 0
