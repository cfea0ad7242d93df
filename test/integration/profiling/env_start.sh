# XRAY_OPTIONS="patch_premain=true xray_mode=xray-profiling" profiles the
# whole run and writes the files at exit (compiler-rt 14 only selects).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cc env_start "$TEST_SRC_DIR/env_start.c"
XRAY_OPTIONS="patch_premain=true xray_mode=xray-profiling" \
XRAY_PROFILING_OPTIONS="profiling_output=xray+folded folded_value=calls" \
  ./env_start > out.txt 2> err.txt || fail "exited $?"
[ ! -s err.txt ] || { cat err.txt >&2; fail "quiet at verbosity 0"; }
f=$(only_file "xray-log.env_start.??????")
cat > want.folded <<'END'
main 1
main;a 3
main;a;b 12
main;b 1
END
expect_file_eq "folded lines" want.folded "$f.folded"
if command -v python3 >/dev/null && [ -n "${LLVM_XRAY:-}" ]; then
  python3 "$TEST_SRC_DIR/profile_reader.py" --llvm-xray "$LLVM_XRAY" -m env_start \
    --check-times "$f" > got.txt || fail "block file rejected"
  printf 'block 0\nmain 1\nmain;a 3\nmain;a;b 12\nmain;b 1\n' > want.txt
  expect_file_eq "block file" want.txt got.txt
fi
rm -f xray-log.env_start.*
note "selected only (no patch_premain): nothing recorded, nothing written"
XRAY_OPTIONS="xray_mode=xray-profiling" ./env_start || fail "exited $?"
shopt -s nullglob
files=(xray-log.env_start.*)
expect_eq "files" 0 "${#files[@]}"
echo "env_start: ok"
