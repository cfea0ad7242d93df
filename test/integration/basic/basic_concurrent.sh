# Finalize + flush while 4 threads are recording: nothing recorded before
# the finalize is lost, no record is torn, each thread's log is well nested
# (llvm-xray account accepts it without -k).
source "$TEST_SRC_DIR/basic_lib.sh"
build concurrent
for run in 1 2; do
  rm -f xray-log.concurrent.*
  env -u XRAY_OPTIONS -u XRAY_BASIC_OPTIONS ./concurrent > out.txt
  expect_eq "statuses (run $run)" "init=2 patch=1 finalize=4 flush=2" "$(cat out.txt)"
  log=$(only_file "xray-log.concurrent.*")
  "$LLVM_XRAY" account -m concurrent "$log" > /dev/null || fail "account rejects the log"
  yaml concurrent "$log" |
    awk '/kind: function-exit/ { match($0, /thread: [0-9]+/); t = substr($0, RSTART + 8, RLENGTH - 8);
                                 if ($0 ~ /function: mid/) m[t]++; else if ($0 ~ /function: leaf/) l[t]++ }
         END { for (t in m) print (m[t] >= 2000), (l[t] - 2 * m[t] >= 0 && l[t] - 2 * m[t] <= 2) }' |
    sort | uniq -c | awk '{ print $1, $2, $3 }' > check.txt
  expect_eq "per thread: >= 2000 mid calls, leaf calls 2 per mid (+ at most 2)" "4 1 1" "$(cat check.txt)"
done
