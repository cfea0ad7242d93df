# High-rate timer signal running instrumented code (signals.c) with a user
# handler and in basic, FDR and profiling modes; files readable by llvm-xray
# with every call balanced, exact workload counts, nested events dropped in
# pairs and counted exactly.
# shellcheck source=../integration/lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/stress_lib.sh"
build signals
run handler.log ./signals handler
cat handler.log
for mode in "${MODES[@]}"; do
  have_mode "$mode" || continue
  note "$mode"
  case $mode in
    xray-fdr) cfg="func_duration_threshold_us=0 grace_period_ms=0 buffer_size=65536 buffer_max=256" ;;
    xray-basic) cfg="func_duration_threshold_us=0" ;;
    *) cfg="grace_period_ms=0" ;;
  esac
  XRAY_OPTIONS="xray_logfile_base=sig-$mode- verbosity=1" XRAY_STRESS_CONFIG="$cfg" \
    run "$mode.log" ./signals "$mode"
  read -r signals calls work_id signal_id light_id < <(sed -n 's/^signals=\([0-9]*\) calls=\([0-9]*\) work_id=\([0-9]*\) signal_id=\([0-9]*\) light_id=\([0-9]*\)$/\1 \2 \3 \4 \5/p' "$mode.log")
  [ -n "${signal_id:-}" ] || { cat "$mode.log" >&2; fail "$mode: no summary line"; }
  f=$(only_file "sig-$mode-*")
  if [ "$mode" = xray-profiling ]; then
    check_profile "$f"
    # Nested events are counted: each dropped call is an entry and an exit.
    dropped=$(sed -n 's/.* \([0-9]*\) nested events dropped.*/\1/p' "$mode.log" | tail -n 1)
    [ -n "$dropped" ] || fail "$mode: no count of nested events dropped at verbosity 1"
    [ $((dropped % 2)) -eq 0 ] || fail "$mode: odd nested drop count $dropped"
    # A signal every 20 us lands inside the handler hundreds of times a run.
    [ "$dropped" -gt 0 ] || fail "$mode: no nested event counted"
    continue
  fi
  exact_counts "$f" ./signals
  c=$f.counts
  [ -z "$(unbalanced "$c")" ] || fail "$mode: unbalanced calls: $(unbalanced "$c" | head -3)"
  wc=$(enters_of "$c" "$work_id")
  sc=$(enters_of "$c" "$signal_id")
  note "$mode: work $wc of $calls; signal function $sc of $signals"
  expect_eq "$mode work calls" "$calls" "$wc"
  expect_eq "$mode light calls" "$((3 * calls))" "$(enters_of "$c" "$light_id")"
  [ "$sc" -le "$signals" ] || fail "$mode: $sc signal calls for $signals signals"
  [ "$sc" -gt 0 ] || fail "$mode: no signal function recorded at all"
  # Nested events are counted: each dropped signal call is 2 events.
  dropped=$(sed -n 's/.* \([0-9]*\) nested events dropped.*/\1/p' "$mode.log" | tail -n 1)
  if [ -n "$dropped" ]; then
    expect_eq "$mode dropped nested events" "$(( 2 * (signals - sc) ))" "$dropped"
  else
    fail "$mode: no count of nested events dropped at verbosity 1 ($((signals - sc)) signal calls were dropped)"
  fi
done
echo "signals: ok"
