# Culling while 4 threads run the culled function at full speed, an FDR
# snapshot taken at each evaluation meanwhile (before, during and after
# the cull): no half call in any file. In each snapshot and in the log at
# exit, every entry of spin_tiny is followed by its exit in its thread
# (llvm-xray's reading: an exit the mode wrote as unwound, for a thread
# preempted in the call while its exits were culled, counts), and
# llvm-xray account and stack read them with no error.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/budget_lib.sh"
budget_build
XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr xray_logfile_base=log. xray_budget=2 verbosity=1" \
  XRAY_FDR_OPTIONS="func_duration_threshold_us=0" \
  ./budget_prog threads >out.txt 2>err.txt || { status=$?; cat err.txt >&2; fail "exited $status"; }
expect_eq "snapshots taken" "some" "$(out_value out.txt snapshots)"
log=$(log_of .)
names=" $(culled_names "$log.culled") "
[[ $names == *" spin_tiny "* ]] || fail "spin_tiny not culled: [$names]"
files=()
for f in "$log".snap[0-9]*; do
  [[ $f == *.map ]] || files+=("$f")
done
[ ${#files[@]} -gt 0 ] || fail "no snapshot file"
files+=("$log") # last: its reading is checked once more below
for f in "${files[@]}"; do
  "$LLVM_XRAY" convert -f yaml -m ./budget_prog --symbolize "$f" >trace.yaml 2>convert.err ||
    { cat convert.err >&2; fail "llvm-xray convert failed on $f"; }
  python3 "$TEST_SRC_DIR/half_calls.py" spin_tiny <trace.yaml >half.txt ||
    { cat half.txt >&2; fail "$f: a half call of spin_tiny"; }
  account_count "$f" spin_tiny >/dev/null
  stack_reads "$f"
done
[[ $(python3 "$TEST_SRC_DIR/half_calls.py" spin_tiny <trace.yaml) == "some calls, "* ]] ||
  fail "the log at exit holds no call of spin_tiny"
