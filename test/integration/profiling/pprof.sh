# profiling_output=pprof read by the real pprof client (go tool pprof): exact
# call counts per call path (-traces) and per function (-top), with
# recursion folded (the default) and not; total time equal to the report's
# within rounding; the executable's mapping with its build-id.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
command -v go >/dev/null || skip "go (golang-go) not found"
command -v python3 >/dev/null || skip "python3 not found"
go tool pprof -h >/dev/null 2>&1 || skip "go tool pprof does not run"
xr_cc pprof_paths "$TEST_SRC_DIR/pprof_paths.c"
read_pprof() { python3 "$TEST_SRC_DIR/pprof_read.py" "$@"; }

note "recursion folded (default): down and even/odd one frame each"
./pprof_paths "profiling_output='pprof,report'" || fail "exited $?"
pb=$(only_file "xray-log.pprof_paths.*.pb")
txt=$(only_file "xray-log.pprof_paths.*.txt")
read_pprof traces "$pb" calls > paths.txt || fail "pprof rejected $pb"
cat > want.txt <<'END'
work 2
work;a 6
work;a;b 12
work;a;b;c 12
work;a;c 6
work;down 8
work;even 6
work;even;odd 6
END
expect_file_eq "calls per path (folded)" want.txt paths.txt
read_pprof top "$pb" calls | sort > fns.txt
cat > want.txt <<'END'
a 6
b 12
c 18
down 8
even 6
odd 6
total 58
work 2
END
expect_file_eq "calls per function" want.txt fns.txt
go tool pprof -top "$pb" > top.txt
grep -q '^Type: time$' top.txt || { cat top.txt >&2; fail "default sample type is not time"; }
grep -q '^XRay runtime .*profiling mode; clock .* Hz; recursion folded' top.txt ||
  fail "comment missing"
# total time: the report's "all functions' local time" in ns, against
# pprof's total; each sample's time is rounded down on its own
pprof_ns=$(read_pprof top "$pb" time | awk '$1 == "total" { print $2 }')
report_ns=$(awk '/^# all functions. local time:/ { sub(/\./, "", $6); print $6 + 0 }' "$txt")
samples=$(read_pprof traces "$pb" time | wc -l)
note "pprof total ${pprof_ns} ns, report ${report_ns} ns, ${samples} samples"
[ "$report_ns" -gt 0 ] || fail "report total missing"
diff=$(( report_ns - pprof_ns ))
[ "${diff#-}" -le "$samples" ] || fail "pprof total $pprof_ns ns != report $report_ns ns"
if [ -n "${XRAY_READELF:-}" ]; then
  want_id=$("$XRAY_READELF" -n pprof_paths | awk '/Build ID:/ { print $3 }')
  if [ -n "$want_id" ]; then
    go tool pprof -raw "$pb" > raw.txt
    grep -A1 '^Mappings' raw.txt | grep -q " $want_id \[FN\]$" ||
      { cat raw.txt >&2; fail "mapping without the build-id $want_id"; }
  fi
fi
rm -f xray-log.pprof_paths.*

note "fold_recursion=false: one sample per level"
./pprof_paths "profiling_output=pprof fold_recursion=false" || fail "exited $?"
pb=$(only_file "xray-log.pprof_paths.*.pb")
read_pprof traces "$pb" calls > paths.txt || fail "pprof rejected $pb"
cat > want.txt <<'END'
work 2
work;a 6
work;a;b 12
work;a;b;c 12
work;a;c 6
work;down 2
work;down;down 2
work;down;down;down 2
work;down;down;down;down 2
work;even 2
work;even;odd 2
work;even;odd;even 2
work;even;odd;even;odd 2
work;even;odd;even;odd;even 2
work;even;odd;even;odd;even;odd 2
END
expect_file_eq "calls per path (not folded)" want.txt paths.txt
rm -f xray-log.pprof_paths.*

note "C++: demangled names, the mangled symbol as system_name"
xr_cxx pprof_names "$TEST_SRC_DIR/pprof_names.cc"
./pprof_names "profiling_output=pprof" || fail "pprof_names exited $?"
pb=$(only_file "xray-log.pprof_names.*.pb")
expect_eq "paths" "g(double) 1;g(double);ns::f(int) 1" \
  "$(read_pprof traces "$pb" calls | paste -sd';')"
go tool pprof -raw "$pb" > raw.txt
{ grep -q 'ns::f(int) .*(_ZN2ns1fEi)$' raw.txt && grep -q 'g(double) .*(_Z1gd)$' raw.txt; } ||
  { cat raw.txt >&2; fail "system names are not the mangled symbols"; }
echo "pprof: ok"
