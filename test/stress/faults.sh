# Faults (faults.c): unwritable log path, RLIMIT_FSIZE with SIGXFSZ
# ignored, FDR with too few buffers for many threads, empty runs, a handler
# removed while threads are inside it, finalize while threads run.
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
      { cat err.txt >&2; fail "$mode: exit status $? with base $base"; }
    [ "$out" = "$want" ] || fail "$mode: output [$out] with base $base"
    grep -q . err.txt || fail "$mode: nothing reported for the unwritable $base"
  done

  note "$mode: RLIMIT_FSIZE 64 kB with SIGXFSZ ignored"
  rm -rf fsize && mkdir fsize
  out=$( (trap '' XFSZ; ulimit -f 64; env "${mode_env[@]}" "$(env_for "$mode" fsize/x-)" \
          ./faults work "$BIG") 2>fsize-err.txt) ||
    { cat fsize-err.txt >&2; fail "$mode: exit status $? under RLIMIT_FSIZE"; }
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
  readable "$mode" fin-$mode-*
done

if have_mode xray-fdr; then
  note "xray-fdr: 2 buffers of 1 kB for 16 threads"
  XRAY_OPTIONS="xray_logfile_base=few- verbosity=1" \
    XRAY_STRESS_CONFIG="buffer_max=2 buffer_size=1024 func_duration_threshold_us=0 grace_period_ms=0" \
    run log.few ./faults threads xray-fdr 16
  grep -Eq '[1-9][0-9]* events dropped' log.few || fail "FDR did not report the events it dropped: $(cat log.few)"
  readable xray-fdr few-*
fi
echo "faults: ok"
