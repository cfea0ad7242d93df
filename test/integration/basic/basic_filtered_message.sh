# When the duration threshold erased every call (no log written), basic mode
# says so once, with the option that keeps them: at verbosity=1 always, at the
# default verbosity only to a person (stderr is a terminal). Nothing is said
# when the log has records, nor at verbosity 0 to a pipe.
source "$TEST_SRC_DIR/basic_lib.sh"
build short_calls
build threshold

# A 60 s threshold, not the default 5 us: a call can exceed 5 us when the VM
# is preempted in the middle of it, and then one call is kept. On one CPU
# (xr_pinned): a call that changed CPU is never erased.
SAID="basic mode: no log written: all 100 call(s) took less than func_duration_threshold_us=60000000 and were filtered out; set XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 to keep every call"
BASE="patch_premain=true xray_mode=xray-basic"
export XRAY_BASIC_OPTIONS=func_duration_threshold_us=60000000

# lines NAME TEXT: lines of NAME.err containing TEXT
lines() { grep -cF -- "$2" "$1.err" || true; }

# verbosity=1, stderr to a file: said once, exactly.
XRAY_OPTIONS="$BASE verbosity=1 xray_logfile_base=v1-" xr_pinned ./short_calls >v1.out 2>v1.err
expect_eq "verbosity 1: lines with the message" 1 "$(lines v1 "$SAID")"
expect_eq "verbosity 1: files" 0 "$(nfiles 'v1-*')"
expect_eq "verbosity 1: program output" "done" "$(cat v1.out)"

# verbosity 0, stderr to a file (a script, a log): the runtime says nothing.
XRAY_OPTIONS="$BASE xray_logfile_base=v0-" xr_pinned ./short_calls >v0.out 2>v0.err
expect_eq "verbosity 0, piped: runtime lines" 0 "$(lines v0 'XRay:')"

# verbosity 0 on a pseudo-terminal: said once.
if command -v script >/dev/null; then
  XRAY_OPTIONS="$BASE xray_logfile_base=tty-" \
    xr_pinned script -qec ./short_calls /dev/null >tty.err </dev/null ||
    fail "short_calls on a terminal exited with $?"
  expect_eq "terminal: lines with the message" 1 "$(lines tty "$SAID")"
  expect_eq "terminal: program output" 1 "$(lines tty "done")"
else
  echo "script (util-linux) not installed: terminal case not checked" >&2
fi

# Threshold 0 keeps the calls: a log, no message.
XRAY_OPTIONS="$BASE verbosity=1 xray_logfile_base=zero-" \
XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 ./short_calls >/dev/null 2>zero.err
expect_eq "threshold 0: lines with 'filtered out'" 0 "$(lines zero 'filtered out')"
expect_eq "threshold 0: tiny's calls in the log" "tiny 100" \
  "$(counts short_calls "$(only_file 'zero-short_calls.*')")"

# Some calls kept (threshold's 100 ms sleeps): a log, no message.
XRAY_OPTIONS="$BASE verbosity=1 xray_logfile_base=some-" \
XRAY_BASIC_OPTIONS=func_duration_threshold_us=5 ./threshold >/dev/null 2>some.err
expect_eq "some kept: lines with 'filtered out'" 0 "$(lines some 'filtered out')"
expect_eq "some kept: files" 1 "$(nfiles 'some-threshold.*')"
