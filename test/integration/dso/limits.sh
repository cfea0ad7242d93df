# Object limits: 256 distinct shared objects (255 get ids, the last is not
# traced, said on stderr); FDR with 17 (objects 16+ are traced too: its
# 28-bit function records hold dense ids; read back by llvm-xray).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/dso_lib.sh"
source "$XRAY_SRC/test/integration/fdr/fdr_framing_lib.sh"
xr_so "$XRAY_CLANG" plugin.so "$TEST_SRC_DIR/plugin.c"
xr_exe "$XRAY_CLANG" limits "$TEST_SRC_DIR/limits.c"
copies=()
for i in $(seq 1 256); do cp plugin.so "plugin$i.so"; copies+=("$PWD/plugin$i.so"); done

./limits count "${copies[@]}" >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "limits exited $exit_status"; }
cat >expected.txt <<'END'
objects 256
objects with events: 255 (1..255)
END
expect_file_eq "256 objects" expected.txt out.txt
expect_eq "messages" 1 "$(grep -c "plugin256.so' is not traced: 255 objects are registered" err.txt)"

need_llvm_xray
rm -f xray-log.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr verbosity=1" \
  XRAY_FDR_OPTIONS=func_duration_threshold_us=0 \
  ./limits fdr "${copies[@]:0:17}" >out.txt 2>err.txt || { cat err.txt >&2; fail "fdr run"; }
grep -q "not traced" err.txt && fail "FDR left an object out: $(grep 'not traced' err.txt)"
log=$(only_file "xray-log.limits.??????")
"$LLVM_XRAY" convert --output-format=yaml --instr_map=./limits "$log" >log.yaml || fail "convert"
# objects 1..17: plugin_fn and plugin_leaf, entry and exit each, under dense
# ids: object o's base is 1 (exe_leaf) + 2 (o - 1), so its ids are 2o, 2o+1
expect_eq "FDR function records" 68 "$(grep -c 'kind: function-' log.yaml)"
ids=$(sed -nE 's/.*func-id: *([0-9]+),.*/\1/p' log.yaml | sort -un | tr '\n' ' ')
expect_eq "FDR ids" "$(seq 2 35 | tr '\n' ' ')" "$ids"
