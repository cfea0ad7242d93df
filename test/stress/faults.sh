# Faults (faults.c): unwritable log path, RLIMIT_FSIZE with SIGXFSZ
# ignored, FDR with too few buffers for many threads, empty runs, a handler
# removed while threads are inside it, finalize while threads run.
# shellcheck source=../integration/lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/stress_lib.sh"
build faults
BIG=$((2000000 / TSAN_SLOWDOWN)) # calls: several MB of trace, far over the limit
want=$(./faults work 200000) # run without XRay options: the reference output

# readable MODE FILE...: every file written is complete.
readable() {
  local mode=$1 f; shift
  for f in "$@"; do
    [ -e "$f" ] || continue
    case $f in *.csv | *.err | *.folded | *.txt) continue ;; esac
    if [ "$mode" = xray-profiling ]; then check_profile "$f"; else check_trace "$f" ./faults >/dev/null; fi
  done
}
env_for() { # MODE BASE: environment that starts MODE at start-up
  echo "XRAY_OPTIONS=patch_premain=true xray_mode=$1 xray_logfile_base=$2"
}
mode_env=(XRAY_BASIC_OPTIONS=func_duration_threshold_us=0
          "XRAY_FDR_OPTIONS=func_duration_threshold_us=0 grace_period_ms=0"
          XRAY_PROFILING_OPTIONS=grace_period_ms=0)

note "handler removed while threads are inside it"
run remove.log ./faults remove
cat remove.log

: >not-a-dir
for mode in "${MODES[@]}"; do
  have_mode "$mode" || continue
  note "$mode: unwritable log path"
  for base in not-a-dir/x- missing-dir/sub/x-; do
    out=$(env "${mode_env[@]}" "$(env_for "$mode" "$base")" ./faults work 200000 2>err.txt) ||
      { exit_status=$?; cat err.txt >&2; fail "$mode: exit status $exit_status with base $base"; }
    [ "$out" = "$want" ] || fail "$mode: output [$out] with base $base"
    grep -q . err.txt || fail "$mode: nothing reported for the unwritable $base"
  done

  note "$mode: RLIMIT_FSIZE 64 kB with SIGXFSZ ignored"
  rm -rf fsize && mkdir fsize
  out=$( (trap '' XFSZ; ulimit -f 64; env "${mode_env[@]}" "$(env_for "$mode" fsize/x-)" \
          ./faults work "$BIG") 2>fsize-err.txt) ||
    { exit_status=$?; cat fsize-err.txt >&2; fail "$mode: exit status $exit_status under RLIMIT_FSIZE"; }
  [ "$out" = "$(./faults work "$BIG")" ] || fail "$mode: output [$out] under RLIMIT_FSIZE"
  if [ "$mode" != xray-profiling ]; then
    grep -q . fsize-err.txt || fail "$mode: the failed write was not reported"
  fi
  readable "$mode" fsize/*

  note "$mode: empty run"
  rm -f empty-*
  XRAY_OPTIONS="xray_logfile_base=empty-" run "log.empty-$mode" ./faults empty "$mode"
  readable "$mode" empty-*

  note "$mode: finalize and flush while threads run"
  XRAY_OPTIONS="xray_logfile_base=fin-$mode-" run "log.fin-$mode" ./faults finalize "$mode"
  readable "$mode" "fin-$mode"-*
done

if have_mode xray-fdr; then
  # FDR with fewer buffers than threads. A thread holds the buffer it took
  # until the buffer is full or the thread exits; an event finding every
  # buffer held is dropped (counted), a buffer taken again loses its old data
  # (counted as overwritten). Which of the two happens under churn depends on
  # the scheduler: threads that run one after another (one core, a loaded
  # machine) each release their buffer at exit and never find both held, so
  # nothing is dropped and everything lost is overwritten. Hence two cases.
  few_config="buffer_max=2 buffer_size=1024 func_duration_threshold_us=0 grace_period_ms=0"
  report_re='xray-fdr: ([0-9]+) events dropped \(no free buffer or too large\), ([0-9]+) nested events dropped .*, ([0-9]+) buffers overwritten'

  note "xray-fdr: 2 buffers for 16 threads that all hold one at the flush"
  # Each thread makes one call (6 events) and waits while the log is
  # finalized and flushed: exactly 2 threads took a buffer, the other 14
  # dropped all 6 events each (84), nothing was overwritten, and the file
  # holds the 2 threads' calls, complete.
  rm -f hold-*
  XRAY_OPTIONS="xray_logfile_base=hold- verbosity=1" XRAY_STRESS_CONFIG="$few_config" \
    run log.hold ./faults hold xray-fdr 16
  [[ $(cat log.hold) =~ $report_re ]] || fail "FDR did not report its losses: $(cat log.hold)"
  expect_eq "hold: events dropped, nested, buffers overwritten" "84 0 0" \
    "${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}"
  exact_counts "$(only_file 'hold-*')" ./faults
  # per (thread, function): "enters exits"; mid once, leaf twice per thread
  expect_eq "hold: calls in the log" "1 1,1 1,2 2,2 2" \
    "$(awk '{ print $3, $4 }' hold-*.counts | sort | paste -sd,)"
  expect_eq "hold: threads in the log" 2 "$(awk '{ print $1 }' hold-*.counts | sort -u | wc -l)"

  note "xray-fdr: 2 buffers of 1 kB for 16 threads running"
  XRAY_OPTIONS="xray_logfile_base=few- verbosity=1" XRAY_STRESS_CONFIG="$few_config" \
    run log.few ./faults threads xray-fdr 16
  [[ $(cat log.few) =~ $report_re ]] || fail "FDR did not report its losses: $(cat log.few)"
  dropped=${BASH_REMATCH[1]} overwritten=${BASH_REMATCH[3]}
  # The accounting that holds whatever the scheduling: every one of the
  # 16 x 20000 x 6 events was either dropped or written into one fill of a
  # buffer; the fills are the overwritten ones plus at most the 2 kept, and
  # each holds at least one event (the one that took the buffer) and at most
  # 1024 / 8 = 128 (function records are 8 bytes). A drop or an overwrite
  # that went uncounted breaks the second inequality.
  events=$((16 * 20000 * 6))
  [ $((dropped + overwritten)) -le $events ] ||
    fail "few: more losses counted ($dropped dropped, $overwritten overwritten) than events ($events)"
  [ $((dropped + (overwritten + 2) * 128)) -ge $events ] ||
    fail "few: $events events, but only $dropped dropped and $overwritten buffers overwritten reported"
  note "few: $dropped events dropped, $overwritten buffers overwritten"
  readable xray-fdr few-*
fi
echo "faults: ok"
