# Register preservation by the argument trampolines, every copy, entered
# from hand-made sleds with a hook that clobbers all a C function may, and
# the registers the hook is given (regs_x86_64.c with core_patch's
# probes; regs_aarch64.c with aarch64's and args_probe_aarch64.S).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
if [ "$XRAY_TEST_ARCH" = aarch64 ]; then
  sources=("$TEST_SRC_DIR/regs_aarch64.c" "$TEST_SRC_DIR/../aarch64/regs_probe.S"
           "$TEST_SRC_DIR/args_probe_aarch64.S")
else
  sources=("$TEST_SRC_DIR/regs_x86_64.c" "$TEST_SRC_DIR/../core_patch/regs_probe.S")
fi
"$XRAY_CLANG" -O1 -I"$XRAY_INCLUDE" -I"$XRAY_SRC/lib" "${sources[@]}" -o regs "${XRAY_LDFLAGS[@]}"
./regs >out.txt 2>err.txt || { exit_status=$?; cat out.txt err.txt >&2; fail "exited $exit_status"; }
grep -v '^avx \|^sve \|, sve: ok$' out.txt >cases.txt
expect_file_eq "register preservation" "$(xr_expected regs)" cases.txt
note "$(grep '^avx \|^sve \|, sve: ' out.txt | tr '\n' ' ')"
