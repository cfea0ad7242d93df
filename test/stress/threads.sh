# Thread churn (threads.c): 500 short-lived threads with a user handler and
# in each mode; exact counts; VmHWM growth after warm-up under a stated
# limit per mode (kB).
# shellcheck source=../integration/lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/stress_lib.sh"
build threads
# Limits: a thread's state is at most a few buffers; 450 threads leaking
# even 32 kB each would add 14 MB. Sanitizer runtimes keep freed memory in
# quarantine and thread stacks alive longer: four times the limit there.
scale=1
[ -z "${XRAY_TEST_SANITIZE:-}" ] || scale=4
limit() { echo $(( $1 * scale )); }
# ThreadSanitizer maps shadow and metadata for every byte the program
# touches: its RSS says nothing about the runtime's own use (-1: unchecked).
case ${XRAY_TEST_SANITIZE:-} in *thread*) limit() { echo -1; } ;; esac
run handler.log ./threads handler "$(limit 4096)"
cat handler.log
for mode in "${MODES[@]}"; do
  have_mode "$mode" || continue
  note "$mode"
  case $mode in
    xray-fdr) cfg="func_duration_threshold_us=0 grace_period_ms=0 buffer_size=8192 buffer_max=600" ;;
    xray-basic) cfg="func_duration_threshold_us=0" ;;
    *) cfg="grace_period_ms=0" ;;
  esac
  XRAY_OPTIONS="xray_logfile_base=churn-$mode-" XRAY_STRESS_CONFIG="$cfg" \
    run "$mode.log" ./threads "$mode" "$(limit 8192)"
  cat "$mode.log"
  read -r calls work_id < <(sed -n 's/^threads=[0-9]* calls=\([0-9]*\) work_id=\([0-9]*\) .*/\1 \2/p' "$mode.log")
  [ "$mode" = xray-profiling ] && continue
  f=$(only_file "churn-$mode-*")
  exact_counts "$f" ./threads
  [ -z "$(unbalanced "$f.counts")" ] || fail "$mode: unbalanced: $(unbalanced "$f.counts" | head -3)"
  expect_eq "$mode work calls" "$calls" "$(enters_of "$f.counts" "$work_id")"
done
echo "threads: ok"
