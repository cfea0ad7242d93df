# The three modes steered from outside, with exact counts: a program
# started with xray_control=true and nothing else; xrayctl patches by name,
# starts a mode, the program makes a known number of calls on four
# threads, xrayctl stops (or snapshots) and prints the file, which holds
# exactly those calls; after unpatch, calls are not recorded.
source "$TEST_SRC_DIR/control_lib.sh"
need_llvm_xray
build_driven
N=1000 # calls of alpha's caller per thread: alpha 2N, beta N per thread, x4 threads

start_driven p
expect_eq "list" "$PID driven - -" "$(ctl list)"
expect_eq "nothing patched at start" "patched by control: 0" "$(ctl status $PID | grep '^patched')"
total=$(ctl status $PID | sed -n 's/^functions: //p')
expect_eq "no function patched at start" "functions patched: 0 / $total" "$(ctl status $PID | grep '^functions patched')"

note "basic"
expect_eq "patch matches" 2 "$(ctl patch $PID 'alpha;beta')"
expect_eq "two functions patched" "functions patched: 2 / $total" "$(ctl status $PID | grep '^functions patched')"
expect_eq "start" "xray-basic initialized" "$(ctl start $PID basic func_duration_threshold_us=0)"
ctl_rc 1 start $PID fdr >/dev/null # a mode runs: refused, exit 1
grep -q "stop it first" ctl.err || fail "refusal not explained: $(cat ctl.err)"
tell "run $N"
# 12N calls (alpha 8N, beta 4N), two records each, handed over at thread exit
expect_eq "basic events" "events: $((24 * N)) recorded, 0 dropped" "$(ctl status $PID | grep '^events')"
log=$(ctl stop $PID)
{ [ "$(echo "$log" | wc -l)" -eq 1 ] && [ "${log:0:1}" = / ] && [ -f "$log" ]; } || fail "stop printed [$log]"
expect_eq "basic counts" "alpha $((8 * N))
beta $((4 * N))" "$(account_counts driven "$log")"
expect_eq "unpatch matches" 2 "$(ctl unpatch $PID 'alpha;beta')"
expect_eq "none patched after unpatch" "functions patched: 0 / $total" "$(ctl status $PID | grep '^functions patched')"
ctl start $PID basic func_duration_threshold_us=0 >/dev/null
tell "run $N"
# basic removes a log that kept no record: stop names no file
expect_eq "no call recorded after unpatch" "" "$(ctl stop $PID)"

note "fdr: snapshot, then stop"
ctl patch $PID '*' >/dev/null
expect_eq "every function patched" "functions patched: $total / $total" "$(ctl status $PID | grep '^functions patched')"
ctl start $PID xray-fdr func_duration_threshold_us=0 >/dev/null
tell "run $N"
expect_eq "fdr events" "events: n/a recorded, 0 dropped" "$(ctl status $PID | grep '^events')"
snap=$(ctl snapshot $PID)
[ -f "$snap" ] || fail "snapshot printed [$snap]"
expect_eq "snapshot entries" "alpha $((8 * N))
beta $((4 * N))
worker 4" "$(yaml_entries driven "$snap" | grep -v '^main ')"
tell "run $N"
flushed=$(ctl flush $PID) # FDR: flush = a snapshot, recording goes on
{ [ -f "$flushed" ] && [ "$flushed" != "$snap" ]; } || fail "flush printed [$flushed]"
log=$(ctl stop $PID)
expect_eq "fdr counts after stop" "alpha $((16 * N))
beta $((8 * N))
worker 8" "$(account_counts driven "$log")"
ctl unpatch $PID '*' >/dev/null

note "profiling"
ctl patch $PID 'alpha;beta' >/dev/null
ctl start $PID profiling 'profiling_output=folded+pprof folded_value=calls' >/dev/null
ctl_rc 1 flush $PID >/dev/null # profiling cannot write without stopping
tell "run $N"
expect_eq "profiling events" "events: n/a recorded, 0 dropped" "$(ctl status $PID | grep '^events')"
files=$(ctl stop $PID)
folded=$(echo "$files" | grep '\.folded$')
pprof=$(echo "$files" | grep '\.pb$' || true)
[ -f "$folded" ] || fail "no folded file in [$files]"
expect_eq "folded calls" "alpha $((4 * 2 * N - 4 * N))
beta $((4 * N))
beta;alpha $((4 * N))" "$(sort "$folded")"
[ -f "$pprof" ] || fail "no pprof file in [$files]"
if command -v go >/dev/null && command -v python3 >/dev/null; then
  # the real pprof client (the profiling area's reader of it)
  expect_eq "pprof calls" "alpha $((4 * N))
beta $((4 * N))
beta;alpha $((4 * N))" "$(python3 "$TEST_SRC_DIR/../profiling/pprof_read.py" traces "$pprof" calls | sort)"
else
  note "go not found: pprof read for names only"
  { grep -q alpha "$pprof" && grep -q beta "$pprof"; } || fail "pprof does not name the functions"
fi
ctl unpatch $PID '*' >/dev/null

note "exit statuses"
ctl_rc 2 >/dev/null
ctl_rc 2 frobnicate $PID >/dev/null
ctl_rc 2 start $PID nosuchmode >/dev/null
ctl_rc 2 patch $PID >/dev/null
ctl_rc 1 stop $PID >/dev/null # nothing runs
ctl_rc 1 snapshot $PID >/dev/null
ctl_rc 3 status 999999999 >/dev/null
ctl_rc 3 status 1 >/dev/null # a process without a socket
"$XRAYCTL" --help | grep -q "^  record PID" || fail "--help lacks record"

note "versions: xrayctl's, and the program's runtime in status"
version=$(xr_version)
expect_eq "xrayctl --version" "xrayctl $version" "$("$XRAYCTL" --version)"
expect_eq "xrayctl -V" "xrayctl $version" "$("$XRAYCTL" -V)"
"$XRAYCTL" --help | grep -q "^  --version, -V " || fail "--help lacks --version"
expect_eq "status names the runtime" "runtime version: $version" \
  "$(ctl status $PID | grep '^runtime version')"
expect_eq "state at the end" "$PID driven xray-profiling uninitialized" "$(ctl list)"
quit_driven
[ ! -e "$CTL_DIR/$PID.sock" ] || fail "socket left after a normal exit"
expect_eq "list after exit" "" "$(ctl list)"
