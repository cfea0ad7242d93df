# profiling_output=pprof in a fork child whose parent had a thread inside
# dl_iterate_phdr at the fork (fork_pprof.c): the child writes its profile
# (it hung in dl_iterate_phdr before), and both profiles map the executable
# with its path and build-id; with the real pprof client, exact calls
# (the parent 3, the child 5: it keeps the forking thread's history).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
command -v python3 >/dev/null || skip "python3 not found"
xr_cc fork_pprof "$TEST_SRC_DIR/fork_pprof.c" -lpthread
XRAY_OPTIONS="patch_premain=true xray_mode=xray-profiling" \
  XRAY_PROFILING_OPTIONS="profiling_output=pprof" \
  ./fork_pprof 2>err.txt || { rc=$?; cat err.txt >&2; fail "fork_pprof exited $rc"; }
pbs=(xray-log.fork_pprof.*.pb)
expect_eq "profiles (parent and child)" 2 "${#pbs[@]}"
id=-
if [ -n "${XRAY_READELF:-}" ]; then
  id=$("$XRAY_READELF" -n fork_pprof | awk '/Build ID:/ { print $3 }')
fi
exe=$(xr_program_file "$PWD/fork_pprof")
for pb in "${pbs[@]}"; do
  python3 "$TEST_SRC_DIR/pprof_mappings.py" "$pb" >mappings.txt || fail "reading $pb"
  grep -qxF "$exe ${id:--}" mappings.txt ||
    { cat mappings.txt >&2; fail "$pb: no mapping '$exe $id'"; }
done
if command -v go >/dev/null && go tool pprof -h >/dev/null 2>&1; then
  for pb in "${pbs[@]}"; do
    python3 "$TEST_SRC_DIR/pprof_read.py" traces "$pb" calls || fail "pprof rejected $pb"
  done | sort >calls.txt
  printf 'work 3\nwork 5\n' >want.txt
  expect_file_eq "calls of work (parent, child)" want.txt calls.txt
fi
echo "fork_pprof: ok"
