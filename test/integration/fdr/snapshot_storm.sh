# Snapshots under fire (progs/snapshot_storm.c): SIGUSR2 every 20 ms across
# init/finalize/flush cycles, threads starting and exiting, fork, snapshots
# from code racing the signal ones. The program ends normally, every file
# it leaves (snapshots, the children's, the final logs) is a valid FDR log
# that llvm-xray reads, and every snapshot says why it was taken.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog snapshot_storm
rm -f xray-log.snapshot_storm.*
./snapshot_storm "func_duration_threshold_us=0 snapshot_signal=SIGUSR2 buffer_max=8" >out.txt 2>err.txt ||
  fail "exit status $? ($(tail -3 err.txt))"
# the handler saw signals, API snapshots were written, none failed
expect_eq "program's report" "signals 1 api ok 1 failed 0" "$(cat out.txt)"
mapfile -t snaps < <(ls xray-log.snapshot_storm.*.snap* 2>/dev/null || true)
[ "${#snaps[@]}" -ge 8 ] || fail "only ${#snaps[@]} snapshots"
# one process: its logs are <suffix>, <suffix>-2, ...
mapfile -t logs < <(printf '%s\n' xray-log.snapshot_storm.* | grep -E "\.snapshot_storm\.[a-z0-9]{6}(-[0-9]+)?$" || true)
expect_eq "one final log per cycle" 4 "${#logs[@]}"
for f in "${snaps[@]}" "${logs[@]}"; do
  "$LLVM_XRAY" fdr-dump "$f" >/dev/null 2>dump.err || fail "fdr-dump $f: $(cat dump.err)"
  fdr_yaml "$f" >/dev/null 2>conv.err || fail "convert $f: $(cat conv.err)"
done
for f in "${snaps[@]}"; do
  expect_eq "$f: metadata" 1 "$(fdr_dump_count "$f" "data = 'xray-snapshot number=[0-9]+ reason=(api|signal signal=12) ")"
done
echo "snapshot_storm: ok (${#snaps[@]} snapshots)"
