# XRAY_OPTIONS' xray_args: a bad SPEC is said, naming the bad part, at
# verbosity 0; the program runs on (exit 0) and its events are traced as
# without one; a good SPEC unquoted (its ',' and ':' are its own) and
# quoted is in effect as the runtime prints it back.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/surface_lib.sh"
need_llvm_xray
surface_build
status=0
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=log. xray_args=lookup@arg2/s,arg9;scale*@fparg1" \
  XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./surface traced 5 >out.txt 2>err.txt || status=$?
expect_eq "exit status with a bad SPEC" 0 "$status"
expect_eq "the message" "XRay: XRAY_OPTIONS: xray_args: 'arg9' in 'lookup@arg2/s,arg9': $INT_LIMIT; no argument is captured" \
  "$(sed 's/^==[0-9]*==//' err.txt)"
expect_eq "no SPEC in effect" "args: " "$(head -1 out.txt)"
log=$(only_file "log.surface.*")
"$LLVM_XRAY" account -m ./surface -format=csv "$log" >account.csv ||
  fail "llvm-xray account rejects $log"
expect_eq "lookup's calls traced" 5 "$(awk -F, '$NF == "\"lookup\"" { print $2 }' account.csv)"

note "a good SPEC, unquoted and quoted"
XRAY_OPTIONS="xray_args=lookup@arg1,arg2/s;ns::f<int,char>@retval/x verbosity=1" \
  ./surface traced 1 >out.txt 2>err.txt || fail "surface exited $?"
expect_eq "unquoted" "args: lookup@arg1/d,arg2/s;ns::f<int,char>@retval/x" "$(head -1 out.txt)"
[ ! -s err.txt ] || { cat err.txt >&2; fail "a good SPEC was complained about"; }
XRAY_OPTIONS="verbosity=1 xray_args='look* @ arg1 , retval/u ; scale@fparg2/f32' patch_premain=false" \
  ./surface traced 1 >out.txt 2>err.txt || fail "surface exited $?"
expect_eq "quoted" "args: look*@arg1/d,retval/u;scale@fparg2/f32" "$(head -1 out.txt)"
[ ! -s err.txt ] || { cat err.txt >&2; fail "a good SPEC was complained about"; }
