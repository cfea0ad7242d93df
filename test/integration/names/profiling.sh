# The profiling report and folded stacks of the C++ program show demangled
# names (folded: blanks become '_', as flamegraph tools need), here with
# xray_patch choosing the functions; the C twin shows its plain names.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cxx prog "$TEST_SRC_DIR/names_cxx.cc"
XRAY_OPTIONS="patch_premain=true xray_mode=xray-profiling xray_patch='*parser::*;work()'" \
  XRAY_PROFILING_OPTIONS="profiling_output=folded+report folded_value=calls" \
  ./prog work || fail "exited $?"
cat >want.folded <<'END'
work() 1
work();parser::lex(int) 1
work();parser::lex(char_const*) 1
work();int_parser::parse<int>(int) 1
work();double_parser::parse<double>(double) 1
work();parser::Node::eval(int)_const 1
END
expect_file_eq "C++ folded stacks" want.folded "$(only_file 'xray-log.prog.*.folded')"
# report rows: the function column (after 8 numeric columns), sorted
grep -v '^#' "$(only_file 'xray-log.prog.*.txt')" |
  sed -E 's/^ *([^ ]+ +){7}//' | sort >got.txt
printf '%s\n' 'double parser::parse<double>(double)' 'int parser::parse<int>(int)' \
  'parser::Node::eval(int) const' 'parser::lex(char const*)' 'parser::lex(int)' 'work()' |
  sort >want.txt
expect_file_eq "C++ report functions" want.txt got.txt

rm -f xray-log.*
xr_cc prog_c "$TEST_SRC_DIR/names_c.c"
XRAY_OPTIONS="patch_premain=true xray_mode=xray-profiling xray_skip='lua_*'" \
  XRAY_PROFILING_OPTIONS="profiling_output=folded folded_value=calls" \
  ./prog_c work || fail "C: exited $?"
sort "$(only_file 'xray-log.prog_c.*.folded')" >got.folded
printf '%s\n' 'work 1' 'work;lex_token 1' 'work;parse_expr 1' 'work;parse_term 1' 'work;scan 1' |
  sort >want.folded
expect_file_eq "C folded stacks" want.folded got.folded
echo "profiling: ok"
