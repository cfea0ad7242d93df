# No instrumentation map (plain build, and -fxray-instrument with nothing
# above the threshold) and no instrumented shared object: links, runs,
# NOT_INITIALIZED from patching, no mode started and no file, silent at
# verbosity 0, explains itself at verbosity 1 with compiler-rt's exact line
# (its own line, at start, before the program's output: scripts and
# compiler-rt's quiet-start test expect it there, docs/usage.md).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
"$XRAY_CLANG" -O1 -I"$XRAY_INCLUDE" "$TEST_SRC_DIR/no_map.c" -o plain "${XRAY_LDFLAGS[@]}"
"$XRAY_CLANG" -O1 -fxray-instrument "$(xr_no_link_deps_flag "$XRAY_CLANG")" \
  -I"$XRAY_INCLUDE" "$TEST_SRC_DIR/no_map.c" -o below_threshold "${XRAY_LDFLAGS[@]}"
if "${XRAY_READELF:-readelf}" -S below_threshold | grep -q xray_instr_map; then
  fail "below_threshold unexpectedly has an instrumentation map"
fi
for p in plain below_threshold; do
  for opts in "" "verbosity=0" "patch_premain=true" "xray_mode=xray-basic:patch_premain=true"; do
    XRAY_OPTIONS="$opts" ./$p >out.txt 2>err.txt || fail "$p ($opts) exited $?"
    expect_eq "$p ($opts) stdout" ok "$(cat out.txt)"
    [ ! -s err.txt ] || fail "$p ($opts) wrote to stderr: $(cat err.txt)"
  done
  ls xray-log.* >/dev/null 2>&1 && fail "$p created a log file"
  XRAY_OPTIONS=verbosity=1 ./$p >out.txt 2>err.txt || fail "$p (verbosity=1) exited $?"
  grep -q "no instrumentation map" err.txt || fail "$p at verbosity=1 did not say why: $(cat err.txt)"
  grep -qE '^==[0-9]+==XRay instrumentation map missing\. Not initializing XRay\.$' err.txt ||
    fail "$p at verbosity=1: no compiler-rt line: $(cat err.txt)"
  XRAY_OPTIONS="patch_premain=true verbosity=1" ./$p >both.txt 2>&1 || fail "$p (both) exited $?"
  expect_eq "$p at verbosity=1: first line" 1 \
    "$(head -n1 both.txt | grep -cE '^==[0-9]+==XRay instrumentation map missing\. Not initializing XRay\.$')"
  expect_eq "$p at verbosity=1: program output after XRay's start lines" ok "$(sed -n 3p both.txt)"
  grep -q "asks for a trace (patch_premain=true)" both.txt ||
    fail "$p: no hint at exit for patch_premain=true: $(cat both.txt)"
done
exit 0
