# A culled function of a shared object: the budget culls it, forgets it
# when the object is unloaded (the object's functions leave its counts),
# and weighs it afresh when the object is loaded again (patched again by
# patch_premain, then culled again); <log>.culled names it with its object.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
# shellcheck source=../dso/dso_lib.sh
source "$XRAY_SRC/test/integration/dso/dso_lib.sh"
source "$TEST_SRC_DIR/budget_lib.sh"
xr_so "$XRAY_CLANG" budget_plugin.so "$TEST_SRC_DIR/budget_plugin.c"
xr_exe "$XRAY_CLANG" budget_dso "$TEST_SRC_DIR/budget_dso.c"
XRAY_OPTIONS="patch_premain=true xray_mode=xray-profiling xray_logfile_base=log. xray_budget=2" \
  ./budget_dso "$PWD/budget_plugin.so" >out.txt 2>err.txt ||
  { status=$?; cat err.txt >&2; fail "exited $status"; }
expect_eq "output" "loaded: culled 1
unloaded: culled 0, 2 functions fewer
loaded again: culled 1" "$(cat out.txt)"
log=$(only_file "log.budget_dso.??????")
expect_eq "culled lines" 1 "$(grep -vc '^#' "$log.culled")"
expect_eq "culled: object's id set, function, name" "yes 1 plugin_hot" \
  "$(awk -F'\t' '!/^#/ { print ($1 > 0 ? "yes" : "no"), $2, $NF }' "$log.culled")"
