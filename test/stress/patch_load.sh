# Live patching under load, with a user handler and in each mode
# (patch_load.c says what is checked).
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/stress_lib.sh"
build patch_load
MS=${XRAY_STRESS_MS:-$((1600 / TSAN_SLOWDOWN))}

note "user handler"
run handler.log ./patch_load handler "$MS"
grep -q '^exact: ok' handler.log || fail "no exact phase"

for mode in "${MODES[@]}"; do
  have_mode "$mode" || continue
  note "$mode"
  XRAY_OPTIONS="xray_logfile_base=pl-$mode-" run "$mode.log" ./patch_load "$mode" "$MS"
  f=$(mode_file "$mode" "pl-$mode-")
  if [ "$mode" = xray-profiling ]; then
    check_profile "$f"
  else
    n=$(check_trace "$f" ./patch_load)
    [ "$n" -gt 0 ] || fail "$mode: no complete call in $f"
    note "$mode: $n complete calls"
  fi
done
echo "patch_load: ok"
