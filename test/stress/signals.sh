# High-rate timer signal running instrumented code (signals.c) with a user
# handler and in basic, FDR and profiling modes; files readable by llvm-xray,
# exact workload counts, nested events dropped in pairs.
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/stress_lib.sh"
build signals
run handler.log ./signals handler
cat handler.log
for mode in "${MODES[@]}"; do
  have_mode "$mode" || continue
  note "$mode"
  case $mode in
    xray-fdr) cfg="func_duration_threshold_us=0 grace_period_ms=0 buffer_size=65536 buffer_max=64" ;;
    xray-basic) cfg="func_duration_threshold_us=0" ;;
    *) cfg="grace_period_ms=0" ;;
  esac
  XRAY_OPTIONS="xray_logfile_base=sig-$mode- verbosity=1" XRAY_STRESS_CONFIG="$cfg" \
    run "$mode.log" ./signals "$mode"
  read -r signals calls work_id signal_id < <(sed -n 's/^signals=\([0-9]*\) calls=\([0-9]*\) work_id=\([0-9]*\) signal_id=\([0-9]*\)$/\1 \2 \3 \4/p' "$mode.log")
  [ -n "${signal_id:-}" ] || { cat "$mode.log" >&2; fail "$mode: no summary line"; }
  f=$(only_file "sig-$mode-*")
  if [ "$mode" = xray-profiling ]; then
    check_profile "$f"
    continue
  fi
  n=$(check_trace "$f" ./signals)
  y=$f.yaml
  we=$(count_kind "$y" "$work_id" function-enter)
  wx=$(count_kind "$y" "$work_id" function-exit)
  se=$(count_kind "$y" "$signal_id" function-enter)
  sx=$(count_kind "$y" "$signal_id" function-exit)
  note "$mode: $n records; work $we/$wx of $calls; signal function $se/$sx of $signals"
  expect_eq "$mode work entries" "$calls" "$we"
  expect_eq "$mode work exits" "$calls" "$wx"
  expect_eq "$mode signal entries = exits" "$se" "$sx"
  [ "$se" -le "$signals" ] || fail "$mode: $se signal entries for $signals signals"
  [ "$se" -gt 0 ] || fail "$mode: no signal function recorded at all"
done
echo "signals: ok"
