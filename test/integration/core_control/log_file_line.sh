# "==PID==XRay: Log file in '<path>'" at verbosity >= 1, as compiler-rt says
# it (scripts grep for it): basic mode when it starts, whether or not a
# record follows; FDR and profiling when they write their file. A basic run
# that kept no record says it removed its (header-only) file and leaves none;
# every announced file that remains is read by llvm-xray.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
need_llvm_xray
xr_cc prog "$TEST_SRC_DIR/log_file_line.c"

# run NAME OPTIONS...: runs prog, sets pid, path (the announced file); on
# one CPU, since a call that changed CPU is never erased (the 60 s cases)
run() {
  local name=$1; shift
  xr_pinned env "$@" XRAY_OPTIONS="patch_premain=true verbosity=1 xray_logfile_base=$name- $MODE" \
    ./prog >"$name.out" 2>"$name.err" || fail "$name: exited $?"
  expect_eq "$name: program output" "done" "$(cat "$name.out")"
  expect_eq "$name: 'Log file in' lines" 1 "$(grep -c "XRay: Log file in '" "$name.err")"
  pid=$(sed -n "s/^==\([0-9]*\)==XRay: Log file in '.*'$/\1/p" "$name.err")
  path=$(sed -n "s/^==[0-9]*==XRay: Log file in '\(.*\)'$/\1/p" "$name.err")
  [[ "$path" == "$name-prog."?????? ]] || fail "$name: announced path '$path'"
}

# Basic, every call filtered (a 60 s threshold): announced, then removed.
MODE=xray_mode=xray-basic
run basic_none XRAY_BASIC_OPTIONS=func_duration_threshold_us=60000000
grep -qx "==$pid==XRay: basic mode: removed '$path': no record was written (llvm-xray cannot read a log without records)" basic_none.err ||
  { cat basic_none.err >&2; fail "basic_none: removal not said"; }
[ ! -e "$path" ] || fail "basic_none: '$path' left behind"
# At verbosity 0: neither line, no file.
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=quiet-" \
XRAY_BASIC_OPTIONS=func_duration_threshold_us=60000000 xr_pinned ./prog >/dev/null 2>quiet.err
expect_eq "verbosity 0: stderr" "" "$(cat quiet.err)"
expect_eq "verbosity 0: files" "" "$(ls quiet-* 2>/dev/null)"

# Basic, every call kept: the announced file holds them.
run basic_all XRAY_BASIC_OPTIONS=func_duration_threshold_us=0
expect_eq "basic_all: records" 20 "$("$LLVM_XRAY" convert -f yaml "$path" | grep -c 'kind: function-')"
grep -q "removed" basic_all.err && fail "basic_all: said it removed a file"

# FDR, every call erased: announced at flush, a file llvm-xray reads.
MODE=xray_mode=xray-fdr
run fdr_none XRAY_FDR_OPTIONS=func_duration_threshold_us=60000000
"$LLVM_XRAY" convert -f yaml "$path" >/dev/null || fail "fdr_none: llvm-xray cannot read '$path'"
run fdr_all XRAY_FDR_OPTIONS=func_duration_threshold_us=0
expect_eq "fdr_all: records" 20 "$("$LLVM_XRAY" convert -f yaml "$path" | grep -c 'kind: function-')"

# Profiling: announced at flush.
MODE=xray_mode=xray-profiling
run prof
[ -s "$path" ] || fail "prof: '$path' is empty"
exit 0
