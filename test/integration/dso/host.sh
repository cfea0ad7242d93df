# An uninstrumented host (built without -fxray-instrument, so no
# instrumentation map of its own; libxray.a linked whole) with one linked
# instrumented object (libhostlib.so, object 1) and one dlopen'd
# (plugin.so, object 2): exact event sequences through a user handler with
# packed ids; basic and FDR logs read by the real llvm-xray whose ids the
# sidecar <log>.map names, with exact counts per function; profiling folded
# stacks and pprof with the objects' names; xray_patch= selecting functions
# of the objects; the messages at verbosity=1, also for an xray_patch=
# pattern that matches nothing (a typo is said, a plugin's pattern is not
# said to match nothing at exit).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/dso_lib.sh"
source "$XRAY_SRC/test/integration/fdr/fdr_framing_lib.sh"
need_llvm_xray
command -v python3 >/dev/null || skip "no python3"
xr_so "$XRAY_CLANG" libhostlib.so "$TEST_SRC_DIR/hostlib.c"
xr_so "$XRAY_CLANG" plugin.so "$TEST_SRC_DIR/plugin.c"
xr_host "$XRAY_CLANG" host "$TEST_SRC_DIR/host.c" -L. -lhostlib -Wl,-rpath,\$ORIGIN
READELF=${XRAY_READELF:-readelf}
if "$READELF" -S host | grep -q xray_instr_map; then
  fail "the host has an instrumentation map: it must be built without -fxray-instrument"
fi
# The runtime's references to the map are resolved at link time: a dynamic
# one could bind to another object's section symbols.
if "$READELF" --dyn-syms -W host | grep -q 'xray_instr_map\|xray_fn_idx'; then
  fail "the host exports or imports the map's section symbols: $("$READELF" --dyn-syms -W host | grep xray_)"
fi
PLUGIN=$PWD/plugin.so

# 1. A user handler: exact sequences, packed ids, statuses, names.
./host events "$PLUGIN" >out.txt 2>err.txt || { exit_status=$?; cat out.txt err.txt >&2; fail "events exited $exit_status"; }
expect_file_eq "event sequences" "$TEST_SRC_DIR/host.expected" out.txt
[ ! -s err.txt ] || fail "unexpected stderr: $(cat err.txt)"

# 2. patch_premain: the linked object at start, the plugin when loaded.
XRAY_OPTIONS=patch_premain=true ./host premain "$PLUGIN" >out.txt 2>err.txt ||
  { exit_status=$?; cat out.txt err.txt >&2; fail "premain exited $exit_status"; }
cat >expected.txt <<'END'
set handler 1
premain: 0x1000002:lib_add:E 0x1000001:lib_mul:E 0x1000001:lib_mul:X 0x1000002:lib_add:X
premain dlopen: 0x1000002:lib_add:E 0x1000001:lib_mul:E 0x1000001:lib_mul:X 0x1000002:lib_add:X 0x2000002:plugin_fn:E 0x2000001:plugin_leaf:E 0x2000001:plugin_leaf:X 0x2000002:plugin_fn:X
END
expect_file_eq "patch_premain sequences" expected.txt out.txt

# count LOG [OBJECTS]: "name enter N exit N" per function of LOG, named
# through LOG.map (llvm-xray cannot take the host as -instr_map: it has
# none); fails on an id the map does not name, or when the map's objects
# ("id file functions" each) are not OBJECTS.
HOST_OBJECTS="0 host 0, 1 libhostlib.so 2, 2 plugin.so 2"
count() {
  expect_eq "$1: map objects" "${2:-$HOST_OBJECTS}" "$(xr_map_objects "$1.map")"
  xr_log_counts "$1"
}

# run NAME XRAY_OPTIONS [HOST]: HOST (./host) work with the modes'
# thresholds at 0.
run() {
  rm -f xray-log.*
  XRAY_OPTIONS="$2" XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 \
    XRAY_FDR_OPTIONS=func_duration_threshold_us=0 "${3:-./host}" work "$PLUGIN" >out.txt 2>err.txt ||
    { exit_status=$?; cat err.txt >&2; fail "$1 run exited $exit_status"; }
}

# 3. Basic and FDR: every id named by the map, exact counts.
cat >expected.txt <<'END'
lib_add enter 5 exit 5
lib_mul enter 5 exit 5
plugin_fn enter 4 exit 4
plugin_leaf enter 4 exit 4
END
for mode in basic fdr; do
  run $mode "patch_premain=true xray_mode=xray-$mode"
  log=$(only_file "xray-log.host.??????")
  [ -f "$log.map" ] || fail "$mode: no $log.map"
  count "$log" >counts.txt || fail "$mode: reading the log"
  expect_file_eq "$mode counts per function" expected.txt counts.txt
done

# 4. xray_patch= / xray_skip= select functions of the objects.
cat >expected.txt <<'END'
lib_mul enter 5 exit 5
plugin_leaf enter 4 exit 4
END
run xray_patch "patch_premain=true xray_mode=xray-basic xray_patch=plugin_leaf;lib_m*"
count "$(only_file "xray-log.host.??????")" >counts.txt || fail "xray_patch: reading the log"
expect_file_eq "xray_patch counts" expected.txt counts.txt
cat >expected.txt <<'END'
lib_add enter 5 exit 5
plugin_fn enter 4 exit 4
END
run xray_skip "patch_premain=true xray_mode=xray-fdr xray_skip=*_leaf;lib_mul"
count "$(only_file "xray-log.host.??????")" >counts.txt || fail "xray_skip: reading the log"
expect_file_eq "xray_skip counts" expected.txt counts.txt

