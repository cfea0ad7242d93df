# Exit, or fork, while another thread is inside a mode's flush
# (exit_transition.c says how the flush is held, provably, in progress):
# at exit the policy waits for that flush, so the log is complete (exact
# call count); a fork child is not left flushing: it starts the mode again
# and writes a log of its own.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
need_llvm_xray
[ -z "${XRAY_TEST_EMULATOR:-}" ] || skip "reads /proc/<tid>/syscall, which an emulator's threads do not show"
archive_symbols=$(nm "$XRAY_LIB" 2>/dev/null || true)
have_mode() { grep -qE " [DRdrVv] $1\$" <<<"$archive_symbols"; }

xr_cc prog "$TEST_SRC_DIR/exit_transition.c"

# work's call count in each log of DIR, ascending.
counts() {
  for f in "$1"/*; do
    if [ "$m" = profiling ]; then
      python3 "$TEST_SRC_DIR/../profiling/profile_reader.py" --llvm-xray "$LLVM_XRAY" -m prog --merge "$f" |
        awk '$1 == "work" {print $2}' || echo "unreadable:$f"
    else
      "$LLVM_XRAY" account -m prog "$f" | awk '/ work$/ {print $2}' || echo "unreadable:$f"
    fi
  done | sort -n | tr '\n' ' '
}

for m in basic fdr profiling; do
  have_mode "xr_${m}_impl" || continue
  for what in exit fork; do
    d=$m-$what
    mkdir "$d"
    note "$d"
    XRAY_OPTIONS="verbosity=1 xray_logfile_base=$d/t-" \
      ./prog "xray-$m" "$what" "$d" >"$d.out" 2>"$d.err" || fail "$d: exit status $?: $(cat "$d.err")"
    if [ "$what" = exit ]; then
      printf 'init 2\nfinalize 4\nB is inside the flush\nexiting\n' >want
      expect_file_eq "$d: stdout" want "$d.out"
      expect_eq "$d: work calls in the log" "1000 " "$(counts "$d")"
      grep -q "exit: waiting for another thread's flush of xray-$m" "$d.err" ||
        fail "$d: no 'waiting' report: $(cat "$d.err")"
    else
      printf 'init 2\nfinalize 4\nB is inside the flush\nchild: finalize 0\nchild: init 2\nchild: finalize 4\nchild: flush 2\nchild exit 0\nB is done\n' >want
      expect_file_eq "$d: stdout" want "$d.out"
      expect_eq "$d: work calls in the child's log and the parent's" "300 1000 " "$(counts "$d")"
    fi
  done
done
echo PASS
