# LLVM 20 compatibility: a shared object that registers itself with its own
# code calling exactly __xray_register_dso / __xray_deregister_dso (as
# compiler-rt's xray-dso does for -fxray-shared; no clang 20 here), whose
# trampolines call through the exported _ZN6__xray19XRayPatchedFunctionE.
# A user handler and basic mode (a lean built-in handler) both see its
# events with packed ids; FDR with dense ids (id base + function).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/dso_lib.sh"
"$XRAY_CLANG" -g -O1 -fPIC -shared -fxray-instrument "$(xr_no_link_deps_flag "$XRAY_CLANG")" \
  "$TEST_SRC_DIR/llvm20_dso.c" "$TEST_SRC_DIR/llvm20_tramp.S" -o llvm20.so \
  ${XRAY_SANITIZE_FLAGS[@]+"${XRAY_SANITIZE_FLAGS[@]}"} || fail "building llvm20.so"
xr_exe "$XRAY_CLANG" llvm20 "$TEST_SRC_DIR/llvm20.c"
./llvm20 "$PWD/llvm20.so" >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "llvm20 exited $exit_status"; }
cat >expected.txt <<'END'
registered as object 1 of 2, 2 functions
patch 1
0:exe_leaf:E
0:exe_leaf:X
1:llvm20_fn:E
1:llvm20_leaf:E
1:llvm20_leaf:X
1:llvm20_fn:X
after dlclose: patch 1
END
expect_file_eq "events through LLVM 20 trampolines" expected.txt out.txt

need_llvm_xray
rm -f xray-log.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 \
  ./llvm20 basic "$PWD/llvm20.so" >/dev/null 2>err.txt || { cat err.txt >&2; fail "basic run"; }
log=$(only_file "xray-log.llvm20.??????")
"$LLVM_XRAY" convert --output-format=yaml --instr_map=./llvm20 "$log" >log.yaml || fail "convert"
# llvm20_fn is function 2 of object 1: packed 0x1000002 = 16777218
expect_eq "basic: llvm20_fn entries" 1 "$(grep -c 'func-id: 16777218,.*function-enter' log.yaml)"
expect_eq "basic: llvm20_leaf exits" 1 "$(grep -c 'func-id: 16777217,.*function-exit' log.yaml)"
grep -q '^function 16777218 1 2 llvm20_fn$' "$log.map" || fail "map does not name llvm20_fn"

# FDR takes dense ids: the object's calls reach it through the wrapper that
# adds the object's id base (1: the executable has exe_leaf only), so
# llvm20_leaf and llvm20_fn are records 2 and 3, named so by the map.
rm -f xray-log.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr" XRAY_FDR_OPTIONS=func_duration_threshold_us=0 \
  ./llvm20 fdr "$PWD/llvm20.so" >/dev/null 2>err.txt || { cat err.txt >&2; fail "fdr run"; }
log=$(only_file "xray-log.llvm20.??????")
xr_log_counts "$log" >counts.txt || fail "fdr: reading the log"
printf '%s\n' "exe_leaf enter 1 exit 1" "llvm20_fn enter 1 exit 1" "llvm20_leaf enter 1 exit 1" \
  >expected.txt
expect_file_eq "fdr counts through the wrapper" expected.txt counts.txt
grep -q '^function 3 1 2 llvm20_fn$' "$log.map" || fail "FDR map does not name llvm20_fn 3"