# 5. Profiling: folded stacks and pprof name the objects' functions.
rm -f xray-log.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-profiling" \
  XRAY_PROFILING_OPTIONS="profiling_output=folded+pprof folded_value=calls" \
  ./host work "$PLUGIN" >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "profiling run exited $exit_status"; }
cat >expected.folded <<'END'
lib_add 5
lib_add;lib_mul 5
plugin_fn 4
plugin_fn;plugin_leaf 4
END
expect_file_eq "folded stacks" expected.folded "$(only_file 'xray-log.host.*.folded')"
python3 "$XRAY_SRC/test/integration/profiling/pprof_read.py" traces \
  "$(only_file 'xray-log.host.*.pb')" calls >paths.txt || fail "pprof profile unreadable"
expect_file_eq "pprof calls per path" expected.folded paths.txt

# 6. A host that links no instrumented object: the dlopen'd plugin is the
# first map, and XRAY_OPTIONS' mode starts when it registers. A handler set
# before that is kept.
xr_host "$XRAY_CLANG" host_dl "$TEST_SRC_DIR/host.c" -DHOST_ONLY_PLUGIN
XRAY_OPTIONS=patch_premain=true ./host_dl premain "$PLUGIN" >out.txt 2>err.txt ||
  { exit_status=$?; cat out.txt err.txt >&2; fail "host_dl premain exited $exit_status"; }
cat >expected.txt <<'END'
set handler 1
premain:
premain dlopen: 0x1000002:plugin_fn:E 0x1000001:plugin_leaf:E 0x1000001:plugin_leaf:X 0x1000002:plugin_fn:X
END
expect_file_eq "host_dl patch_premain sequences" expected.txt out.txt
cat >expected.txt <<'END'
plugin_fn enter 4 exit 4
plugin_leaf enter 4 exit 4
END
for mode in basic fdr; do
  run "host_dl $mode" "patch_premain=true xray_mode=xray-$mode" ./host_dl
  count "$(only_file "xray-log.host_dl.??????")" "0 host_dl 0, 1 plugin.so 2" >counts.txt ||
    fail "host_dl $mode: reading the log"
  expect_file_eq "host_dl $mode counts per function" expected.txt counts.txt
done

# 7. verbosity=1: compiler-rt's line at start (it prints it for any
# executable without a map), then ours saying the objects are still traced;
# no hint at exit, since objects registered.
XRAY_OPTIONS="patch_premain=true verbosity=1" ./host work "$PLUGIN" >out.txt 2>err.txt ||
  fail "verbosity run exited $?"
expect_eq "verbosity=1: first line" 1 \
  "$(head -n1 err.txt | grep -cE '^==[0-9]+==XRay instrumentation map missing\. Not initializing XRay\.$')"
grep -q "the executable has no instrumentation map.*still traced" err.txt ||
  fail "verbosity=1: no word about the host's missing map: $(cat err.txt)"
if grep -q "asks for a trace" err.txt; then
  fail "verbosity=1: the no-sled hint in a host whose objects registered: $(cat err.txt)"
fi
# 8. Patterns that match nothing: the host has no function of its own, so
# only the objects can match. lib_mul: libhostlib.so (linked); plugin_leaf:
# plugin.so (dlopen'd); typo_fn: nothing. Before main the plugin's pattern
# is said with "loaded later may still match", at exit only the typo.
cat >expected.txt <<'END'
XRay: XRAY_OPTIONS: xray_patch pattern 'plugin_leaf' matches no instrumented function of the executable or the 1 instrumented shared object loaded so far (names: llvm-xray extract --symbolize, or docs/names.md); the program runs on, and shared objects loaded later may still match
XRay: XRAY_OPTIONS: xray_patch pattern 'typo_fn' matches no instrumented function of the executable or the 1 instrumented shared object loaded so far (names: llvm-xray extract --symbolize, or docs/names.md); the program runs on, and shared objects loaded later may still match
XRay: XRAY_OPTIONS: xray_patch pattern 'typo_fn' matches no instrumented function of the executable and the 2 instrumented shared objects of this run (names: llvm-xray extract --symbolize, or docs/names.md)
END
run "typo" "patch_premain=true verbosity=1 xray_patch='lib_mul;plugin_leaf;typo_fn'"
grep 'matches no' err.txt | sed 's/^==[0-9]*==//' >got.txt
expect_file_eq "host: patterns that match nothing" expected.txt got.txt
# host_dl: no instrumented function before main, so nothing to say then;
# at exit the typo only.
cat >expected.txt <<'END'
XRay: XRAY_OPTIONS: xray_patch pattern 'typo_fn' matches no instrumented function of the executable and the 1 instrumented shared object of this run (names: llvm-xray extract --symbolize, or docs/names.md)
END
run "host_dl typo" "patch_premain=true verbosity=1 xray_patch='plugin_leaf;typo_fn'" ./host_dl
grep 'matches no' err.txt | sed 's/^==[0-9]*==//' >got.txt
expect_file_eq "host_dl: patterns that match nothing" expected.txt got.txt
# verbosity 0, stderr not a terminal: nothing.
run "quiet typo" "patch_premain=true xray_patch='plugin_leaf;typo_fn'"
[ ! -s err.txt ] || fail "verbosity 0, not a terminal: unexpected $(cat err.txt)"
echo PASS
