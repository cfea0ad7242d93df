# Object limits: 256 distinct shared objects (255 get ids, the last is not
# traced, said on stderr); FDR with 17 (objects 16+ stay unpatched so that
# no 28-bit function record names the wrong object; counts read back by
# llvm-xray).
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/dso_lib.sh"
source "$XRAY_SRC/test/integration/fdr/fdr_framing_lib.sh"
xr_so "$XRAY_CLANG" plugin.so "$TEST_SRC_DIR/plugin.c"
xr_exe "$XRAY_CLANG" limits "$TEST_SRC_DIR/limits.c"
copies=()
for i in $(seq 1 256); do cp plugin.so "plugin$i.so"; copies+=("$PWD/plugin$i.so"); done

./limits count "${copies[@]}" >out.txt 2>err.txt || { cat err.txt >&2; fail "limits exited $?"; }
cat >expected.txt <<'END'
objects 256
objects with events: 255 (1..255)
END
expect_file_eq "256 objects" expected.txt out.txt
expect_eq "messages" 1 "$(grep -c "plugin256.so' is not traced: 255 objects are registered" err.txt)"

need_llvm_xray
rm -f xray-log.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr" XRAY_FDR_OPTIONS=func_duration_threshold_us=0 \
  ./limits fdr "${copies[@]:0:17}" >out.txt 2>err.txt || { cat err.txt >&2; fail "fdr run"; }
for o in 16 17; do
  grep -q "object $o ('.*plugin$o.so') is not traced: xray-fdr records only objects 0..15" err.txt ||
    fail "no message for object $o: $(cat err.txt)"
done
log=$(only_file "xray-log.limits.??????")
"$LLVM_XRAY" convert --output-format=yaml --instr_map=./limits "$log" >log.yaml || fail "convert"
# objects 1..15: plugin_fn and plugin_leaf, entry and exit each
expect_eq "FDR function records" 60 "$(grep -c 'kind: function-' log.yaml)"
ids=$(sed -nE 's/.*func-id: *([0-9]+),.*/\1/p' log.yaml | sort -un | tr '\n' ' ')
want=$(for o in $(seq 1 15); do echo $((o << 24 | 1)) $((o << 24 | 2)); done | tr ' ' '\n' | sort -un | tr '\n' ' ')
expect_eq "FDR ids" "$want" "$ids"
