# Profiles (xray-profiling's binary file): xrayctl report's calls and self
# time per function equal the runtime's own report beside it (.txt: calls,
# local time in us with 3 decimals, i.e. whole ns), and convert --to folded
# is byte for byte the runtime's .folded (recursion folded: fib). A profile
# has no timeline: --to chrome and --to perfetto are refused (status 2).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/reader_lib.sh"
build_workers
prof=$(run_workers workers prof- xray-profiling "profiling_output=xray+folded+report:report_top=100" 4 500 0)
if [ ! -s "$prof.txt" ] || [ ! -s "$prof.folded" ]; then
  fail "the runtime wrote no .txt or .folded"
fi

# the runtime's report: "calls local_ns name" per function
awk '!/^#/ && NF >= 8 { split($1, us, "."); print $4, us[1] * 1000 + us[2], $8 }' "$prof.txt" |
  sort -k3 >want.txt
"$XRAYCTL" report --csv -m workers "$prof" >report.csv || fail "xrayctl report $prof"
python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r["calls"], r["self_ns"], r["function"])' report.csv | sort -k3 >got.txt
expect_file_eq "calls and self time against the runtime's report" want.txt got.txt
[ "$(wc -l <got.txt)" = 5 ] || fail "5 functions expected: $(cat got.txt)"

"$XRAYCTL" convert "$prof" -m workers --to folded -o got.folded || fail "convert --to folded"
expect_file_eq "folded stacks against the runtime's" "$prof.folded" got.folded
grep -q '^worker;step;fib ' got.folded || fail "no folded fib: $(cat got.folded)"

for to in chrome perfetto; do
  rc=0
  "$XRAYCTL" convert "$prof" --to $to -o refused.out 2>refused.err || rc=$?
  expect_eq "--to $to of a profile: status" 2 $rc
  grep -q "no timeline" refused.err || fail "--to $to: $(cat refused.err)"
  [ ! -e refused.out ] || fail "--to $to left refused.out"
done
echo "profile: ok"
