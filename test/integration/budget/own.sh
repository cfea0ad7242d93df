# A handler of the program's own (__xray_set_handler) instead of a built-in
# mode: the budget's windows measure only the built-in modes, so it culls
# nothing (every call reaches the handler) and says so once at verbosity 1.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/budget_lib.sh"
budget_build
XRAY_OPTIONS="verbosity=1" ./budget_prog own >out.txt 2>err.txt ||
  { status=$?; cat err.txt >&2; fail "exited $status"; }
expect_eq "status" "percent 2 running 1 threads 1 culled 0 evaluations some" "$(out_value out.txt own:)"
expect_eq "calls" "yes" "$(out_value out.txt "every call seen:")"
expect_eq "said once" 1 "$(grep -c "XRay: budget: the program's own handler is installed; the budget measures only the built-in modes (basic, FDR, profiling) and culls nothing meanwhile$" err.txt || true)"
expect_eq "the summary" 1 "$(grep -cE '^==[0-9]+==XRay: budget 2 %: nothing measured \(no built-in mode recorded while it ran\)$' err.txt || true)"
