# A hot tiny function and, in a second phase, another: with a budget, the
# budget culls both (each listed by name in <log>.culled), never the cold
# slow one nor the one chosen by exact name; the logs read with no error
# (llvm-xray account and stack), the cold one's calls all there; profiling
# counts every call of the functions never culled. In basic, FDR and
# profiling mode.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/budget_lib.sh"
budget_build
for mode in basic fdr profiling; do
  mkdir "$mode"
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-$mode xray_logfile_base=$mode/log. xray_budget=2 xray_patch='exact_fn;*' verbosity=1" \
    XRAY_PROFILING_OPTIONS="profiling_output=xray+report" \
    ./budget_prog phases >"$mode/out.txt" 2>"$mode/err.txt" ||
    { status=$?; cat "$mode/err.txt" >&2; fail "$mode: the program exited $status"; }
  log=$(log_of "$mode")
  [ -f "$log.culled" ] || fail "$mode: no $log.culled"
  expect_eq "$mode: the header" "$CULLED_HEADER" "$(head -1 "$log.culled")"
  expect_eq "$mode: culled" "hot_tiny phase2_hot" "$(culled_names "$log.culled")"
  check_culled_lines "$log.culled"
  expect_eq "$mode: summary lines" 1 "$(summary_lines "$mode/err.txt" 2 2)"
  cold=$(out_value "$mode/out.txt" cold_slow)
  exact=$(out_value "$mode/out.txt" exact_fn)
  if [ "$cold" -eq 0 ] || [ "$exact" -eq 0 ]; then
    fail "$mode: no cold or exact calls"
  fi
  case $mode in
    basic | fdr)
      expect_eq "$mode: cold_slow's calls in the log" "$cold" "$(account_count "$log" cold_slow)"
      stack_reads "$log"
      ;;
    profiling)
      expect_eq "profiling: cold_slow's calls" "$cold" "$(report_calls "$log.txt" cold_slow)"
      expect_eq "profiling: exact_fn's calls" "$exact" "$(report_calls "$log.txt" exact_fn)"
      ;;
  esac
done
