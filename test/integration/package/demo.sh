# The README's first command, docs/examples/demo.sh, end to end: it must
# build, trace, profile and leave every file it announces, readable.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
need_llvm_xray
symbols=$(nm "$XRAY_LIB" 2>/dev/null || true)
for impl in xr_fdr_impl xr_profiling_impl; do
  grep -q " [DdRrBbVv] $impl\$" <<<"$symbols" || skip "$impl not in libxray.a yet"
done

# The demo builds its own runtime with the clang and llvm-xray the suite uses.
# A cross build (cross.sh): the runtime with the project's toolchain file,
# cross.sh's wrappers for clang and llvm-xray (programs run under the
# emulator), and its xrayctl wrapper (XRAYCTL).
demo_cmake=
[ -z "${XRAY_TEST_EMULATOR:-}" ] ||
  demo_cmake="-DCMAKE_TOOLCHAIN_FILE=$XRAY_SRC/cmake/$XRAY_TEST_TARGET.cmake -DXRAY_AARCH64_CLANG=$XRAY_CLANG"
PATH="$(dirname "$XRAY_CLANG"):$PATH" CLANG="$XRAY_CLANG" LLVM_XRAY="$LLVM_XRAY" \
  XRAY_DEMO_CMAKE_ARGS="$demo_cmake" \
  XRAY_DEMO_DIR="$PWD/demo" bash "$XRAY_SRC/docs/examples/demo.sh" >demo.out 2>demo.err ||
  { cat demo.out demo.err >&2; fail "demo.sh failed"; }
cat demo.out >&2

R=demo/results
fdr=$(printf '%s\n' "$R"/fdr-calc.* | grep -Ev '\.(json|pftrace)$' || true)   # the log, not its trace files
{ [ "$(echo "$fdr" | wc -w)" = 1 ] && [ -f "$fdr" ]; } || fail "expected one FDR log, got: $fdr"
# calc checks itself: no mismatches, and the traced runs print its summary.
grep -q 'calc: 600 expressions checked on 2 threads, 0 mismatches' demo.out || fail "FDR run of calc"
grep -q 'calc: 6000 expressions checked on 2 threads, 0 mismatches' demo.out || fail "profiling run of calc"
# xrayctl report read the FDR log. The demo keeps the top 12 by time,
# whose members depend on timing: the table has its 12 rows, and the whole
# table (llvm-xray account's too) has the recursive builtin_fib.
grep -q '^ *calls .* function$' "$R/report.txt" || fail "report.txt has no table"
[ "$(grep -Ec '^ *[0-9]+ +[0-9]+ ' "$R/report.txt")" = 12 ] || { cat "$R/report.txt" >&2; fail "report.txt lacks its 12 rows"; }
"$LLVM_XRAY" account "$fdr" -m demo/calc -sort=sum -sortorder=dsc >account-all.txt ||
  fail "llvm-xray account rejected $fdr"
grep -q 'builtin_fib' account-all.txt || { cat account-all.txt >&2; fail "account lacks builtin_fib"; }
# The runtime's Perfetto trace (trace_output=perfetto; test/integration/
# perfetto/ decodes such traces), and the summary's way to open it.
[ -s "$fdr.pftrace" ] || fail "no $fdr.pftrace"
grep -q "drop $fdr.pftrace\|drop .*/$(basename "$fdr").pftrace" demo.out || fail "summary lacks the .pftrace"
# xrayctl convert's Chrome trace is JSON with complete events of both calc
# threads.
json=$R/timeline.json
if command -v python3 >/dev/null; then
  python3 - "$json" <<'PY' || fail "$json is not a usable trace"
import json, sys
events = [e for e in json.load(open(sys.argv[1])) if e.get("ph") == "X"]
names = {e["name"] for e in events}
assert "parse_sum" in names and "eval" in names, sorted(names)[:20]
assert len({e["tid"] for e in events}) >= 2, "one thread only"
PY
else
  grep -q '"name":"parse_sum"' "$json" || fail "$json lacks parse_sum"
fi
# Profiling: the binary profile, the folded stacks and the report.
folded=$(only_file "$R/profile-calc.*.folded")
grep -Eq '^([A-Za-z_0-9]+;)+builtin_fib [0-9]+$' "$folded" || fail "folded stacks lack builtin_fib"
report=$(only_file "$R/profile-calc.*.txt")
grep -q 'builtin_fib' "$report" || fail "report lacks builtin_fib"
# The pprof profile, and the command that opens it.
pb=$(only_file "$R/profile-calc.*.pb")
grep -q "go tool pprof -http=localhost:8080 .*\.pb" demo.out || fail "summary lacks the pprof command"
if command -v go >/dev/null; then
  go tool pprof -top -nodecount=1000 "$pb" > pprof-top.txt || fail "pprof rejected $pb"
  grep -q ' builtin_fib$' pprof-top.txt || { cat pprof-top.txt >&2; fail "pprof -top lacks builtin_fib"; }
fi
# Every file the summary names exists.
grep -q "ui.perfetto.dev" demo.out || fail "summary"
[ -s "$R/record.pftrace" ] || fail "xrayctl record -o record.pftrace wrote nothing"
# FDR log header: version 5, type 1.
expect_eq "FDR header" 05000100 "$(head -c 4 "$fdr" | od -An -tx1 | tr -d ' \n')"
echo PASS
