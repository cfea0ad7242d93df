# pprof profile of a program with shared objects (a linked chain and a
# dlopen'd plugin): exact calls per path with every object's function names,
# and one mapping per object with that file's build-id.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$XRAY_SRC/test/integration/dso/dso_lib.sh"
command -v go >/dev/null || skip "go (golang-go) not found"
command -v python3 >/dev/null || skip "python3 not found"
go tool pprof -h >/dev/null 2>&1 || skip "go tool pprof does not run"
dso=$XRAY_SRC/test/integration/dso
xr_so "$XRAY_CLANG" libsecond.so "$dso/second.c"
xr_so "$XRAY_CLANG" libfirst.so "$dso/first.c" -L. -lsecond -Wl,-rpath,\$ORIGIN
xr_so "$XRAY_CLANG" plugin.so "$dso/plugin.c"
xr_exe "$XRAY_CLANG" pprof_dso "$TEST_SRC_DIR/pprof_dso.c" -L. -lfirst -Wl,-rpath,\$ORIGIN

./pprof_dso "$PWD/plugin.so" "profiling_output=pprof" || fail "pprof_dso exited $?"
pb=$(only_file "xray-log.pprof_dso.*.pb")
python3 "$TEST_SRC_DIR/pprof_read.py" traces "$pb" calls > paths.txt || fail "pprof rejected $pb"
cat > want.txt <<'END'
exe_fn 3
exe_fn;first_add 3
exe_fn;first_add;second_mul 3
plugin_fn 2
plugin_fn;plugin_leaf 2
END
expect_file_eq "calls per path" want.txt paths.txt
go tool pprof -raw "$pb" > raw.txt
sed -n '/^Mappings/,$p' raw.txt | grep -c '\[FN\]$' > mappings.txt
expect_eq "mappings (executable, libfirst, libsecond, plugin)" 4 "$(cat mappings.txt)"
if [ -n "${XRAY_READELF:-}" ]; then
  for f in pprof_dso libfirst.so libsecond.so plugin.so; do
    id=$("$XRAY_READELF" -n "$f" | awk '/Build ID:/ { print $3 }')
    [ -n "$id" ] || continue
    grep -q "/$f $id \[FN\]$" raw.txt || { cat raw.txt >&2; fail "no mapping of $f with build-id $id"; }
  done
fi
echo "pprof_dso: ok"
