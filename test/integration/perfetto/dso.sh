# Shared objects: 41 dlopen'd objects (test/integration/dso/fdr_objects.c:
# obj<k>_fn calls obj<k>_leaf, k times; obj5 unloaded and loaded again,
# 105 calls) and the executable's exe_leaf (3 calls), in FDR (dense ids)
# and basic mode (packed ids) with trace_output=perfetto: every function
# named as the executable's are, with its exact number of slices.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$XRAY_SRC/test/integration/dso/dso_lib.sh"
source "$TEST_SRC_DIR/perfetto_lib.sh"
objs=()
for k in $(seq 1 41); do
  cat >"obj$k.c" <<END
__attribute__((noinline)) int obj${k}_leaf(int x) { return x ^ $k; }
__attribute__((noinline)) int obj${k}_fn(int x) { return obj${k}_leaf(x) + 1; }
END
  xr_so "$XRAY_CLANG" "obj$k.so" "obj$k.c"
  objs+=("$PWD/obj$k.so")
done
xr_exe "$XRAY_CLANG" fdr_objects "$XRAY_SRC/test/integration/dso/fdr_objects.c"
{
  echo "exe_leaf:3"
  for k in $(seq 1 41); do
    n=$k; [ "$k" = 5 ] && n=105
    echo "obj${k}_fn:$n"
    echo "obj${k}_leaf:$n"
  done
  echo "marks:"
} | sort >expected.txt
for mode in fdr basic; do
  rm -f xray-log.*
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-$mode" \
    XRAY_FDR_OPTIONS="func_duration_threshold_us=0 trace_output=perfetto" \
    XRAY_BASIC_OPTIONS="func_duration_threshold_us=0 trace_output=perfetto" \
    ./fdr_objects "${objs[@]}" >out.txt 2>err.txt ||
    { exit_status=$?; cat err.txt >&2; fail "$mode run exited $exit_status"; }
  trace=$(only_file "xray-log.fdr_objects.??????.pftrace")
  pf_check "$trace" >summary.txt || fail "$mode: $trace"
  pf_calls | tr ' ' '\n' | sort >calls.txt
  expect_file_eq "$mode: slices per function" expected.txt calls.txt
done
echo "dso: ok"
