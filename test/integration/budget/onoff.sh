# A culled function's exits go 200 us after its entries: then its
# calls leave no exit in the profile (fewer unmatched exits than the calls
# made since). A budget turned off (__xray_budget_set(0)): when the call
# returns, everything it culled is patched again (the profile counts more
# calls of hot_tiny than the program made before), its thread is gone and
# the status says off; <log>.culled lists nothing.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/budget_lib.sh"
budget_build
XRAY_OPTIONS="patch_premain=true xray_mode=xray-profiling xray_logfile_base=log. xray_budget=2 verbosity=1" \
  XRAY_PROFILING_OPTIONS="profiling_output=xray+report" \
  ./budget_prog onoff >out.txt 2>err.txt || { status=$?; cat err.txt >&2; fail "exited $status"; }
expect_eq "on" "percent 2 running 1 threads 1 culled 1 evaluations some" "$(out_value out.txt on:)"
expect_eq "off" "percent 0 running 0 threads 0 culled 0 evaluations some" "$(out_value out.txt off:)"
log=$(log_of .)
expect_eq "culled file" "$CULLED_HEADER" "$(cat "$log.culled")"
quiet=$(out_value out.txt quiet)
unmatched=$(sed -n 's/^# not recorded: .* \([0-9]*\) unmatched exit(s),.*/\1/p' "$log.txt")
if [ -z "$unmatched" ] || [ "$unmatched" -ge "$quiet" ]; then
  fail "hot_tiny's exits stayed patched: $unmatched unmatched exits, $quiet calls after its exits' cull"
fi
after=$(out_value out.txt after)
calls=$(report_calls "$log.txt" hot_tiny)
[ "$calls" -ge "$after" ] || fail "hot_tiny: $calls calls in the profile, fewer than the $after made after the budget was turned off"
expect_eq "summary" 1 "$(grep -cE '^==[0-9]+==XRay: budget off: [0-9,]+ of [0-9,]+ functions traced, 0 culled, est\. cost 0\.0 %$' err.txt || true)"
