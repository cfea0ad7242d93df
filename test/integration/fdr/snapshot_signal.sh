# snapshot_signal=SIGUSR2 on a 4-thread service: kill -USR2 twice gives two
# snapshots; the program's own SIGUSR2 handler still runs each time (the
# trigger chains to it). The first signal comes while the workers are paused
# between requests: that snapshot ends exactly at each worker's last
# request, nothing cut or left out. The second comes while they run: every
# thread's requests are there in order, later than the first snapshot's.
# The final flush is intact.
# With trace_output=xray+chrome, each snapshot's .json appears while the
# service runs (the program waits for it before it says "signalled"), holds
# the calls llvm-xray finds in the snapshot, and the flush does not write
# it again.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog service
rm -f xray-log.service.* ready hold held signalled stop
XRAY_OPTIONS=verbosity=1 ./service "func_duration_threshold_us=0 snapshot_signal=SIGUSR2 trace_output=xray+chrome" >out.txt 2>err.txt &
pid=$!
wait_file ready
touch hold
wait_file held
kill -USR2 $pid
wait_file signalled 1
rm hold
kill -USR2 $pid
wait_file signalled 2
touch stop
wait $pid || fail "service: exit status $? ($(cat err.txt))"
expect_eq "the program's handler ran" "program's SIGUSR2 handler ran 2 times" "$(cat out.txt)"
mapfile -t snaps < <(ls xray-log.service.*.snap?????? 2>/dev/null || true)
expect_eq "two snapshots" 2 "${#snaps[@]}"
[[ "${snaps[0]}" == *.snap000001 && "${snaps[1]}" == *.snap000002 ]] || fail "names: ${snaps[*]}"

# first: ends exactly where each worker paused
# shellcheck disable=SC2094  # the file held (the program's) into the array held: nothing writes it
read -r -a held <held
want=$(printf '%s\n' "${held[@]}" | sort -n | paste -sd' ' -)
first=$(fdr_requests "${snaps[0]}" service)
expect_eq "first: 4 threads, each in order" 4 "$(grep -c ' ok$' <<<"$first")"
got=$(awk '{ split($1, a, "[./]"); print a[3] }' <<<"$first" | sort -n | paste -sd' ' -)
expect_eq "first: each thread's last request" "$want" "$got"
meta="reason=signal signal=$(kill -l USR2 >/dev/null && echo 12) tid=[0-9]+ buffers=[0-9]+ buffers_left_out=0 records_cut=0 buffers_mid_switch=0"
expect_eq "first: metadata" 1 "$(fdr_dump_count "${snaps[0]}" "data = 'xray-snapshot number=1 $meta'")"
# each worker's requests are consecutive (nothing lost in between)
while read -r range rest; do
  IFS='./' read -r a _ b c <<<"$range"
  expect_eq "first: consecutive requests ($range)" "$((b - a + 1))" "$c"
done <<<"$first"

# second: taken while the workers ran; in order, after the first
second=$(fdr_requests "${snaps[1]}" service)
expect_eq "second: 4 threads, each in order" 4 "$(grep -c ' ok$' <<<"$second")"
low=$(awk '{ split($1, a, "[./]"); print a[3] }' <<<"$second" | sort -n | head -1)
[ "$low" -ge "$(sort -n <<<"$want" | tr ' ' '\n' | sort -n | head -1)" ] ||
  fail "second: a thread ends before the first snapshot ($second)"
expect_eq "second: metadata" 1 "$(fdr_dump_count "${snaps[1]}" "data = 'xray-snapshot number=2 reason=signal signal=12 ")"

# the JSON, as the helper wrote it before the flush, and not again
for f in "${snaps[@]}"; do
  snapshot_json_once "$f" "$f"
  calls=$(fdr_json_check "$f.json.before_flush" "$f" service)
  [[ "$calls" == "handle_request:"*" parse:"*" respond:"* ]] || fail "$f.json: $calls"
done

# the final flush: every thread, in order
final=$(only_file "xray-log.service.??????")
expect_eq "final: 4 threads, each in order" 4 "$(fdr_requests "$final" service | grep -c ' ok$')"
echo "snapshot_signal: ok ($(grep -o 'buffers=.*' <(fdr_dump_count "${snaps[1]}" x >/dev/null; "$LLVM_XRAY" fdr-dump "${snaps[1]}" | grep -o "buffers=[^']*")))"
