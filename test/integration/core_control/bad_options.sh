# Bad XRAY_OPTIONS: a message on stderr per bad token, the program still runs
# to the end with its normal output and exit status (compiler-rt exits 1).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"

xr_cc prog "$TEST_SRC_DIR/quiet_prog.c"
env -u XRAY_OPTIONS ./prog >want.out 2>want.err

n=0
# check OPTIONS LINES PATTERN: stdout unchanged, exactly LINES XRay lines,
# one of which matches PATTERN (grep -E)
check() {
  n=$((n + 1))
  XRAY_OPTIONS=$1 ./prog >got.$n.out 2>got.$n.err || fail "[$1]: exit status $?"
  cmp -s want.out got.$n.out || fail "[$1]: stdout changed"
  local xray_lines
  xray_lines=$(grep -c '^==[0-9]*==XRay: ' got.$n.err || true)
  expect_eq "[$1]: XRay message lines" "$2" "$xray_lines"
  grep -v '^==[0-9]*==XRay: ' got.$n.err >rest.$n.err || true
  cmp -s want.err rest.$n.err || fail "[$1]: program's own stderr changed"
  grep -Eq "$3" got.$n.err || fail "[$1]: no message matching /$3/: $(cat got.$n.err)"
}

# Each process (parent and child) reports once: 2 lines per bad token.
check "verbosity=abc" 2 "XRAY_OPTIONS: bad value 'abc' for int option 'verbosity': expected a decimal integer; keeping '0'$"
check "patch_premain" 2 "XRAY_OPTIONS: expected '=' after 'patch_premain'; ignored$"
check "patch_premain=maybe" 2 "bad value 'maybe' for bool option 'patch_premain'"
check "xray_page_size_override=-4096" 2 "bad value '-4096' for uptr option 'xray_page_size_override': out of range"
check "xray_page_size_override=99999999999999999999999" 2 "out of range"
check "xray_naive_log_max_stack_depth=0x40" 2 "expected a decimal integer"
check "verbosity=" 2 "empty value"
check "xray_mode='xray-basic" 2 "unterminated single quote in the value of 'xray_mode'"
check $'xray_logfile_base=\xff\xfe' 2 "bad value '.xff.xfe' for string option 'xray_logfile_base': control characters or invalid UTF-8"
check "xray_logfile_base=$(head -c 10240 /dev/zero | tr '\0' x)" 2 "too long \\(10240 bytes, at most 4095\\)"
check "$(head -c 10240 /dev/zero | tr '\0' y)" 2 "expected '=' after 'yyyy"
check "verbosity=abc,,patch_premain=maybe::unknown_flag=1 xray_naive_log_thread_buffer_size=1e3" 6 "keeping '1024'"
# Unknown flags alone are silent at verbosity 0.
XRAY_OPTIONS="log_path=stderr symbolize=0" ./prog >u.out 2>u.err
{ cmp -s want.out u.out && cmp -s want.err u.err; } || fail "unknown flags were not silent"

! grep -h "Unable to determine CPU frequency" ./*.err || fail "CPU frequency message"
echo PASS
