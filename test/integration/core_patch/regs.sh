# Register preservation at every trampoline, for a full (user) handler that
# clobbers all it may (GPRs, ymm/xmm 0-15, 6 x87 registers, flags), a
# lean-style handler, and no handler; every copy of the full paths (zmm,
# ymm, xmm, each also in its pushfq form for CPUs without LAHF) with the six
# status flags all set and all clear, and a custom event through each.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
"$XRAY_CLANG" -O1 -I"$XRAY_INCLUDE" -I"$XRAY_SRC/lib" "$TEST_SRC_DIR/regs.c" "$TEST_SRC_DIR/regs_probe.S" \
  -o regs "${XRAY_LDFLAGS[@]}"
./regs >out.txt 2>err.txt || { exit_status=$?; cat out.txt err.txt >&2; fail "exited $exit_status"; }
grep -v '^avx \|^avx512 \|^lahf ' out.txt >cases.txt
expect_file_eq "register preservation" "$TEST_SRC_DIR/regs.expected" cases.txt
note "$(grep '^avx \|^avx512 \|^lahf ' out.txt | tr '\n' ' ')"
