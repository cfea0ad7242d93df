# __xray_fdr_snapshot: files named <base><program>.<suffix>.snap<N> in time
# order, each a valid FDR log holding what was recorded up to the call,
# recording untouched (the final flush has everything); statuses outside
# recording; both file versions; the metadata line.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog snapshot_api
for version in 5 1; do
  rm -f xray-log.snapshot_api.*
  ./snapshot_api "func_duration_threshold_us=0 format_version=$version" >names.txt
  mapfile -t names < <(grep '^xray-log' names.txt)
  expect_eq "v$version: program ran to its end" 1 "$(grep -c '^done$' names.txt)"
  # without chrome output, no helper thread at all
  read -r _ _ before _ < <(grep '^threads start' names.txt)
  expect_eq "v$version: no helper thread" "threads init $before - -" "$(grep '^threads init' names.txt)"
  expect_eq "v$version: two names printed" 2 "${#names[@]}"
  [[ "${names[0]}" =~ ^xray-log\.snapshot_api\.([a-z0-9]{6})\.snap000001$ ]] ||
    fail "v$version: first name ${names[0]}"
  expect_eq "v$version: second name" "${names[0]%000001}000002" "${names[1]}"
  expect_eq "v$version: files" "${names[*]}" "$(printf '%s\n' xray-log.snapshot_api.*.snap* | paste -sd' ' -)"
  expect_eq "v$version: header version" "$version" "$(fdr_header_field "${names[0]}" 0 2)"
  expect_eq "v$version: first snapshot" "alpha:100 beta:100" "$(fdr_counts "${names[0]}" snapshot_api)"
  expect_eq "v$version: second snapshot" "alpha:100 beta:100 gamma_:50" "$(fdr_counts "${names[1]}" snapshot_api)"
  expect_eq "v$version: second snapshot, records" "alpha:100/100 beta:100/100 gamma_:50/50" \
    "$(fdr_calls "${names[1]}" snapshot_api)"
  final=$(only_file "xray-log.snapshot_api.??????")
  expect_eq "v$version: final log" "alpha:110 beta:110 gamma_:50" "$(fdr_counts "$final" snapshot_api)"
  # the metadata: one custom event, in fdr-dump and in the YAML
  for n in 1 2; do
    f=${names[$((n - 1))]}
    want="xray-snapshot number=$n reason=api tid=[0-9]+ buffers=1 buffers_left_out=0 records_cut=0 buffers_mid_switch=0"
    expect_eq "v$version: snapshot $n metadata (fdr-dump)" 1 "$(fdr_dump_count "$f" "Custom Event: .*data = '$want'")"
    expect_eq "v$version: snapshot $n metadata (yaml)" 1 "$(fdr_yaml "$f" | grep -c -E "kind: custom-event, .*data: '$want'" || true)"
  done
done
# trace_output=xray+chrome: each snapshot gets its .json while the program
# runs, from the runtime's helper thread (the snapshot itself may run where
# nothing can allocate). After each snapshot the program waits for the
# .json and hard-links it: what was there before any flush, with the calls
# llvm-xray finds in the snapshot; flush does not write it again. A fork
# child has no helper: its snapshot's .json comes at its own flush.
if command -v python3 >/dev/null; then
  rm -f xray-log.snapshot_api.*
  XRAY_OPTIONS=verbosity=1 ./snapshot_api "func_duration_threshold_us=0 trace_output=xray+chrome" \
    >names.txt 2>err.txt || fail "json: exit status $? ($(tail -3 err.txt))"
  mapfile -t names < <(grep '^xray-log' names.txt)
  expect_eq "json: two names printed" 2 "${#names[@]}"
  # one helper thread while FDR is initialised: named, every signal
  # blocked (1-31 but KILL and STOP); joined at flush
  read -r _ _ before _ < <(grep '^threads start' names.txt)
  read -r _ _ count name blocked < <(grep '^threads init' names.txt)
  # (TSan starts a thread of its own with the first pthread_create)
  [[ "${XRAY_TEST_SANITIZE:-}" == *thread* ]] || expect_eq "helper: threads" "$((before + 1))" "$count"
  expect_eq "helper: name" xray-snaptrace "$name"
  if [ -n "${XRAY_TEST_EMULATOR:-}" ]; then
    # qemu-user keeps the guest's masks to itself: /proc shows its own
    note "helper's SigBlk not checked under emulation (/proc shows the emulator's mask)"
  else
    python3 - "$blocked" <<'PY' || fail "helper: signals not blocked: $blocked"
