# A fork child of a program with a budget: the culled set carries over
# (hot_tiny stays culled), the child's own budget thread runs and culls
# what is hot there (phase2_hot); each process writes its own
# <log>.culled: the parent's lists hot_tiny, the child's both.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/budget_lib.sh"
budget_build
XRAY_OPTIONS="patch_premain=true xray_mode=xray-profiling xray_logfile_base=log. xray_budget=2" \
  ./budget_prog fork >out.txt 2>err.txt || { status=$?; cat err.txt >&2; fail "exited $status"; }
expect_eq "the child at its start" "percent 2 running 1 threads 1 culled 1 evaluations some" \
  "$(out_value out.txt child:)"
expect_eq "the child after its culls" "percent 2 running 1 threads 1 culled 2 evaluations some" \
  "$(out_value out.txt "child culled:")"
expect_eq "the parent after" "percent 2 running 1 threads 1 culled 1 evaluations some" \
  "$(out_value out.txt parent:)"
# two logs, one per process; the child's is the one whose .culled holds two
logs=$(for f in log.budget_prog.??????; do culled_names "$f.culled"; done | sort | paste -sd'|' -)
expect_eq "the two .culled files" "hot_tiny|hot_tiny phase2_hot" "$logs"
