# Programs that end without exit(): a fork child that ends with _exit (as
# save and worker children do), a whole program that ends with _exit or
# _Exit, and one killed before its first append. _exit runs the exit policy
# first (lib/core/modes/exit_hook.c), so every buffered record is written, not
# only the whole 1024-record buffers; a killed program leaves an empty file,
# never a header-only one.
source "$TEST_SRC_DIR/basic_lib.sh"
build exit_kids
# by_pid LOG PID: "function kind count" of PID's records
by_pid() {
  yaml exit_kids "$1" | grep "process: $2," |
    sed 's/.*function: \([a-z_]*\),.*kind: \([a-z-]*\),.*/\1 \2/' | sort | uniq -c |
    awk '{ print $2, $3, $1 }'
}

# 1500 calls: 3000 records, two whole buffers and 952 still buffered at _exit.
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic verbosity=1" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./exit_kids child 1500 > pids.txt 2> err.txt ||
  fail "child run: exit status $?"
read -r parent child < pids.txt
log=$(only_file 'xray-log.exit_kids.*')
expect_eq "the child's records, all 3000" "in_child function-enter 1500
in_child function-exit 1500" "$(by_pid "$log" "$child")"
expect_eq "the parent's records" "in_parent function-enter 5
in_parent function-exit 5" "$(by_pid "$log" "$parent")"
grep -q "^==$child==XRay: basic mode: wrote 3000 records to $log\$" err.txt ||
  { cat err.txt >&2; fail "the child did not say it wrote its 3000 records"; }

for how in _exit _Exit; do
  rm -f xray-log.exit_kids.*
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" \
  XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./exit_kids $how 700 > pids.txt ||
    fail "$how run: exit status $?"
  read -r parent child < pids.txt
  log=$(only_file 'xray-log.exit_kids.*')
  expect_eq "$how: every record" "in_parent function-enter 700
in_parent function-exit 700" "$(by_pid "$log" "$parent")"
done

# Killed with its only records still buffered: an empty file (the header
# comes with the first append), never a header-only one.
rm -f xray-log.exit_kids.*
rc=0
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./exit_kids kill > pids.txt || rc=$?
expect_eq "killed by SIGKILL" 137 "$rc"
log=$(only_file 'xray-log.exit_kids.*')
expect_eq "size of the killed program's file" 0 "$(stat -c %s "$log")"
exit 0
