# A budget that cannot be met: the functions chosen by exact name
# (xray_patch), by id (__xray_patch_function) and by xray_budget_keep are
# all hot, and cost more than the budget on their own. The budget says so
# once, culls the others (hot_tiny), and never those three: the profile
# holds every one of their calls.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/budget_lib.sh"
budget_build
XRAY_OPTIONS="patch_premain=true xray_mode=xray-profiling xray_logfile_base=log. xray_budget=0.5 xray_patch='exact_fn;*' xray_budget_keep='kept_*'" \
  XRAY_PROFILING_OPTIONS="profiling_output=xray+report" \
  ./budget_prog unmet >out.txt 2>err.txt || { status=$?; cat err.txt >&2; fail "exited $status"; }
expect_eq "status says unmet" seen "$(out_value out.txt unmet)"
expect_eq "said once" 1 "$(grep -cE '^==[0-9]+==XRay: budget 0\.5 %: cannot be met: the functions it may not cull \(chosen by exact name or id, or xray_budget_keep\) cost about ([0-9]+\.[0-9] %|more than all) of the program.s CPU time on their own; they stay traced$' err.txt || true)"
expect_eq "nothing else said" 1 "$(wc -l <err.txt)"
log=$(log_of .)
names=" $(culled_names "$log.culled") "
[[ $names == *" hot_tiny "* ]] || fail "hot_tiny not culled: [$names]"
for fn in exact_fn by_id kept_fn; do
  [[ $names != *" $fn "* ]] || fail "$fn culled: [$names]"
  expect_eq "$fn: every call in the profile" "$(out_value out.txt "$fn")" "$(report_calls "$log.txt" "$fn")"
done
