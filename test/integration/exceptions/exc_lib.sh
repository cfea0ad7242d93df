# Helpers of the tests of calls that an exception or longjmp skips
# (sourced after lib.sh). Each test runs its program in basic, FDR and
# profiling mode, every function patched and then a few chosen by name,
# and states what each mode must give as calls.py's lines:
#   name calls=N exit=N tail=N unwound=N open=N
need_llvm_xray
command -v python3 >/dev/null || skip "python3 not found"

# exc_calls ARGS...: calls.py (its usage says what it prints and checks).
exc_calls() {
  LLVM_XRAY="$LLVM_XRAY" python3 "$TEST_SRC_DIR/calls.py" "$@"
}

# exc_run MODE SELECT CMD...: runs CMD traced in MODE (basic, fdr,
# profiling), started from the environment: every instrumented function
# patched, or with SELECT only those its xray_patch patterns choose. Every
# call is kept (threshold 0); basic and FDR also write the Chrome JSON,
# profiling its folded stacks with call counts. EXC_BASIC_MORE,
# EXC_FDR_MORE, EXC_PROFILING_MORE: more options of that mode. CMD's
# output goes to MODE.out, the runtime's lines (verbosity=1) to MODE.err;
# EXC_LABEL names the run in messages.
exc_run() {
  local mode=$1 select=$2 opts="patch_premain=true xray_mode=xray-$1 verbosity=1"
  shift 2
  [ -z "$select" ] || opts+=" xray_patch='$select'"
  EXC_LABEL="$mode${select:+ (xray_patch=$select)}"
  rm -f xray-log.*
  XRAY_OPTIONS="$opts" \
    XRAY_BASIC_OPTIONS="func_duration_threshold_us=0 trace_output=xray+chrome ${EXC_BASIC_MORE:-}" \
    XRAY_FDR_OPTIONS="func_duration_threshold_us=0 trace_output=xray+chrome ${EXC_FDR_MORE:-}" \
    XRAY_PROFILING_OPTIONS="profiling_output=xray+folded folded_value=calls ${EXC_PROFILING_MORE:-}" \
    "$@" >"$mode.out" 2>"$mode.err" ||
    { local status=$?; cat "$mode.err" >&2; fail "$EXC_LABEL: $* exited $status"; }
}

# exc_stack_depth PROG LOG: the most calls on one stack that llvm-xray
# stack finds in LOG (it must read it without a word on stderr).
exc_stack_depth() {
  "$LLVM_XRAY" stack -instr_map "$1" "$2" >stack.txt 2>stack.err ||
    fail "$EXC_LABEL: llvm-xray stack rejects $2: $(head -c 300 stack.err)"
  [ ! -s stack.err ] || fail "$EXC_LABEL: llvm-xray stack on $2 says: $(head -c 300 stack.err)"
  awk '/^#[0-9]+ / { n = substr($1, 2) + 1; if (n > max) max = n } END { print max + 0 }' stack.txt
}

# exc_check_trace MODE PROG LOG NAMES DEPTH WANT: the basic or FDR log LOG
# of PROG (ids named by NAMES: PROG, or the log's .map) and its Chrome
# JSON LOG.json hold exactly the calls WANT says:
#   - our reader (calls.py) gives WANT: each call closed once, by its exit,
#     its tail exit or an unwound exit at the time of the event that found
#     it gone, the log well nested;
#   - llvm-xray account counts each function's calls;
#   - llvm-xray stack reads it, and no stack is deeper than DEPTH calls
#     (calls left open pile up into deeper and deeper stacks);
#   - the JSON has a slice per call, the unwound ones marked "unwound".
exc_check_trace() {
  local mode=$1 prog=$2 log=$3 names=$4 depth=$5 want=$6 got
  got=$(exc_calls "$mode" "$log" "$names" 2>calls.err) ||
    fail "$EXC_LABEL: calls.py rejects $log: $(cat calls.err)"
  expect_eq "$EXC_LABEL: calls in $log" "$want" "$got"
  "$LLVM_XRAY" account -format=csv -m "$prog" "$log" >account.csv 2>account.err ||
    fail "$EXC_LABEL: llvm-xray account rejects $log: $(head -c 300 account.err)"
  got=$(exc_calls account account.csv "$names") || fail "$EXC_LABEL: reading account.csv"
  expect_eq "$EXC_LABEL: llvm-xray account of $log" \
    "$(awk '{ sub(/calls=/, "", $2); sub(/open=/, "", $6); if ($2 - $6 > 0) print $1, $2 - $6 }' <<<"$want")" \
    "$got"
  got=$(exc_stack_depth "$prog" "$log") || exit 1
  expect_eq "$EXC_LABEL: deepest stack of llvm-xray stack" "$depth" "$got"
  [ -f "$log.json" ] || fail "$EXC_LABEL: no $log.json"
  got=$(exc_calls chrome "$log.json" 2>calls.err) ||
    fail "$EXC_LABEL: $log.json does not parse: $(cat calls.err)"
  expect_eq "$EXC_LABEL: Chrome JSON slices of $log.json" "$(awk '{ print $1, $2, $5, $6 }' <<<"$want")" "$got"
}

