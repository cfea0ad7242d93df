# snapshot_if_slower_than_us + snapshot_function: one snapshot per slow call
# of the watched function (a name pattern or an id), none for the fast
# ones, at most one per snapshot_min_interval_ms; each holds the slow call
# (its enter with its number, and its exit) and says why in its metadata.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog slow_call
id=$("$LLVM_XRAY" extract --symbolize slow_call | awk '/function-name: handle[, ]/ { match($0, /id: *[0-9]+/); print substr($0, RSTART + 4, RLENGTH - 4) + 0; exit }')
[ -n "$id" ] || fail "no id for handle"
cfg="func_duration_threshold_us=0 snapshot_if_slower_than_us=200000"

# a name pattern, no minimum interval: two slow calls, two snapshots; with
# chrome output each gets its .json while the program runs (it waits for
# it after the slow call), not again at flush
rm -f xray-log.slow_call.*
XRAY_OPTIONS=verbosity=1 ./slow_call "$cfg snapshot_function=hand* snapshot_min_interval_ms=0 trace_output=xray+chrome" \
  300 100 250 2>err.txt || fail "pattern: exit status $? ($(tail -3 err.txt))"
mapfile -t snaps < <(ls xray-log.slow_call.*.snap?????? 2>/dev/null || true)
expect_eq "pattern: one snapshot per slow call" 2 "${#snaps[@]}"
k=0
for n in 100 250; do
  f=${snaps[$k]}; k=$((k + 1))
  meta=$("$LLVM_XRAY" fdr-dump "$f" | grep -o "data = 'xray-snapshot [^']*'")
  [[ "$meta" =~ number=$k\ reason=slow_call\ function=$id\ duration_us=([0-9]+)\  ]] ||
    fail "snapshot $k: metadata $meta"
  [ "${BASH_REMATCH[1]}" -ge 200000 ] || fail "snapshot $k: duration ${BASH_REMATCH[1]} us"
  fdr_yaml "$f" slow_call >s.yaml
  # the last handle record is the slow call's exit, after its enter
  expect_eq "snapshot $k: the slow call's enter" "[ $n ]" \
    "$(grep 'function: handle,' s.yaml | grep 'function-enter' | tail -1 | grep -o '\[ [0-9]* \]')"
  expect_eq "snapshot $k: ends with its exit" "function-exit" \
    "$(grep 'function: handle,' s.yaml | grep 'kind: function-' | tail -1 | grep -o 'function-exit')"
  expect_eq "snapshot $k: calls" "handle:$n/$n step:$n/$n" "$(fdr_calls "$f" slow_call)"
  snapshot_json_once "snapshot $k" "$f"
  expect_eq "snapshot $k: .json calls" "handle:$n step:$n" \
    "$(fdr_json_check "$f.json.before_flush" "$f" slow_call)"
done
expect_eq "pattern: final log intact" "handle:300/300 step:300/300" \
  "$(fdr_calls "$(only_file "xray-log.slow_call.??????")" slow_call)"

# the id, a long minimum interval: the second slow call takes none
rm -f xray-log.slow_call.*
./slow_call "$cfg snapshot_function=$id snapshot_min_interval_ms=3600000" 300 100 250 2>err.txt
f=$(only_file "xray-log.slow_call.*.snap*")
expect_eq "interval: the first slow call's" "handle:100/100 step:100/100" "$(fdr_calls "$f" slow_call)"

# another function watched: no snapshot at all
rm -f xray-log.slow_call.*
./slow_call "$cfg snapshot_function=step snapshot_min_interval_ms=0" 300 100 2>err.txt
expect_eq "unwatched: no snapshot" "" "$(ls xray-log.slow_call.*.snap* 2>/dev/null || true)"

# bad input: no function, a pattern that matches nothing: init refuses
for bad in "" "snapshot_function=no_such_fn*"; do
  ./slow_call "$cfg $bad" 3 2>err.txt && fail "accepted: $bad"
  grep -q "snapshot_function" err.txt || fail "no message for: $bad"
done
echo "slow_call: ok"
