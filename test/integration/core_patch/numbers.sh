# One numbering of trampolines, handler slots and paths, shared by C and the
# assembly (lib/arch/trampoline_numbers.h), and tied to both: the port's
# trampolines assemble with the real numbers, and refuse to when a table
# they lay out would no longer match them (two trampolines swapped, two
# paths swapped, one trampoline fewer); core refuses to compile when the
# trampoline numbers are not XRayEntryType's. A copy of the header with one
# change stands first on the include path.
source "$XRAY_TEST_LIB_SH"
arch=$XRAY_TEST_ARCH
[ -d "$XRAY_SRC/lib/arch/$arch" ] || skip "no port for $arch"
header=$XRAY_SRC/lib/arch/trampoline_numbers.h

# build DIR: assembles the port's trampolines (the executable's, then a
# shared object's) and compiles core's patching.c with DIR first on the
# include path; the diagnostics in DIR.err.
build() {
  local ok=0 f
  for f in "arch/$arch/trampoline_$arch.S" "arch/$arch/dso_trampolines_$arch.S" core/patching.c; do
    "$XRAY_CLANG" -c -I"$1" -I"$XRAY_SRC/lib" -I"$XRAY_INCLUDE" "$XRAY_SRC/lib/$f" \
      -o "$1.o" 2>>"$1.err" || ok=1
  done
  return $ok
}

mkdir -p real
build real || fail "the real numbers do not build: $(head -c 600 real.err)"

# refused NAME SED MESSAGE: the header changed by SED must not build, and
# the diagnostics must say MESSAGE.
refused() {
  mkdir -p "$1/arch"
  sed "$2" "$header" >"$1/arch/trampoline_numbers.h"
  ! cmp -s "$header" "$1/arch/trampoline_numbers.h" || fail "$1: the change did not apply"
  ! build "$1" || fail "$1: built with numbers that do not match the tables"
  grep -qF "$3" "$1.err" || fail "$1: no '$3' in: $(head -c 600 "$1.err")"
}
refused swapped_exit_tail 's/^#define XR_T_EXIT 1$/#define XR_T_EXIT 2/; s/^#define XR_T_TAIL 2$/#define XR_T_TAIL 1/' \
  "xr_trampoline_paths: an entry out of place"
grep -qF "trampoline numbers are XRayEntryType's" swapped_exit_tail.err ||
  fail "swapped_exit_tail: core's _Static_assert did not fire: $(head -c 600 swapped_exit_tail.err)"
refused swapped_lean_full 's/^#define XR_PATH_LEAN 1$/#define XR_PATH_LEAN 2/; s/^#define XR_PATH_FULL 2$/#define XR_PATH_FULL 1/' \
  "xr_trampoline_paths: an entry out of place"
refused one_fewer 's/^#define XR_T_COUNT 6$/#define XR_T_COUNT 5/' \
  "not as many entries as arch/trampoline_numbers.h says"
echo "numbers: the real ones build; 3 changed ones are refused"
