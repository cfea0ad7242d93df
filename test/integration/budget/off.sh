# Without xray_budget nothing of the budget runs: no xray-budget thread,
# the status says off, no <log>.culled, no summary line. A value that is
# not a percent is said once and leaves it off.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/budget_lib.sh"
budget_build
for budget in "" "xray_budget=0" "xray_budget=2%"; do
  rm -rf run && mkdir run
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=run/log. verbosity=1 $budget" \
    XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" \
    ./budget_prog off >out.txt 2>err.txt || { status=$?; cat err.txt >&2; fail "[$budget]: exited $status"; }
  expect_eq "[$budget]: status" "off: percent 0 running 0 threads 0 culled 0 evaluations none" "$(cat out.txt)"
  log=$(log_of run)
  [ ! -e "$log.culled" ] || fail "[$budget]: $log.culled written"
  expect_eq "[$budget]: budget lines" "$([ "$budget" = "xray_budget=2%" ] && echo 1 || echo 0)" "$(grep -cE 'XRay: (budget|XRAY_OPTIONS: xray_budget)' err.txt || true)"
done
grep -qxE "==[0-9]+==XRay: XRAY_OPTIONS: xray_budget='2%' is not a percent from 0 to 100 \(e\.g\. 2 or 0\.5\): the budget is off" err.txt ||
  { cat err.txt >&2; fail "the bad value is not said as expected"; }
