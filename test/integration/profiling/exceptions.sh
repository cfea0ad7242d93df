# C++ exceptions through profiled functions: exact counts, no growth;
# C++ names demangled.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cxx exceptions "$TEST_SRC_DIR/exceptions.cc"
./exceptions "profiling_output=folded folded_value=calls" || fail "exited $?"
f=$(only_file "xray-log.exceptions.*.folded")
cat > want.folded <<'END'
outer(int) 100
outer(int);a(int) 100
outer(int);a(int);b(int) 100
outer(int);a(int);b(int);c(int) 100
outer(int);a(int);d(int) 100
END
expect_file_eq "folded lines" want.folded "$f"
echo "exceptions: ok"
