# snapshot_on_crash=true: a NULL dereference, abort(), a stack overflow, a
# program with its own SIGSEGV handler, a crash while another thread
# records. Each ends exactly as it does without the option (signal, core
# dump, exit status, the program's handler), and leaves one snapshot whose
# metadata names the signal and whose crashing thread ends with the entry
# of the function that crashed.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
fdr_prog crash
ulimit -c unlimited 2>/dev/null || true
base="func_duration_threshold_us=0"
for mode in null abort overflow own threaded; do
  rm -f xray-log.crash.* core core.*
  without=$(wait_status ./crash "$base" "$mode" 2>/dev/null)
  expect_eq "$mode: no snapshot without the option" "" "$(ls xray-log.crash.*.snap* 2>/dev/null || true)"
  rm -f core core.*
  with=$(wait_status ./crash "$base snapshot_on_crash=true" "$mode" 2>err.txt)
  rm -f core core.*
  expect_eq "$mode: ends as without the option" "$without" "$with"
  case $mode in
    abort) signo=6 fn=crash_abort want="signal=6 " ;;
    own) signo=11 fn=crash_null want="exit=42" ;;
    overflow) signo=11 fn=recurse want="signal=11 " ;;
    *) signo=11 fn=crash_null want="signal=11 " ;;
  esac
  # AddressSanitizer's SIGSEGV handler (the program's, from where we stand:
  # it was installed first) reports and exits 1
  [ -z "${XRAY_TEST_SANITIZE:-}" ] || [ "$want" != "signal=11 " ] || want="exit=1"
  [[ "$with" == "$want"* ]] || fail "$mode: ended with $with, want $want"
  [ "$mode" != own ] || expect_eq "own: the program's handler ran" "own handler ran" "$(cat prog.out)"
  snap=$(only_file "xray-log.crash.*.snap000001")
  expect_eq "$mode: metadata" 1 \
    "$(fdr_dump_count "$snap" "data = 'xray-snapshot number=1 reason=crash signal=$signo tid=[0-9]+ buffers=[0-9]+ ")"
  fdr_yaml "$snap" crash >snap.yaml
  tid=$(grep -m1 "function: $fn," snap.yaml | grep -o 'thread: [0-9]*')
  [ -n "$tid" ] || fail "$mode: no record of $fn"
  last=$(grep "$tid," snap.yaml | grep 'kind: function-' | tail -1 |
         grep -o 'function: [a-z_]*, .*kind: function-[a-z]*' | sed 's/, .*kind: */ /')
  expect_eq "$mode: the crashing thread's last record" "function: $fn function-enter" "$last"
  if [ "$mode" = overflow ]; then
    # the recursion filled every buffer: only its enters are left (under
    # ASan, whose frames are larger, it ends before)
    [ -n "${XRAY_TEST_SANITIZE:-}" ] ||
      expect_eq "overflow: no exit recorded" 0 "$(grep -c 'kind: function-exit' snap.yaml || true)"
    [ "$(grep -c 'function: recurse, .*kind: function-enter' snap.yaml)" -gt 1000 ] ||
      fail "overflow: too few recursion levels recorded"
    continue
  fi
  expect_eq "$mode: the work before it" "work:10/10" \
    "$(grep "$tid," snap.yaml | grep -c 'function: work, .*kind: function-enter' | sed 's/^/work:/')/$(grep "$tid," snap.yaml | grep -c 'function: work, .*kind: function-exit')"
  [ "$mode" != threaded ] || [ "$(grep -c 'function: work,' snap.yaml)" -gt 20 ] ||
    fail "threaded: the other thread's records are missing"
done
echo "crash: ok"
