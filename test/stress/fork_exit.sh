# fork while another thread is inside instrumented code, and exit() while
# threads still run instrumented code, with a user handler and in each mode
# (fork_exit.c). Every file written must be readable.
# shellcheck source=../integration/lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/stress_lib.sh"
build fork_exit
FORKS=$((20 / TSAN_SLOWDOWN))
check_files() { # MODE PREFIX
  local f found=0
  for f in "$2"*; do
    [ -e "$f" ] || continue
    case $f in *.csv | *.err | *.folded | *.txt) continue ;; esac
    found=1
    if [ "$1" = xray-profiling ]; then
      check_profile "$f"
    else
      check_trace "$f" ./fork_exit >/dev/null
    fi
  done
  [ $found = 1 ] || fail "$1: no file with prefix $2"
}
run fork-handler.log timeout 120 ./fork_exit fork handler "$FORKS"
run exit-handler.log timeout 60 ./fork_exit exit handler
for mode in "${MODES[@]}"; do
  have_mode "$mode" || continue
  note "$mode"
  XRAY_OPTIONS="xray_logfile_base=fork-$mode-" \
    run "fork-$mode.log" timeout 120 ./fork_exit fork "$mode" "$FORKS"
  check_files "$mode" "fork-$mode-"
  XRAY_OPTIONS="patch_premain=true xray_mode=$mode xray_logfile_base=exit-$mode-" \
    XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" \
    XRAY_FDR_OPTIONS="func_duration_threshold_us=0 grace_period_ms=0" \
    XRAY_PROFILING_OPTIONS="grace_period_ms=0" \
    run "exit-$mode.log" timeout 60 ./fork_exit exit "$mode"
  grep -q "exit with threads running" "exit-$mode.log" || fail "$mode: exit run incomplete"
  # FDR flushes at exit only when started by the environment (as here).
  check_files "$mode" "exit-$mode-"
done
echo "fork_exit: ok"
