# FDR traces every shared object, not only objects 0..15: 41 dlopen'd
# objects (obj<k>_fn calls obj<k>_leaf, k times), one unloaded and loaded
# again (obj5: 5 + 100 calls under one object id), one unloaded for good
# (obj7) and a new one after them (obj41). FDR's 28-bit records hold dense
# ids (id base + function); the exact count of every function is read by
# the real llvm-xray and named by <log>.map, whose id bases lie end to end.
# Basic mode on the same program keeps packed ids and gives the same counts.
# An object without dense paths (an older libxray-dso.a) is left out by FDR,
# said at verbosity 1, and traced by basic mode.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/dso_lib.sh"
need_llvm_xray
command -v python3 >/dev/null || skip "no python3"
objs=()
for k in $(seq 1 41); do
  cat >"obj$k.c" <<END
__attribute__((noinline)) int obj${k}_leaf(int x) { return x ^ $k; }
__attribute__((noinline)) int obj${k}_fn(int x) { return obj${k}_leaf(x) + 1; }
END
  xr_so "$XRAY_CLANG" "obj$k.so" "obj$k.c"
  objs+=("$PWD/obj$k.so")
done
xr_exe "$XRAY_CLANG" fdr_objects "$TEST_SRC_DIR/fdr_objects.c"

{
  echo "exe_leaf enter 3 exit 3"
  for k in $(seq 1 41); do
    n=$k; [ "$k" = 5 ] && n=105
    echo "obj${k}_fn enter $n exit $n"
    echo "obj${k}_leaf enter $n exit $n"
  done
} | sort >expected.txt

for mode in fdr basic; do
  rm -f xray-log.*
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-$mode verbosity=1" \
    XRAY_FDR_OPTIONS="func_duration_threshold_us=0 trace_output=xray+chrome" \
    XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 \
    ./fdr_objects "${objs[@]}" >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "$mode run exited $exit_status"; }
  expect_eq "$mode: objects" "objects 42" "$(cat out.txt)"
  log=$(only_file "xray-log.fdr_objects.??????")
  xr_log_counts "$log" | sort >counts.txt || fail "$mode: reading the log"
  expect_file_eq "$mode: counts per function" expected.txt counts.txt
  grep -q "not traced" err.txt && fail "$mode: an object was not traced: $(grep 'not traced' err.txt)"
  # Every object once (obj5 under its first id, obj7 unloaded), id bases end
  # to end from the executable's function count; each function's id in the
  # map is the one its mode's log holds.
  python3 - "$log.map" "$mode" <<'PY' || fail "$mode: map"
import sys
objects, functions = [], {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == 'object':
        objects.append((int(f[1]), f[2], int(f[6]), int(f[10]), f[-1].rsplit('/', 1)[-1]))
    elif f[0] == 'function':
        functions[(int(f[2]), int(f[3]))] = int(f[1])
ids = [o[0] for o in objects]
assert ids == list(range(42)), ids
base = 0
for oid, state, count, id_base, name in objects:
    assert id_base == base, (oid, id_base, base)
    base += count
    if oid:
        assert name == 'obj%d.so' % oid and count == 2, (oid, name, count)
        assert state == ('unloaded' if oid == 7 else 'loaded'), (oid, state)
    for fn in range(1, count + 1):
        want = id_base + fn if sys.argv[2] == 'fdr' else oid << 24 | fn
        assert functions[(oid, fn)] == want, (oid, fn, functions[(oid, fn)], want)
PY
done

# FDR's Chrome trace names the dense ids too.
rm -f xray-log.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr" \
  XRAY_FDR_OPTIONS="func_duration_threshold_us=0 trace_output=chrome" \
  ./fdr_objects "${objs[@]}" >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "chrome run exited $exit_status"; }
json=$(only_file "xray-log.fdr_objects.??????.json")
for f in obj1_fn:1 obj33_leaf:33 obj5_fn:105 obj41_fn:41 exe_leaf:3; do
  expect_eq "chrome events of ${f%:*}" "${f#*:}" "$(grep -c "\"name\":\"${f%:*}\"" "$json")"
done

# An object of a libxray-dso.a without dense paths (olddso.c) cannot give
# FDR dense ids: FDR leaves it out and says so; basic mode traces it.
xr_so "$XRAY_CLANG" old.so "$TEST_SRC_DIR/plugin.c" "$TEST_SRC_DIR/olddso.c"
xr_so "$XRAY_CLANG" plugin.so "$TEST_SRC_DIR/plugin.c"
xr_exe "$XRAY_CLANG" limits "$TEST_SRC_DIR/limits.c"
for mode in fdr basic; do
  rm -f xray-log.*
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-$mode verbosity=1" \
    XRAY_FDR_OPTIONS=func_duration_threshold_us=0 XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 \
    ./limits run "$PWD/plugin.so" "$PWD/old.so" >out.txt 2>err.txt ||
    { cat err.txt >&2; fail "$mode: old object run"; }
  log=$(only_file "xray-log.limits.??????")
  xr_log_counts "$log" | tr '\n' ';' >counts.txt || fail "$mode: reading the log"
  said=$(grep -c "xray-fdr: object 2 ('.*old.so') is not traced: it was built with a libxray-dso.a without dense paths" err.txt || true)
  if [ $mode = fdr ]; then
    expect_eq "fdr: old object's message" 1 "$said"
    # exe_leaf is never called: plugin.so's two functions, once each
    expect_eq "fdr: only plugin.so" "plugin_fn enter 1 exit 1;plugin_leaf enter 1 exit 1;" \
      "$(cat counts.txt)"
  else
    expect_eq "basic: no message" 0 "$said"
    # both objects name their functions alike: each name counts both
    expect_eq "basic: both objects" "plugin_fn enter 2 exit 2;plugin_leaf enter 2 exit 2;" \
      "$(cat counts.txt)"
  fi
done
