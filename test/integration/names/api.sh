# Patching by pattern at run time (__xray_patch_matching /
# __xray_unpatch_matching): exact event sequences through a handler that
# names each event with __xray_symbolize from inside the handler (the first
# call loads the names there); the statuses of bad arguments. Then the C
# twin: the same API without a C++ runtime (weak __cxa_demangle unresolved,
# no libstdc++ needed to link) and mangling-free names.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cxx prog_cxx "$TEST_SRC_DIR/names_cxx.cc"
./prog_cxx api '*parser::*' 'parser::lex(int)' >out.txt 2>err.txt ||
  fail "api exited $?: $(cat err.txt)"
expect_file_eq "C++ event sequence" "$TEST_SRC_DIR/api_cxx.expected" out.txt
[ ! -s err.txt ] || fail "unexpected stderr: $(cat err.txt)"

# The C program links with the C driver alone: no libstdc++ on the line.
xr_cc prog_c "$TEST_SRC_DIR/names_c.c"
readelf_tool=${XRAY_READELF:-readelf}
if command -v "$readelf_tool" >/dev/null; then
  ! "$readelf_tool" -d prog_c | grep -q 'NEEDED.*libstdc++' ||
    fail "the C program needs libstdc++"
  # __cxa_demangle, if present at all, is an unresolved weak reference
  "$readelf_tool" -s -W prog_c | awk '$8 == "__cxa_demangle" && !($5 == "WEAK" && $7 == "UND") { bad = 1 } END { exit bad }' ||
    fail "__cxa_demangle is not a weak undefined reference in the C program"
fi
./prog_c api 'lua_*' 'lua_g*' >out.txt 2>err.txt || fail "C api exited $?: $(cat err.txt)"
expect_file_eq "C event sequence" "$TEST_SRC_DIR/api_c.expected" out.txt
echo "api: ok"
