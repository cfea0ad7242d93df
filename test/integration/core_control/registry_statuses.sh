# The mode registry's statuses in a real instrumented program (compiler-rt's
# semantics, except that __xray_log_init_mode selects a registered mode).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"

xr_cc statuses "$TEST_SRC_DIR/registry_statuses.c"
./statuses >out.txt 2>err.txt || fail "exit status $?"
cat >want.txt <<'WANT'
register in constructor: 0
current at start: (none)
init with nothing selected: 0
finalize with nothing selected: 0
flush with nothing selected: 0
process_buffers with nothing selected: 0
register again: 1
register incomplete: 3
select unknown: 2
init_mode unknown: 0
init_mode NULL config: 0
current after failures: (none)
  log_init(0, 0, "a=1", 0)
init_mode without select: 2
current: mine
  log_init(0, 0, "a=2", 0)
init twice: 2
flush before finalize: 0
patch: 1
events seen by the mode: 2
finalize: 4
finalize twice: 4
process_buffers without iterator: 2
  buffer from mine: first
  buffer from mine: second
process_buffers with iterator: 2
flush: 2
flush twice: 0
  log_init(7, 8, "x", 1)
init after flush: 2
current after set_log_impl: mine
events (old handler): 2
events (new handler): 1
events after remove_log_impl: 3
finalize after remove_log_impl: 0
select again: 0
events after select again: 3
current after set_log_impl(incomplete): (none)
events after incomplete impl: 3
WANT
expect_file_eq "registry statuses" want.txt out.txt
expect_file_eq "stderr" /dev/null err.txt

# With an explicit select first, compiler-rt's runtime gives the very same
# output: our statuses are compiler-rt's apart from init_mode selecting.
xr_cc statuses_sf "$TEST_SRC_DIR/registry_statuses.c" -DSELECT_FIRST
./statuses_sf >ours_sf.txt 2>&1 || fail "select-first: exit status $?"
awk '{print} /^current after failures/ {print "select: 0"}' want.txt >want_sf.txt
expect_file_eq "select-first flow" want_sf.txt ours_sf.txt
ref_rt=$("$XRAY_CLANG" -print-resource-dir)/lib/linux/libclang_rt.xray-${XRAY_TEST_ARCH}.a
if [ -f "$ref_rt" ]; then
  "$XRAY_CLANG" -O1 -fxray-instrument -fxray-instruction-threshold=1 -I"$XRAY_INCLUDE" \
    -DSELECT_FIRST "$TEST_SRC_DIR/registry_statuses.c" -o statuses_ref
  ./statuses_ref >ref_sf.txt 2>&1 || fail "compiler-rt run: exit status $?"
  expect_file_eq "compiler-rt vs ours (select first)" ref_sf.txt ours_sf.txt
else
  note "compiler-rt's runtime not found: reference comparison skipped"
fi
echo PASS
