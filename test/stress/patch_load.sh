# Live patching under load, with a user handler and in each mode
# (patch_load.c says what is checked).
# shellcheck source=../integration/lib.sh
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
    [ "$n" -gt 0 ] || fail "$mode: no function record in $f"
    note "$mode: $n function records"
  fi
  # Exact phase in its own process: exact per-function counts in the file.
  XRAY_OPTIONS="xray_logfile_base=ex-$mode-" STRESS_PROFILE_PREFIX="ex-$mode-" \
    run "$mode.exact.log" ./patch_load "$mode" 0 exact
  read -r leaf middle tail_caller logged per_worker < <(sed -n 's/^exact ids: \([0-9]*\) \([0-9]*\) \([0-9]*\) \([0-9]*\) calls per worker: \([0-9]*\)$/\1 \2 \3 \4 \5/p' "$mode.exact.log")
  [ -n "${per_worker:-}" ] || fail "$mode: no ids line"
  f=$(mode_file "$mode" "ex-$mode-")
  if [ "$mode" = xray-profiling ]; then
    check_profile "$f"
    grep -q '^exact: ok' "$mode.exact.log" || fail "$mode: no exact check"
    continue
  fi
  exact_counts "$f" ./patch_load
  c=$f.counts
  [ -z "$(unbalanced "$c")" ] || fail "$mode: unbalanced calls: $(unbalanced "$c" | head -3)"
  calls=$((2 * per_worker))
  expect_eq "$mode leaf calls" "$((2 * calls))" "$(enters_of "$c" "$leaf")"
  expect_eq "$mode middle calls" "$calls" "$(enters_of "$c" "$middle")"
  expect_eq "$mode tail_caller calls (tail exits)" "$calls" "$(exits_of "$c" "$tail_caller")"
  expect_eq "$mode logged calls (with argument)" "$calls" "$(enters_of "$c" "$logged")"
done
echo "patch_load: ok"
