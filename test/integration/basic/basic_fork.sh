# fork() in basic mode, as compiler-rt: the child appends to its parent's
# log file (one file; each record carries its pid). Unlike compiler-rt the
# child never writes the parent's buffered pre-fork records again, nor the
# exit of the call it was forked in, and concurrent appends of parent and
# child never tear a record: llvm-xray reads every record, counts exact.
source "$TEST_SRC_DIR/basic_lib.sh"
build fork
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic verbosity=1" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./fork > pids.txt 2> err.txt
read -r parent child < pids.txt
expect_eq "log files" 1 "$(nfiles 'xray-log.fork.*')"
log=$(only_file 'xray-log.fork.*')
expect_eq "'Log file in' lines (the parent's, at start)" 1 "$(grep -c "^==$parent==XRay: Log file in '$log'$" err.txt)"
# by_pid PID: "function count" of PID's function-enter records
by_pid() {
  yaml fork "$log" | grep "process: $1," | grep 'kind: function-enter' |
    sed 's/.*function: \([a-z_]*\),.*/\1/' | sort | uniq -c | awk '{ print $2, $1 }'
}
expect_eq "parent's calls" "before 1
in_parent 5
spawn 1" "$(by_pid "$parent")"
expect_eq "child's calls" "in_child 3" "$(by_pid "$child")"
expect_eq "child's exits (in_child only, not spawn's)" 3 \
  "$(yaml fork "$log" | grep "process: $child," | grep -c 'kind: function-exit')"
expect_eq "child's threads" "thread: $child" \
  "$(yaml fork "$log" | grep "process: $child," | grep -o 'thread: [0-9]*' | sort -u)"
expect_eq "records in the file: 14 parent + 6 child" 20 "$(yaml fork "$log" | grep -c 'kind: function-')"

# Both processes append at once, 16-record buffers: 2 x 2000 calls.
build fork_appends
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0 thread_buffer_size=16" \
  ./fork_appends 2000 > pids.txt
read -r parent child < pids.txt
log=$(only_file 'xray-log.fork_appends.*')
expect_eq "file size: header + whole records" $((32 + 2 * 2 * 2000 * 32)) "$(stat -c %s "$log")"
yaml fork_appends "$log" > all.yaml
for p in "$parent" "$child"; do
  expect_eq "pid $p entries" 2000 "$(grep "process: $p," all.yaml | grep -c 'kind: function-enter')"
  expect_eq "pid $p exits" 2000 "$(grep "process: $p," all.yaml | grep -c 'kind: function-exit')"
done

# The parent ends with nothing recorded (its empty file removed) before the
# child's first append: the child's records go to a file of its own, none
# is lost. (The pipe to cat ends when the child exits.)
build fork_late
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic verbosity=1" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./fork_late 2> err.txt | cat > pids.txt
read -r parent child < pids.txt
grep -q "^==$parent==XRay: basic mode: removed '.*': no record was written" err.txt ||
  { cat err.txt >&2; fail "the parent did not say it removed its empty file"; }
log=$(only_file 'xray-log.fork_late.*')
expect_eq "the child's file, announced" 1 "$(grep -c "^==$child==XRay: Log file in '$log'$" err.txt)"
expect_eq "the child's records" 10 "$(yaml fork_late "$log" | grep "process: $child," | grep -c 'kind: function-')"
exit 0
