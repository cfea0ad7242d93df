# Register preservation at every AArch64 trampoline (regs.c): no handler,
# a full (user) handler, a lean-style handler. AArch64 builds only.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
[ "$XRAY_TEST_ARCH" = aarch64 ] || skip "AArch64 only (this build is for $XRAY_TEST_ARCH)"
"$XRAY_CLANG" -O1 -I"$XRAY_INCLUDE" -I"$XRAY_SRC/lib" "$TEST_SRC_DIR/regs.c" "$TEST_SRC_DIR/regs_probe.S" \
  -o regs "${XRAY_LDFLAGS[@]}"
rc=0; ./regs >out.txt 2>err.txt || rc=$?
[ $rc -eq 0 ] || { cat out.txt err.txt >&2; fail "regs exited $rc"; }
expect_file_eq "register preservation" "$TEST_SRC_DIR/regs.expected" out.txt
