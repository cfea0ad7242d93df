# When func_duration_threshold_us erased every call, so the log has no
# function record at all, flush says so once, naming the option: at
# verbosity=1 always, at the default verbosity only on a terminal. Not said
# when some call was kept or nothing was erased.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog all_short
MSG="all 200 function calls were shorter than func_duration_threshold_us=1000000"
HINT="func_duration_threshold_us=0 keeps every call"
# run NAME OPTS FDR_OPTS ARGS...: stderr to NAME.err (not a terminal); on
# one CPU, since a call that changed CPU is never erased (xr_pinned)
run() {
  local name=$1 opts=$2 fdr=$3; shift 3
  rm -f xray-log.all_short.*
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr $opts" \
    XRAY_FDR_OPTIONS="$fdr" xr_pinned ./all_short "$@" 2>"$name.err" ||
    fail "$name exited with $?"
}
lines() { grep -cF -- "$2" "$1.err" || true; }

run v1 verbosity=1 func_duration_threshold_us=1000000 200
expect_eq "v1: message" 1 "$(lines v1 "$MSG")"
expect_eq "v1: hint" 1 "$(lines v1 "$HINT")"
f=$(only_file "xray-log.all_short.*")
expect_eq "v1: function records in the log" "" "$(fdr_calls "$f" all_short)"

run v0 "" func_duration_threshold_us=1000000 200
expect_eq "v0 piped: runtime lines" 0 "$(lines v0 xray)"

if command -v script >/dev/null; then
  rm -f xray-log.all_short.*
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr" \
    XRAY_FDR_OPTIONS=func_duration_threshold_us=1000000 \
    xr_pinned script -qec "./all_short 200" /dev/null >tty.err </dev/null ||
    fail "tty run exited with $?"
  expect_eq "v0 tty: message" 1 "$(lines tty "$MSG")"
else
  echo "script (util-linux) not installed: terminal case not run"
fi

# slow() waits 300 ms, longer than the 200 ms threshold: it stays, no
# message; the short calls, of nanoseconds, could reach 200 ms only by a
# stall that long, not 1 ms (a preemption under load).
run kept verbosity=1 func_duration_threshold_us=200000 200 slow
expect_eq "kept: message" 0 "$(lines kept "function calls were shorter")"
f=$(only_file "xray-log.all_short.*")
expect_eq "kept: records" "slow:1/1" "$(fdr_calls "$f" all_short)"

run none verbosity=1 func_duration_threshold_us=0 200
expect_eq "threshold 0: message" 0 "$(lines none "function calls were shorter")"
f=$(only_file "xray-log.all_short.*")
expect_eq "threshold 0: records" "leaf:200/200" "$(fdr_calls "$f" all_short)"
echo "erased_message: ok"
