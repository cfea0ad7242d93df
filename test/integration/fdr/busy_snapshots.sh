# Snapshots of a busy program (llvm-xray account once failed on them with
# "exit ... (empty stack)"): 8 threads, a ring of 128 buffers that main's
# calls wrap about 8 times (so main holds far more than 16 buffers and its
# oldest kept buffer starts inside calls), two signal snapshots and a
# slow-call snapshot taken while the workers run. Each is one block per
# thread, as the exit-time log (docs/fdr-mode.md, "What a snapshot holds"):
# account, stack and graph read every one, and account's calls per function
# are exactly the exits convert finds in the same file.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog busy_snap -lpthread
# check FILE: prints account's "name:count ..."; fails when a tool cannot
# read FILE or when account's counts differ from the exits in convert's YAML.
check() {
  local counts exits
  counts=$(fdr_counts "$1" busy_snap) || fail "account of $1"
  [ -n "$counts" ] || fail "account of $1: no calls"
  exits=$(fdr_yaml "$1" busy_snap | awk '/kind: function-(exit|tail-exit)/ {
      match($0, /function: [^,]*/); n[substr($0, RSTART + 10, RLENGTH - 10)]++ }
    END { for (f in n) print f ":" n[f] }' | sort | paste -sd' ' -)
  expect_eq "$1: account's calls = convert's exits" "$exits" "$counts"
  "$LLVM_XRAY" stack -m busy_snap "$1" >stack.txt 2>&1 || { cat stack.txt >&2; fail "stack of $1"; }
  "$LLVM_XRAY" graph -m busy_snap "$1" >graph.txt 2>&1 || { cat graph.txt >&2; fail "graph of $1"; }
  echo "$counts"
}
rm -f xray-log.busy_snap.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr verbosity=1" \
  XRAY_FDR_OPTIONS="func_duration_threshold_us=0 buffer_size=4104 buffer_max=128 snapshot_signal=SIGUSR2 snapshot_if_slower_than_us=200000 snapshot_function=slow snapshot_min_interval_ms=0" \
  ./busy_snap 100000 250 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "busy_snap exited with $exit_status"; }
grep -qE "xray-fdr: 0 events dropped .*, ([0-9]{4,}) buffers overwritten" err.txt ||
  { cat err.txt >&2; fail "the ring did not wrap 8 times (1000+ buffers overwritten)"; }
mapfile -t snaps < <(ls xray-log.busy_snap.*.snap?????? 2>/dev/null || true)
expect_eq "snapshots" 3 "${#snaps[@]}"
k=0
for reason in signal signal slow_call; do
  f=${snaps[$k]}; k=$((k + 1))
  meta=$("$LLVM_XRAY" fdr-dump "$f" | grep -o "data = 'xray-snapshot [^']*'")
  [[ "$meta" =~ number=$k\ reason=$reason\ .*\ buffers=([0-9]+)\  ]] || fail "snapshot $k: metadata $meta"
  [ "${BASH_REMATCH[1]}" -gt 100 ] || fail "snapshot $k: ${BASH_REMATCH[1]} buffers"
  expect_eq "snapshot $k: one block per thread (main + 8 workers)" 9 "$(fdr_dump_count "$f" '^<Thread ID')"
  counts=$(check "$f")
  if [ $reason = slow_call ]; then
    [[ " $counts " == *" slow:1 "* ]] || fail "slow-call snapshot: slow's call in [$counts]"
  fi
  echo "snapshot $k ($reason): $counts"
done
counts=$(check "$(only_file "xray-log.busy_snap.??????")")
echo "exit-time log: $counts"
echo "busy_snapshots: ok"
