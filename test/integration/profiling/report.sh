# The report's top entry by local time, its call counts, and no xray file
# when only the report is asked for.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cc hot "$TEST_SRC_DIR/hot.c"
./hot "profiling_output=report report_top=2" || fail "hot exited $?"
f=$(only_file "xray-log.hot.*.txt")
[ ! -e "${f%.txt}" ] || fail "xray file written though not asked for"
cat "$f" >&2
rows=$(grep -v '^#' "$f")
expect_eq "rows (report_top=2)" 2 "$(echo "$rows" | wc -l)"
first=$(echo "$rows" | head -1)
expect_eq "top function" spin "$(echo "$first" | awk '{print $NF}')"
expect_eq "spin calls" 1 "$(echo "$first" | awk '{print $4}')"
grep -q '^# 1 more function(s) not shown$' "$f" || fail "missing 'more functions' line"
rm -f xray-log.hot.*
./hot "profiling_output=report" || fail "hot exited $?"
f=$(only_file "xray-log.hot.*.txt")
light=$(grep -v '^#' "$f" | awk '$NF == "light"')
expect_eq "light calls" 100 "$(echo "$light" | awk '{print $4}')"
grep -q '^# not recorded: 0 call(s) out of memory, 0 call(s) too deep' "$f" || fail "loss line"
echo "report: ok"
