# docs/examples/function_coverage.c: a custom mode registered from a
# constructor, initialised with __xray_log_init_mode, patched, reporting at
# flush. Its output is pinned exactly.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"

xr_cc coverage "$XRAY_SRC/docs/examples/function_coverage.c"
./coverage >out.txt 2>err.txt || fail "exit status $?"
cat >want.txt <<'WANT'
init: 2, mode: function-coverage
patch: 1
finalize: 4
coverage: 2 of 3 functions called
  alpha: called
  beta: called
  gamma_never_called: not called
flush: 2
WANT
expect_file_eq "coverage output" want.txt out.txt
expect_file_eq "coverage stderr" /dev/null err.txt

# Function ids in the report are the ids llvm-xray assigns.
if [ -n "${LLVM_XRAY:-}" ]; then
  "$LLVM_XRAY" extract coverage >map.yaml
  expect_eq "functions in the map" 3 "$(grep -c 'kind: function-enter' map.yaml)"
fi
echo PASS