import sys
mask = int(sys.argv[1], 16)
assert all(mask >> (s - 1) & 1 for s in range(1, 32) if s not in (9, 19))
PY
  fi
  [[ "${XRAY_TEST_SANITIZE:-}" == *thread* ]] ||
    expect_eq "helper: joined at flush" "threads flushed $before - -" "$(grep '^threads flushed' names.txt)"
  expect_eq "helper: gone after flush" "- -" "$(grep '^threads flushed' names.txt | cut -d' ' -f4-)"
  wants=("alpha:100 beta:100" "alpha:100 beta:100 gamma_:50")
  for n in 1 2; do
    f=${names[$((n - 1))]}
    snapshot_json_once "json $n" "$f"
    expect_eq "json $n: calls, as llvm-xray convert" "${wants[$((n - 1))]}" \
      "$(fdr_json_check "$f.json.before_flush" "$f" snapshot_api)"
  done
  expect_eq "json: no .part file left" "" "$(ls ./*.part 2>/dev/null || true)"
  # the fork child: no helper, names of its own, the .json at its flush
  expect_eq "child: no helper thread" "threads child $before - -" "$(grep '^threads child' names.txt)"
  child=$(grep '^child ' names.txt | cut -d' ' -f2)
  [[ "$child" =~ ^xray-log\.snapshot_api\.[a-z0-9]{6}\.snap000001$ ]] || fail "child: snapshot name '$child'"
  [ "${child%.snap000001}" != "${names[0]%.snap000001}" ] || fail "child: the parent's snapshot names"
  expect_eq "child: its snapshot's .json" "gamma_:20" "$(fdr_json_check "$child.json" "$child" snapshot_api)"
  # the final logs (parent, child), each with its .json; the helper
  # recorded nothing: one thread in the parent's log
  logs=(xray-log.snapshot_api.??????)
  expect_eq "json: final logs" 2 "${#logs[@]}"
  for f in "${logs[@]}"; do
    [ -f "$f.json" ] || fail "json: $f has no .json"
    expect_eq "$f: one thread" 1 "$(fdr_yaml "$f" | grep -o 'thread: [0-9]*' | sort -u | wc -l)"
  done
fi
# Faults: a directory that does not exist, a file size limit too small for
# one buffer (SIGXFSZ left at its default: it must not be raised). Each
# snapshot returns XRAY_SNAPSHOT_FILE_ERROR (3) with an empty name and says
# why; recording and the program go on.
rm -f xray-log.snapshot_api.*
XRAY_OPTIONS="xray_logfile_base=no/such/dir/" ./snapshot_api "func_duration_threshold_us=0" 3 \
  >out.txt 2>err.txt || fail "no dir: exit status $?"
expect_eq "no dir: ran to its end" "done" "$(tail -1 out.txt)"
expect_eq "no dir: two messages" 2 \
  "$(grep -c "cannot create snapshot file 'no/such/dir/snapshot_api\.[a-z0-9]*\.snap00000[12]': no such directory; recording goes on" err.txt)"
( ulimit -f 1; ./snapshot_api "func_duration_threshold_us=0" 3 >out.txt 2>err.txt ) ||
  fail "file size limit: exit status $?"
expect_eq "file size limit: ran to its end" "done" "$(tail -1 out.txt)"
expect_eq "file size limit: two messages" 2 \
  "$(grep -c "writing snapshot 'xray-log\.snapshot_api\.[a-z0-9]*\.snap00000[12]' failed: file size limit (RLIMIT_FSIZE) reached; removed" err.txt)"
expect_eq "file size limit: no snapshot file left" "" "$(ls xray-log.snapshot_api.*.snap* 2>/dev/null || true)"
echo "snapshot_api: ok"
