# Sleds out of address order, a sled across a page boundary, a page without
# sleds between sled pages: whole-map patch and unpatch (see sled_order.c).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
"$XRAY_CLANG" -O1 -I"$XRAY_INCLUDE" "$TEST_SRC_DIR/sled_order.c" "$TEST_SRC_DIR/sled_order.S" \
  -o sled_order "${XRAY_LDFLAGS[@]}"
./sled_order >out.txt 2>err.txt
status=$?
[ $status = 77 ] && skip "$(cat out.txt)"
[ $status = 0 ] || { cat out.txt err.txt >&2; fail "exited $status"; }
expect_file_eq "sled order" "$TEST_SRC_DIR/sled_order.expected" out.txt
