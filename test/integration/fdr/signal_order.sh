# A signal after every instruction (the trap flag) while a thread runs
# instrumented calls through the tracer, its handler running an instrumented
# function: the thread's records stay in time order across its small
# buffers, and every event is either in the log or counted as nested.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog signal_order
XRAY_OPTIONS=verbosity=1 ./signal_order "func_duration_threshold_us=0 buffer_size=512 buffer_max=4000" 20 \
  > out.txt 2> err.txt || { exit_status=$?; cat err.txt >&2; fail "exited $exit_status"; }
read -r tid traps < out.txt
log=$(only_file 'xray-log.signal_order.*')
fdr_yaml "$log" signal_order > all.yaml
expect_eq "threads" "thread: $tid" "$(grep -o 'thread: [0-9]*' all.yaml | sort -u)"
# in file order (buffer after buffer), no TSC smaller than the one before
backwards=$(sed -n 's/.*tsc: \([0-9]*\).*/\1/p' all.yaml |
  awk 'NR > 1 && $1 < prev { n++ } { prev = $1 } END { print n + 0 }')
expect_eq "records earlier than the one before" 0 "$backwards"
calls=$(fdr_calls "$log" signal_order)
expect_eq "work's calls" "work:20/20" "$(echo "$calls" | tr ' ' '\n' | grep '^work:')"
# Every trap runs in_handler once: its call is either in the log, entry and
# exit, or dropped as nested, entry and exit (a pair is never split: the
# full path holds the fast path's busy bit as long as its own guard), so no
# exit is made up for it either.
enters=$(echo "$calls" | tr ' ' '\n' | sed -n 's/^in_handler:\([0-9]*\)\/[0-9]*$/\1/p')
exits=$(echo "$calls" | tr ' ' '\n' | sed -n 's/^in_handler:[0-9]*\/\([0-9]*\)$/\1/p')
nested=$(sed -n 's/.* \([0-9]*\) nested events dropped.*/\1/p' err.txt)
closed=$(sed -n 's/.* \([0-9]*\) call(s) closed that unwinding.*/\1/p' err.txt)
expect_eq "in_handler's exits" "${enters:-0}" "${exits:-0}"
expect_eq "calls closed by the log writer" 0 "$closed"
expect_eq "in_handler's calls: kept + dropped = 1 per trap" "$traps" \
  $((${enters:-0} + nested / 2))
expect_eq "nested events: pairs" 0 $((nested % 2))
