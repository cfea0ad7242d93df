# The sync event (a custom event "xray-sync" at the log's earliest
# timestamp, docs/formats.md) starts each thread's block only when two
# threads or more kept records: when the threshold erased every call of one
# thread, the log holds exactly the other thread's records, as with
# compiler-rt (its fdr-mode lit test checks this).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog kept_thread
# run THRESHOLD: the records of the log, one per line, without tsc/cpu/ids.
# On one CPU (xr_pinned): a call that changed CPU is never erased, so one
# migration inside one of leaf()'s calls would keep it at 1 s.
run() {
  rm -f xray-log.kept_thread.*
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr" \
    XRAY_FDR_OPTIONS="func_duration_threshold_us=$1" xr_pinned ./kept_thread 200 ||
    fail "threshold $1: exited with $?"
  f=$(only_file "xray-log.kept_thread.*")
  fdr_yaml "$f" kept_thread | sed -n '/^records:/,$p' | grep '^ *- {' |
    sed -E 's/.*function: ([^,]*),( args: \[ ([0-9]+) \],)?.*kind: ([a-z-]+),.*data: (.*) \}$/\1 \3 \4 \5/'
}

# leaf()'s calls are all erased: only the second thread's call remains.
run 1000000 >erased.txt
printf '%s\n' "logged 7 function-enter-arg ''" "logged  function-exit ''" >erased.expected
expect_file_eq "records when one thread kept none" erased.expected erased.txt

# Both threads kept records: each block starts with the sync event.
run 0 >kept.txt
expect_eq "sync events" 2 "$(grep -c " custom-event xray-sync" kept.txt)"
expect_eq "leaf records" 400 "$(grep -c '^leaf ' kept.txt)"
expect_eq "logged records" 2 "$(grep -c '^logged ' kept.txt)"
echo "sync_event: ok"
