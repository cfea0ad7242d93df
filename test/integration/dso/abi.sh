# The shared-object ABI (abi.golden): what this tree compiles the interface
# between libxray-dso.a and the runtime to, read from the headers
# (abi_print.c) and from the built archives' symbol tables, must be exactly
# the golden description. Every other test builds both halves from the same
# tree, so only this one sees a slot renumbered, a member moved or a
# function dropped that objects built with an older libxray-dso.a rely on.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/dso_lib.sh"
[ -n "${XRAY_READELF:-}" ] || skip "readelf not found"

# The headers, compiled for the target (the layouts are the target's).
"$XRAY_CLANG" -std=c11 -Wall -Wextra -Werror -I"$XRAY_SRC/lib" -I"$XRAY_INCLUDE" \
  "$TEST_SRC_DIR/abi_print.c" -o abi_print ${XRAY_SANITIZE_FLAGS[@]+"${XRAY_SANITIZE_FLAGS[@]}"} \
  2>build.err || { cat build.err >&2; fail "abi_print.c does not build against lib/core/dispatch/dso_abi.h: a declaration changed (see above)"; }
./abi_print >actual.txt || fail "abi_print exited $?"

# The archives: readelf -sW columns are Num Value Size Type Bind Vis Ndx Name.
pattern='^(__xray_(register_dso|deregister_dso|dso_.*|FunctionEntry|FunctionExit|FunctionTailExit|ArgLoggerEntry|CustomEvent|TypedEvent)|_ZN6__xray.*)$'
"$XRAY_READELF" -sW "$XRAY_DSO_LIB" >dso.syms || fail "readelf $XRAY_DSO_LIB"
"$XRAY_READELF" -sW "$XRAY_LIB" >runtime.syms || fail "readelf $XRAY_LIB"
awk -v pat="$pattern" '
  $8 ~ /^xr_dso_/ && $4 == "OBJECT" && $7 != "UND" { print "dso-data", $8, "size", $3, $6 }
  $8 ~ pat && $7 == "UND" { print "dso-references", $8, $5 }' dso.syms | LC_ALL=C sort -u >>actual.txt
awk -v pat="$pattern" '
  $8 ~ pat && $7 != "UND" && $5 == "GLOBAL" && $6 == "DEFAULT" {
    print "runtime-defines", $8, $4 ($4 == "OBJECT" ? " size " $3 : "") }' runtime.syms |
  LC_ALL=C sort -u >>actual.txt

grep -v '^#' "$TEST_SRC_DIR/abi.golden" >expected.txt
# AddressSanitizer pads each global with its redzone, in the symbol's size:
# the archives' sizes are compared only without it (abi_print.c's are).
if [[ "${XRAY_TEST_SANITIZE:-}" == *address* ]]; then
  note "AddressSanitizer build: symbol sizes of the archives not compared"
  sed -i -E '/^(dso-data|runtime-defines) /s/ size [0-9]+//' expected.txt actual.txt
fi
diff -u expected.txt actual.txt >&2 || fail "the shared-object ABI differs from test/integration/dso/abi.golden.
Objects built with an older libxray-dso.a rely on every line of it. Do not change
a generation: keep its functions, names, slot numbers and layouts, add the new
interface under a new name, raise XR_DSO_ABI_VERSION (lib/core/dispatch/dso_abi.h), and
add its lines to abi.golden (docs/core.md, \"The shared-object ABI\")"
