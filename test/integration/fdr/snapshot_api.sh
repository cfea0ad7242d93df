# __xray_fdr_snapshot: files named <base><program>.<suffix>.snap<N> in time
# order, each a valid FDR log holding what was recorded up to the call,
# recording untouched (the final flush has everything); statuses outside
# recording; both file versions; the metadata line.
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog snapshot_api
for version in 5 1; do
  rm -f xray-log.snapshot_api.*
  ./snapshot_api "func_duration_threshold_us=0 format_version=$version" >names.txt
  mapfile -t names < <(grep -v '^done$' names.txt)
  expect_eq "v$version: program ran to its end" 1 "$(grep -c '^done$' names.txt)"
  expect_eq "v$version: two names printed" 2 "${#names[@]}"
  [[ "${names[0]}" =~ ^xray-log\.snapshot_api\.([a-z0-9]{6})\.snap000001$ ]] ||
    fail "v$version: first name ${names[0]}"
  expect_eq "v$version: second name" "${names[0]%000001}000002" "${names[1]}"
  expect_eq "v$version: files" "${names[*]}" "$(ls xray-log.snapshot_api.*.snap* | paste -sd' ' -)"
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
# trace_output=xray+chrome: each snapshot gets its .json at the flush (the
# snapshot itself may run where nothing can allocate), with the calls the
# snapshot holds, complete events only for calls that returned before it.
if command -v python3 >/dev/null; then
  rm -f xray-log.snapshot_api.*
  ./snapshot_api "func_duration_threshold_us=0 trace_output=xray+chrome" >names.txt 2>err.txt
  mapfile -t names < <(grep -v '^done$' names.txt)
  expect_eq "json: two names printed" 2 "${#names[@]}"
  for n in 1 2; do
    f=${names[$((n - 1))]}
    [ -f "$f.json" ] || { cat err.txt >&2; fail "json: no $f.json"; }
    python3 - "$f.json" "$n" <<'PY' || fail "json: $f.json"
import collections, json, sys
events = json.load(open(sys.argv[1]))
got = collections.Counter(e["name"] for e in events if e.get("ph") == "X")
want = {"1": {"alpha": 100, "beta": 100},
        "2": {"alpha": 100, "beta": 100, "gamma_": 50}}[sys.argv[2]]
assert dict(got) == want, (dict(got), want)
PY
  done
  final=$(only_file "xray-log.snapshot_api.??????")
  [ -f "$final.json" ] || fail "json: the final log has no .json"
fi
# Faults: a directory that does not exist, a file size limit too small for
# one buffer (SIGXFSZ left at its default: it must not be raised). Each
# snapshot returns XRAY_SNAPSHOT_FILE_ERROR (3) with an empty name and says
# why; recording and the program go on.
rm -f xray-log.snapshot_api.*
XRAY_OPTIONS="xray_logfile_base=no/such/dir/" ./snapshot_api "func_duration_threshold_us=0" 3 \
  >out.txt 2>err.txt || fail "no dir: exit status $?"
expect_eq "no dir: ran to its end" "done" "$(cat out.txt)"
expect_eq "no dir: two messages" 2 \
  "$(grep -c "cannot create snapshot file 'no/such/dir/snapshot_api\.[a-z0-9]*\.snap00000[12]': no such directory; recording goes on" err.txt)"
( ulimit -f 1; ./snapshot_api "func_duration_threshold_us=0" 3 >out.txt 2>err.txt ) ||
  fail "file size limit: exit status $?"
expect_eq "file size limit: ran to its end" "done" "$(cat out.txt)"
expect_eq "file size limit: two messages" 2 \
  "$(grep -c "writing snapshot 'xray-log\.snapshot_api\.[a-z0-9]*\.snap00000[12]' failed: file size limit (RLIMIT_FSIZE) reached; removed" err.txt)"
expect_eq "file size limit: no snapshot file left" "" "$(ls xray-log.snapshot_api.*.snap* 2>/dev/null || true)"
echo "snapshot_api: ok"
