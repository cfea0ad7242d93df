# longjmp skips exits: frames left behind are closed at the next entry at
# their stack depth, so the loop keeps one path and exact counts.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cc longjmp "$TEST_SRC_DIR/longjmp.c"
./longjmp "profiling_output='xray,folded' folded_value=calls" || fail "exited $?"
f=$(only_file "xray-log.longjmp.*.folded")
cat > want.folded <<'END'
attempt 100
attempt;fail_deep 100
after 2
END
expect_file_eq "folded lines" want.folded "$f"
if command -v python3 >/dev/null && [ -n "${LLVM_XRAY:-}" ]; then
  python3 "$TEST_SRC_DIR/profile_reader.py" --llvm-xray "$LLVM_XRAY" -m longjmp \
    --check-times "${f%.folded}" > /dev/null || fail "block file rejected"
fi
echo "longjmp: ok"
