# Events from a signal handler that interrupts basic mode's own handler are
# dropped and counted (reported at verbosity=1); the log stays readable and
# every call of in_signal is either in it or counted as dropped.
source "$TEST_SRC_DIR/basic_lib.sh"
build signal -Wl,--wrap=write
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic verbosity=1" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0 thread_buffer_size=16" \
  ./signal > out.txt 2> err.txt
handled=$(cat out.txt)
log=$(only_file "xray-log.signal.*")
dropped=$(sed -nE 's/.*basic mode: ([0-9]+) nested events dropped.*/\1/p' err.txt)
[ -n "$dropped" ] || { cat err.txt >&2; fail "no drop count reported"; }
[ "$dropped" -gt 0 ] || fail "no nested event was dropped (handled=$handled)"
[ $((dropped % 2)) -eq 0 ] || fail "odd number of dropped events: $dropped"
in_log=$(counts signal "$log" | awk '$1 == "in_signal" { print $2 }')
expect_eq "in_signal calls: logged + dropped = direct + from the signal" \
  $((10 + handled)) $((in_log + dropped / 2))
expect_eq "work calls" "work 1000" "$(counts signal "$log" | grep work)"
