# Every mode under valgrind: traced.c (two threads, custom and typed
# events) in basic mode (binary log and Chrome JSON, started by the API and
# by XRAY_OPTIONS), FDR (binary log, Chrome JSON, a snapshot) and profiling
# (binary profile, folded, report, pprof) under memcheck, and FDR once under
# callgrind. Each run exits 0 with no memcheck error, and each output holds
# exactly the calls and events made, as llvm-xray, a JSON parser, the
# profile reader and go tool pprof read them. About 10 s.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/valgrind_lib.sh"
CHROME="python3 $XRAY_SRC/test/integration/trace_json/chrome_check.py"
funcs_json() { $CHROME "$1" | grep -v '^marks:$' | paste -sd' ' -; }

# basic, from the API, with its Chrome JSON; verbosity=2 names the clock
memcheck basic XRAY_OPTIONS="xray_logfile_base=basic- verbosity=2" \
  ./traced xray-basic "func_duration_threshold_us=0:trace_output=xray+chrome" "$CALLS"
ev=$(events_of basic)
log=$(only_file "basic-traced.??????")
# basic mode records no custom or typed events (docs/basic-mode.md)
expect_eq "basic: log" "$(want_yaml 0)" "$(yaml_calls "$log" basic)"
expect_eq "basic: json" "$WANT_FUNCS" "$(funcs_json "$log.json")"
# Under valgrind the port's CPU-id instructions need the host's flags too
# (clock_x86_64.c): a host that lists neither gets sched_getcpu.
reader=$(grep -o 'cpu id via .*' basic.err) || fail "no clock line: $(cat basic.err)"
note "$reader"
if [ "$(uname -m)" = x86_64 ] && ! grep -qw -e rdtscp -e rdpid /proc/cpuinfo; then
  [[ $reader == "cpu id via sched_getcpu"* ]] || fail "host without rdtscp/rdpid: $reader"
fi

# basic, started by XRAY_OPTIONS and written at exit
memcheck basic_env XRAY_OPTIONS="xray_logfile_base=env- patch_premain=true xray_mode=xray-basic verbosity=0" \
  XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./traced - - "$CALLS"
# (main too: patched before it runs)
expect_eq "basic from XRAY_OPTIONS: log" \
  "custom_event:20/20 leaf:800/800 main:1/1 mid:400/400 typed_event:20/20 worker:2/2 ~custom:0 ~other:0 ~sync:0 ~typed:0" \
  "$(yaml_calls "$(only_file "env-traced.??????")" basic_env)"

# FDR: the log (two threads: a sync event each, docs/formats.md) and its
# Chrome JSON
memcheck fdr XRAY_OPTIONS="xray_logfile_base=fdr- verbosity=0" \
  ./traced xray-fdr "func_duration_threshold_us=0:trace_output=xray+chrome" "$CALLS"
log=$(only_file "fdr-traced.??????")
expect_eq "fdr: log" "$(want_yaml "$ev" 2)" "$(yaml_calls "$log" fdr)"
expect_eq "fdr: json" "$WANT_FUNCS" "$(funcs_json "$log.json")"
python3 - "$log.json" "$ev" <<'PY' || fail "fdr: json events"
import json, sys
ev = [e for e in json.load(open(sys.argv[1])) if e["ph"] == "i"]
want = int(sys.argv[2])
custom = [e for e in ev if e["name"] == "custom event" and e["args"]["data"] == "valgrind-custom"]
typed = [e for e in ev if e["name"] == "typed event" and e["args"] == {"type": 7, "data": "valgrind-typed!"}]
assert len(custom) == want and len(typed) == want and len(ev) == 2 * want, ev
PY

# FDR: a snapshot after the threads end holds every call, and its metadata
# (one custom event more); the final log as before
memcheck snap XRAY_OPTIONS="xray_logfile_base=snap- verbosity=0" \
  ./traced xray-fdr "func_duration_threshold_us=0" "$CALLS" snapshot
snap=$(sed -n 's/^snapshot //p' snap.out)
expect_eq "snapshot: log" "$(want_yaml "$ev" 2 1)" "$(yaml_calls "$snap" snap)"
expect_eq "snapshot: final log" "$(want_yaml "$ev" 2)" "$(yaml_calls "$(only_file "snap-traced.??????")" snap)"

# profiling: binary profile, folded stacks (calls), report, pprof
memcheck prof XRAY_OPTIONS="xray_logfile_base=prof- verbosity=0" \
  ./traced xray-profiling "profiling_output=xray+folded+report+pprof:folded_value=calls" "$CALLS"
prof=$(only_file "prof-traced.??????")
want_paths="worker 2|worker;mid 400|worker;mid;custom_event 20|worker;mid;leaf 800|worker;mid;typed_event 20"
expect_eq "profiling: folded" "$want_paths" "$(sort "$prof.folded" | paste -sd'|' -)"
expect_eq "profiling: report" "custom_event:20 leaf:800 mid:400 typed_event:20 worker:2" \
  "$(grep -v '^#' "$prof.txt" | awk '{ print $NF ":" $4 }' | sort | paste -sd' ' -)"
expect_eq "profiling: binary profile" "$want_paths" \
  "$(python3 "$XRAY_SRC/test/integration/profiling/profile_reader.py" --merge "$prof" |
     awk -v ids=prof.out 'BEGIN { while ((getline l < ids) > 0) { split(l, f, " "); if (f[1] == "id") name[f[3]] = f[2] } }
       { n = split($1, p, ";"); s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? ";" : "") name[p[i]]; print s, $2 }' |
     sort | paste -sd'|' -)"
if command -v go >/dev/null; then
  expect_eq "profiling: pprof" "$want_paths" \
    "$(python3 "$XRAY_SRC/test/integration/profiling/pprof_read.py" traces "$prof.pb" calls | sort | paste -sd'|' -)"
else
  note "go not found: the pprof profile is not read"
fi

# callgrind (test/bench's counts): FDR runs to the end, the log is whole,
# and callgrind saw the runtime's handler
rc=0
XRAY_OPTIONS="xray_logfile_base=cg- verbosity=0" valgrind --tool=callgrind --callgrind-out-file=cg.callgrind \
  ./traced xray-fdr "func_duration_threshold_us=0" "$CALLS" >cg.out 2>cg.err || rc=$?
[ $rc = 0 ] || { cat cg.err >&2; fail "callgrind: exit status $rc"; }
expect_eq "callgrind: log" "$(want_yaml "$ev" 2)" "$(yaml_calls "$(only_file "cg-traced.??????")" cg)"
grep -q -E '^c?fn=.*xr_fdr_handle' cg.callgrind || fail "callgrind counted no FDR handler"
echo "modes: ok"
