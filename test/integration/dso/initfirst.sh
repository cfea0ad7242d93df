# A shared object linked with -z initfirst runs its constructor, and so
# registers with the runtime, before libc has set `environ` (and before the
# executable's preinit): XRAY_OPTIONS must still be read (from the kernel's
# copy of the environment) and the trace must hold both objects' calls.
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/dso_lib.sh"
xr_so "$XRAY_CLANG" libinitfirst.so "$TEST_SRC_DIR/initfirst_lib.c" -Wl,-z,initfirst
"${XRAY_READELF:-readelf}" -d libinitfirst.so | grep -q INITFIRST ||
  fail "libinitfirst.so has no DF_1_INITFIRST flag"
xr_exe "$XRAY_CLANG" app "$TEST_SRC_DIR/initfirst.c" -L. -linitfirst -Wl,-rpath,"$PWD"
rm -f xray-log.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" \
  XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 ./app >out.txt 2>err.txt ||
  { cat err.txt >&2; fail "app exited $?"; }
expect_eq "program output" 110 "$(cat out.txt)"
log=$(only_file "xray-log.app.??????")
"$LLVM_XRAY" convert --output-format=yaml "$log" >log.yaml || fail "llvm-xray convert $log"
python3 - "$log.map" >counts.txt <<'PY' || fail "reading the log"
import re, sys, collections
names = {}
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == 'function':
        names[int(f[1])] = f[4]
counts = collections.Counter()
for line in open('log.yaml'):
    m = re.search(r'func-id: *(\d+),.*kind: *function-(enter|exit)', line)
    if m:
        counts['%s %s' % (names.get(int(m.group(1)), m.group(1)), m.group(2))] += 1
for k in sorted(counts):
    print(k, counts[k])
PY
cat >expected.txt <<'END'
exe_fn enter 10
exe_fn exit 10
lib_fn enter 10
lib_fn exit 10
main enter 1
main exit 1
END
expect_file_eq "calls per function" expected.txt counts.txt
echo "initfirst: ok"
