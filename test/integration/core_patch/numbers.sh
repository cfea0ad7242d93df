# One numbering of trampolines, handler slots and paths, shared by C and the
# assembly (lib/arch/trampoline_numbers.h), and tied to both: every port's
# trampolines assemble with the real numbers, and refuse to when a table
# they lay out would no longer match them (two trampolines swapped, two
# paths swapped, one trampoline fewer); core refuses to compile when the
# trampoline numbers are not XRayEntryType's. A copy of the header with one
# change stands first on the include path. Assembling needs no sysroot, so
# each port is checked in every build (--target=<port>-linux-gnu).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
header=$XRAY_SRC/lib/arch/trampoline_numbers.h
ports=$(cd "$XRAY_SRC/lib/arch" && for d in */; do echo "${d%/}"; done)
[ -n "$ports" ] || fail "no port under lib/arch"

# build DIR: assembles each port's trampolines (the executable's, then a
# shared object's) and compiles core's patching.c for this build's target,
# with DIR first on the include path; the diagnostics in DIR.<port>.err
# and DIR.core.err.
build() {
  local ok=0 port f
  for port in $ports; do
    for f in trampoline dso_trampolines; do
      "$XRAY_CLANG" --target="$port-linux-gnu" -c -I"$1" -I"$XRAY_SRC/lib" \
        "$XRAY_SRC/lib/arch/$port/${f}_$port.S" -o "$1.o" 2>>"$1.$port.err" || ok=1
    done
  done
  "$XRAY_CLANG" -c -I"$1" -I"$XRAY_SRC/lib" -I"$XRAY_INCLUDE" "$XRAY_SRC/lib/core/patch/patching.c" \
    -o "$1.o" 2>>"$1.core.err" || ok=1
  return $ok
}

mkdir -p real
build real || fail "the real numbers do not build: $(cat real.*.err | head -c 600)"

# refused NAME SED MESSAGE: the header changed by SED must not build, and
# each port's diagnostics must say MESSAGE.
refused() {
  mkdir -p "$1/arch"
  sed "$2" "$header" >"$1/arch/trampoline_numbers.h"
  ! cmp -s "$header" "$1/arch/trampoline_numbers.h" || fail "$1: the change did not apply"
  ! build "$1" || fail "$1: built with numbers that do not match the tables"
  local port
  for port in $ports; do
    grep -qF "error: $3" "$1.$port.err" ||
      fail "$1: $port: no '$3' in: $(head -c 600 "$1.$port.err")"
  done
}
refused swapped_exit_tail 's/^#define XR_T_EXIT 1$/#define XR_T_EXIT 2/; s/^#define XR_T_TAIL 2$/#define XR_T_TAIL 1/' \
  "xr_trampoline_paths: an entry out of place"
grep -qF "trampoline numbers are XRayEntryType's" swapped_exit_tail.core.err ||
  fail "swapped_exit_tail: core's _Static_assert did not fire: $(head -c 600 swapped_exit_tail.core.err)"
refused swapped_lean_full 's/^#define XR_PATH_LEAN 1$/#define XR_PATH_LEAN 2/; s/^#define XR_PATH_FULL 2$/#define XR_PATH_FULL 1/' \
  "xr_trampoline_paths: an entry out of place"
refused one_fewer 's/^#define XR_T_COUNT 6$/#define XR_T_COUNT 5/' \
  "xr_trampoline_paths: not as many entries"
echo "numbers: the real ones build for ${ports//$'\n'/ }; 3 changed ones are refused"