# exc_check_said MODE WANT [DROPPED]: the runtime's own counts, at
# verbosity 1, of the last run: basic's calls closed by unwinding (the sum
# of WANT's unwound=) and exits without entries, FDR's exits dropped, both
# DROPPED (default 0); no call open at the end of either log.
exc_check_said() {
  local unwound dropped=${3:-0}
  unwound=$(awk '{ sub(/unwound=/, "", $5); n += $5 } END { print n + 0 }' <<<"$2")
  case $1 in
  basic)
    expect_eq "$EXC_LABEL: basic mode's counts" 1 \
      "$(grep -c "basic mode: 0 nested events dropped, $dropped exits without entries, $unwound calls closed by unwinding, 0 calls open at the end$" basic.err)" ;;
  fdr)
    expect_eq "$EXC_LABEL: FDR's counts at flush" 1 \
      "$(grep -c " $dropped exit(s) dropped whose entries the trace does not hold (the ring overwrote them, or the calls began before recording), 0 call(s) open at the end$" fdr.err)" ;;
  esac
}

# exc_check_profile PROG WANT [BINARY]: the profile of the last profiling
# run of PROG: its folded stacks (call counts) are WANT, in any order; with
# BINARY (the ids are all the executable's), the binary profile read by
# profile_reader.py gives the same paths and counts.
exc_check_profile() {
  local prog=$1 want=$2 folded profile
  want=$(sort <<<"$want")
  folded=$(only_file "xray-log.$prog.*.folded")
  expect_eq "$EXC_LABEL: folded stacks" "$want" "$(sort "$folded")"
  [ $# -gt 2 ] || return 0
  profile=$(only_file "${folded%.folded}")
  expect_eq "$EXC_LABEL: binary profile" "$want" \
    "$(python3 "$XRAY_SRC/test/integration/profiling/profile_reader.py" --llvm-xray "$LLVM_XRAY" \
         --merge --check-times -m "$3" "$profile" | sort)"
}

# exc_check_all PROG NAMES DEPTH SELECT OUT WANT FOLDED CMD...: CMD
# (running PROG) prints OUT in every mode; in basic and FDR mode it gives WANT
# (exc_check_trace, exc_check_said), in profiling mode FOLDED
# (exc_check_profile). SELECT: the xray_patch patterns, or empty for every
# function. NAMES: "map" when the ids are several objects' (the log's .map
# names them; the binary profile is then not read back by id).
exc_check_all() {
  local prog=$1 names=$2 depth=$3 select=$4 out=$5 want=$6 folded=$7 mode log
  shift 7
  for mode in basic fdr; do
    exc_run "$mode" "$select" "$@"
    expect_eq "$EXC_LABEL: program output" "$out" "$(cat "$mode.out")"
    log=$(only_file "xray-log.$prog.??????")
    exc_check_trace "$mode" "$prog" "$log" "$([ "$names" = map ] && echo "$log.map" || echo "$names")" \
      "$depth" "$want"
    exc_check_said "$mode" "$want"
  done
  exc_run profiling "$select" "$@"
  expect_eq "$EXC_LABEL: program output" "$out" "$(cat profiling.out)"
  if [ "$names" = map ]; then
    exc_check_profile "$prog" "$folded"
  else
    exc_check_profile "$prog" "$folded" "$names"
  fi
}
