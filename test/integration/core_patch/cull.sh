# The overhead budget's door (xr_patch_cull, xr_patch_function_states): the
# three culling steps with exact events per function and kind, each pin
# rule (an exact xray_patch name pins, a wildcard does not), the user's
# patching over the budget's, ONGOING both ways, W^X after every step, a
# fork child's marks (cull.c; cull.expected), then __xray_patch and
# __xray_patch_object pin nothing, and a shared object culled, closed and
# loaded again starts clean.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
{ [ -n "${XRAY_DSO_LIB:-}" ] && [ -f "$XRAY_DSO_LIB" ]; } || skip "libxray-dso.a not built"
"$XRAY_CLANG" -g -O2 -fPIC -shared "${XRAY_CFLAGS[@]}" "$TEST_SRC_DIR/cull_so.c" -o libcull_so.so \
  -Wl,--whole-archive "$XRAY_DSO_LIB" -Wl,--no-whole-archive \
  ${XRAY_SANITIZE_FLAGS[@]+"${XRAY_SANITIZE_FLAGS[@]}"}
xr_cc cull "$TEST_SRC_DIR/cull.c" -O2 -I"$XRAY_SRC/lib" \
  "-Wl,--dynamic-list=$XRAY_SRC/cmake/xray.dynlist" -ldl

XRAY_OPTIONS="xray_patch=opt_exact;opt_wild*" ./cull pins >out.txt 2>err.txt ||
  { exit_status=$?; cat out.txt err.txt >&2; fail "pins: exited $exit_status"; }
expect_file_eq "pins" "$(xr_expected cull)" out.txt
[ ! -s err.txt ] || fail "pins: unexpected stderr: $(cat err.txt)"

./cull all >out.txt 2>err.txt || { exit_status=$?; cat out.txt err.txt >&2; fail "all: exited $exit_status"; }
expect_eq "all" "cull entries: 15 changed|cull entries: 15 changed|cull exits: 15 changed|all: nothing pinned" \
  "$(paste -sd'|' out.txt)"

./cull dso "$PWD/libcull_so.so" >out.txt 2>err.txt ||
  { exit_status=$?; cat out.txt err.txt >&2; fail "dso: exited $exit_status"; }
cat >want.txt <<'WANT'
[culled] object 1: 2 functions
so_plain  enter 0 exit 1  .X.C
so_pinned enter 1 exit 1  PXN.
[loaded again: nothing patched, pinned or culled] object 1: 2 functions
so_plain  enter 0 exit 0  ....
so_pinned enter 0 exit 0  ....
[patched by a wildcard] object 1: 2 functions
so_plain  enter 1 exit 1  PX..
so_pinned enter 1 exit 1  PX..
WANT
expect_file_eq "dso" want.txt out.txt
