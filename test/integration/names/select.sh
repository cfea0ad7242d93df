# xray_patch= / xray_skip= select exactly the ids llvm-xray extract
# --symbolize names for the same patterns, alone and together, at start
# (patch_premain) and through __xray_patch(); every id's name round-trips;
# a pattern that matches nothing is named (verbosity 1, or a terminal) and
# the program runs on. Argument: c or cxx (which program).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
need_llvm_xray
lang=$1
if [ "$lang" = cxx ]; then
  xr_cxx prog "$TEST_SRC_DIR/names_cxx.cc"
else
  xr_cc prog "$TEST_SRC_DIR/names_c.c"
fi
"$LLVM_XRAY" extract --symbolize prog >map.yaml

# Every id's name, and back (the program checks __xray_function_ids,
# __xray_symbolize, __xray_for_each_function and truncation itself).
./prog names >names.txt || fail "names mode exited $?"
python3 "$TEST_SRC_DIR/expected_ids.py" --names map.yaml >want_names.txt
expect_file_eq "names vs llvm-xray extract --symbolize" want_names.txt names.txt

# The same from a deleted executable (names read through /proc/self/exe).
cp prog prog_deleted
./prog_deleted unlinked >unlinked.txt || fail "unlinked mode exited $?"
[ ! -e prog_deleted ] || fail "the program did not delete itself"
expect_file_eq "names of a deleted executable" want_names.txt unlinked.txt

# check PATCH SKIP [MODE]: the ids with events equal llvm-xray's selection.
check() {
  local patch=$1 skip=$2 mode=${3:-run} opts="verbosity=1"
  [ "$mode" = run ] && opts+=" patch_premain=true"
  [ -z "$patch" ] || opts+=" xray_patch='$patch'"
  [ -z "$skip" ] || opts+=" xray_skip='$skip'"
  XRAY_OPTIONS="$opts" ./prog "$mode" >out.txt 2>err.txt ||
    fail "[$opts] exited $?: $(cat err.txt)"
  python3 "$TEST_SRC_DIR/expected_ids.py" map.yaml "$patch" "$skip" >want.txt
  grep '^ids:' out.txt >got.txt || fail "[$opts] printed no ids"
  expect_file_eq "ids for [$opts] $mode" want.txt got.txt
  ! grep -q 'matches no instrumented function' err.txt ||
    fail "[$opts]: unexpected message $(cat err.txt)"
  [ "$(cat want.txt)" != "ids:" ] || fail "[$opts] selects nothing: a weak case"
  note "[$opts] $mode: $(cat got.txt)"
}
if [ "$lang" = cxx ]; then
  check '*parser::*' ''                              # templates start with the return type
  check 'parser::lex*' ''                            # both overloads
  check '' '*parser::*'                              # skip alone
  check '*parser::*;top_level(int)' '*lex(int)'      # together, two patterns
  check 'parser::lex(char const?)' ''                # ? and an exact overload
  check '*parser::parse<[id]*' '' run-patch          # a set; through __xray_patch()
  check '*' 'util::*; c_linkage ' run-patch          # blanks around patterns
else
  check 'parse*' ''
  check 'lua_?et*' ''
  check '' 'lua_*;scan'
  check 'lua_*;lex_*' 'lua_set*'
  check 'lua_[!s]*' '' run-patch
  check '*' 'work' run-patch
fi

# A pattern that matches nothing: named at verbosity 1, silent at verbosity
# 0 when stderr is not a terminal, named on a terminal; the program runs on.
# With patch_premain: before main (a shared object loaded later could still
# match); with __xray_patch() from main: at exit. Exact lines, once each.
tail_early="(names: llvm-xray extract --symbolize, or docs/names.md); the program runs on, and shared objects loaded later may still match"
# nomatch_lines OPTIONS MODE: the "matches no" lines of a run, without the pid
nomatch_lines() {
  XRAY_OPTIONS="$1" ./prog "$2" >out.txt 2>err.txt || fail "[$1] $2 exited $?"
  grep 'matches no' err.txt | sed 's/^==[0-9]*==//'
}
expect_eq "nomatch before main" \
  "XRay: XRAY_OPTIONS: xray_patch pattern 'nomatch*' matches no instrumented function of the executable $tail_early" \
  "$(nomatch_lines "patch_premain=true verbosity=1 xray_patch='nomatch*;work*'" run)"
expect_eq "nomatch at exit (__xray_patch from main)" \
  "XRay: XRAY_OPTIONS: xray_skip pattern 'nomatch' matches no instrumented function of the executable (names: llvm-xray extract --symbolize, or docs/names.md)" \
  "$(nomatch_lines "verbosity=1 xray_patch='*' xray_skip='nomatch;work*'" run-patch)"
XRAY_OPTIONS="patch_premain=true xray_skip=nomatch" ./prog run >out.txt 2>err.txt ||
  fail "quiet nomatch run exited $?"
[ ! -s err.txt ] || fail "verbosity 0, not a terminal: unexpected $(cat err.txt)"
if command -v script >/dev/null; then
  XRAY_OPTIONS="patch_premain=true xray_skip=nomatch" \
    script -qec "./prog run" /dev/null >tty.txt </dev/null || fail "tty run exited $?"
  expect_eq "terminal, verbosity 0" \
    "XRay: XRAY_OPTIONS: xray_skip pattern 'nomatch' matches no instrumented function of the executable $tail_early" \
    "$(grep 'matches no' tty.txt | tr -d '\r' | sed 's/^==[0-9]*==//')"
else
  echo "script (util-linux) not installed: terminal case not run"
fi

# Bad patterns through the options: a clear message or none, a defined
# selection, never a crash.
long=$(head -c 10000 /dev/zero | tr '\0' 'a')
XRAY_OPTIONS="patch_premain=true xray_patch=$long" ./prog run >out.txt 2>err.txt ||
  fail "10000-byte pattern: exited $?"
grep -q "too long" err.txt || fail "10000-byte pattern: no message"
for bad in '[' '[]' '[!' "\\" '**?**' ';;;' '[z-a]' "$(printf '\xc3\xa9*')"; do
  XRAY_OPTIONS="patch_premain=true xray_patch='$bad'" ./prog run >out.txt 2>err.txt ||
    fail "pattern [$bad]: exited $?"
  grep -q '^ids:' out.txt || fail "pattern [$bad]: no output"
done
# A stripped executable: .dynsym only (no instrumented function in it), so
# no names: said when a filter asks for them; the program runs on and
# patches what the made-up names fn<id>@0x<address> match.
objcopy_tool=$(command -v llvm-objcopy || command -v objcopy || true)
if [ -n "$objcopy_tool" ]; then
  "$objcopy_tool" --strip-all prog prog_stripped
  XRAY_OPTIONS="patch_premain=true verbosity=1 xray_patch='parse*;lex*'" ./prog_stripped run \
    >out.txt 2>err.txt </dev/null || fail "stripped: exited $?"
  grep -q "function names are unavailable\|have no symbol" err.txt ||
    fail "stripped: no message that names are unavailable: $(cat err.txt)"
  expect_eq "stripped: ids" "ids:" "$(grep '^ids:' out.txt)"
  XRAY_OPTIONS="patch_premain=true xray_patch='fn1@*'" ./prog_stripped run \
    >out.txt 2>/dev/null || fail "stripped fn1: exited $?"
  expect_eq "stripped: made-up name of id 1" "ids: 1" "$(grep '^ids:' out.txt)"
else
  echo "no objcopy: stripped case not run"
fi
echo "select $lang: ok"
