# x87 results through the full paths (x87.c): long double and complex long
# double results, and x87 values live across a custom event sled, bit for
# bit against the unpatched run (with the x87 control word and exception
# flags) while the handler does x87, SSE/AVX and libm work, in each form of
# the full path.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cc x87 "$TEST_SRC_DIR/x87.c" -O2 -lm
status=0
./x87 >out.txt 2>err.txt || status=$?
[ $status -eq 0 ] || { cat out.txt err.txt >&2; fail "exited $status"; }
expect_file_eq "x87 results" "$TEST_SRC_DIR/x87.expected" out.txt
[ ! -s err.txt ] || fail "unexpected stderr: $(cat err.txt)"
