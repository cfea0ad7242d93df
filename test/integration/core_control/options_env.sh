# XRAY_OPTIONS parsed at start-up, __xray_default_options() honoured, the
# environment winning, unknown modes reported without stopping the program.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"

xr_cc plain "$TEST_SRC_DIR/options_env.c"
xr_cc defaults "$TEST_SRC_DIR/options_env.c" -DWITH_DEFAULTS

# run NAME PROGRAM [XRAY_OPTIONS]: stdout to NAME.out, stderr to NAME.err
run() {
  local name=$1 prog=$2
  if [ $# -ge 3 ]; then
    XRAY_OPTIONS=$3 "./$prog" >"$name.out" 2>"$name.err" || fail "$name: exit status $?"
  else
    env -u XRAY_OPTIONS "./$prog" >"$name.out" 2>"$name.err" || fail "$name: exit status $?"
  fi
}
started="mode counter, inits 1, config '', events 3"

run none plain
expect_eq "no options" "mode (none), inits 0, config (none), events 0" "$(cat none.out)"
expect_file_eq "no options: stderr" /dev/null none.err

run env plain "patch_premain=true:xray_mode=counter"
expect_eq "env starts the mode" "$started" "$(cat env.out)"
expect_file_eq "env: stderr" /dev/null env.err

run sep plain " ,patch_premain=1,, xray_mode='counter'  "
expect_eq "separators and quotes" "$started" "$(cat sep.out)"

run select_only plain "xray_mode=counter"
expect_eq "without patch_premain: selected only" "mode counter, inits 0, config (none), events 0" "$(cat select_only.out)"

run program_defaults defaults
expect_eq "__xray_default_options()" "$started" "$(cat program_defaults.out)"
expect_file_eq "defaults: stderr" /dev/null program_defaults.err

run env_wins defaults "patch_premain=false"
expect_eq "env wins over the program's defaults" "mode counter, inits 0, config (none), events 0" "$(cat env_wins.out)"

run env_clears_mode defaults "xray_mode="
expect_eq "env empties xray_mode" "mode (none), inits 0, config (none), events 0" "$(cat env_clears_mode.out)"

run unknown_mode plain "xray_mode=no-such-mode patch_premain=true"
expect_eq "unknown mode: program runs" "mode (none), inits 0, config (none), events 0" "$(cat unknown_mode.out)"
expect_eq "unknown mode: one message" 1 "$(wc -l <unknown_mode.err)"
grep -q "^==[0-9]*==XRay: XRAY_OPTIONS: unknown xray_mode 'no-such-mode' (registered: .*counter); no mode started$" unknown_mode.err ||
  fail "unknown mode message: $(cat unknown_mode.err)"

run verbose plain "verbosity=1 xray_mode=counter log_path=stderr"
expect_eq "verbosity=1: same output" "mode counter, inits 0, config (none), events 0" "$(cat verbose.out)"
grep -q "ignoring 1 unknown flag(s): 'log_path'" verbose.err || fail "verbosity=1: no unknown-flag note: $(cat verbose.err)"
grep -q "nothing is recorded until the program calls __xray_patch()" verbose.err || fail "verbosity=1: no hint: $(cat verbose.err)"

run help plain "help=1"
expect_eq "help: program output" "mode (none), inits 0, config (none), events 0" "$(cat help.out)"
expect_eq "help: header + 20 flags" 21 "$(wc -l <help.err)"
grep -q "  xray_logfile_base (string, default 'xray-log.', current 'xray-log.'): " help.err || fail "help: $(cat help.err)"

# The environment is read in .preinit_array also in -no-pie and -static
# programs (environ is set there in the latter; envp is used in both).
xr_cc nopie "$TEST_SRC_DIR/options_env.c" -no-pie
run nopie nopie "patch_premain=true:xray_mode=counter"
expect_eq "-no-pie" "$started" "$(cat nopie.out)"
if xr_cc static "$TEST_SRC_DIR/options_env.c" -static 2>/dev/null; then
  run static static "patch_premain=true:xray_mode=counter"
  expect_eq "-static" "$started" "$(cat static.out)"
else
  note "no static libc: -static case skipped"
fi

! grep -h "Unable to determine CPU frequency" ./*.err || fail "CPU frequency message"
echo PASS
