# 10 000-deep recursion: no crash, a valid file, the first max_depth frames
# recorded, the others counted and reported; folded by default in the
# readable outputs.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cc deep "$TEST_SRC_DIR/deep.c"
./deep "profiling_output='xray,folded' folded_value=calls fold_recursion=false" 2> err.txt || { exit_status=$?; cat err.txt >&2; fail "exited $exit_status"; }
f=$(only_file "xray-log.deep.??????")
# 1024 levels of down (default max_depth); 10 000 - 1024 too deep (main was
# entered before patching)
expect_eq "folded lines" 1024 "$(wc -l < "$f.folded")"
expect_eq "deepest line's depth" 1024 "$(tail -1 "$f.folded" | awk '{print split($1, a, ";")}')"
awk '$2 != 1 { exit 1 }' "$f.folded" || fail "every level is called once"
grep -q "8976 call(s) deeper than max_depth" err.txt || { cat err.txt >&2; fail "loss not reported"; }
if command -v python3 >/dev/null && [ -n "${LLVM_XRAY:-}" ]; then
  python3 "$TEST_SRC_DIR/profile_reader.py" --ids --check-times "$f" > recs.txt || fail "block file rejected"
  expect_eq "records" 1024 "$(grep -vc '^block' recs.txt)"
fi
rm -f xray-log.deep.*
note "max_depth=2000 records 2000 frames"
./deep "profiling_output=folded folded_value=calls max_depth=2000 fold_recursion=false" 2> err.txt || fail "exited $?"
f=$(only_file "xray-log.deep.*.folded")
expect_eq "folded lines" 2000 "$(wc -l < "$f")"
grep -q "8000 call(s) deeper than max_depth" err.txt || { cat err.txt >&2; fail "loss not reported"; }
rm -f xray-log.deep.*
note "folded recursion (the default): all 10 000 levels in one line, no xray file built"
./deep "profiling_output=folded+pprof folded_value=calls max_depth=20000" 2> err.txt || fail "exited $?"
f=$(only_file "xray-log.deep.*.folded")
expect_eq "folded file" "down 10000" "$(cat "$f")"
grep -q "deeper than max_depth" err.txt && { cat err.txt >&2; fail "unexpected loss"; }
pb=$(only_file "xray-log.deep.*.pb")
[ "$(wc -c < "$pb")" -lt 4096 ] || fail "pprof file of one folded path is $(wc -c < "$pb") bytes"
if command -v go >/dev/null && command -v python3 >/dev/null; then
  expect_eq "pprof paths" "down 10000" \
    "$(python3 "$TEST_SRC_DIR/pprof_read.py" traces "$pb" calls)"
fi
echo "deep: ok"
