# Tail calls: the tail-called function is a sibling of its caller (the
# caller's frame ends at the tail exit). Recursion: one node per depth, or
# one node in all when folded (the default). Arg-logging entries count as
# entries.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cc tail_recursion "$TEST_SRC_DIR/tail_recursion.c" -O2
"${XRAY_OBJDUMP:-llvm-objdump}" -d --no-show-raw-insn tail_recursion > dis.txt 2>/dev/null || true
awk '/<caller>:/{f=1} f&&/^$/{exit} f' dis.txt | grep -q 'jmp.*<callee>' ||
  skip "clang did not emit a tail call in caller()"
./tail_recursion "profiling_output=folded folded_value=calls fold_recursion=false" || fail "exited $?"
f=$(only_file "xray-log.tail_recursion.*.folded")
cat > want.folded <<'END'
caller 5
callee 5
rec 2
rec;rec 2
rec;rec;rec 1
rec;rec;rec;rec 1
rec;rec;rec;rec;rec 1
rec;rec;rec;rec;rec;leaf 1
rec;rec;leaf 1
logged 3
leaf 3
END
expect_file_eq "folded lines" want.folded "$f"
rm -f xray-log.tail_recursion.*
note "recursion folded: rec's 7 calls on one line, leaf under it"
./tail_recursion "profiling_output=folded folded_value=calls" || fail "exited $?"
f=$(only_file "xray-log.tail_recursion.*.folded")
cat > want.folded <<'END'
caller 5
callee 5
rec 7
rec;leaf 2
logged 3
leaf 3
END
expect_file_eq "folded lines (folded recursion)" want.folded "$f"
echo "tail_recursion: ok"
