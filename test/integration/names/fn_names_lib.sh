# Helpers of the tests of xrayctl's names module (sourced after lib.sh):
# the driver (fn_names_driver.c, built by this folder's CMakeLists.txt) and
# the comparison of a binary's ids with llvm-xray's. In a cross build the
# driver is the target's too, and runs under the emulator.
FN_DRIVER=$(dirname "$XRAY_LIB")/../test/integration/names/fn_names_driver
[ -x "$FN_DRIVER" ] || fail "the driver is not built at $FN_DRIVER"
# fn_driver ARGS...: runs the driver
fn_driver() {
  # shellcheck disable=SC2086  # XRAY_TEST_EMULATOR is a command and its arguments
  ${XRAY_TEST_EMULATOR:-} "$FN_DRIVER" "$@"
}

# fn_elf FILE: the ELF file of FILE (a program's, behind its script in a
# cross build; a shared object is its own)
fn_elf() {
  local elf
  elf=$(xr_program_file "$1")
  echo "${elf:-$1}"
}

# check_ids BINARY [--runtime NAMES]: every id of BINARY, its function's
# address and name from the module, against llvm-xray extract --symbolize
# (and the runtime's own names); prints the checker's summary.
check_ids() {
  local bin=$1 out elf
  shift
  elf=$(fn_elf "$bin")
  fn_driver ids "$elf" >"$bin.ids" 2>"$bin.err" || fail "$bin: driver: $(cat "$bin.err")"
  # (the program itself: in a cross build llvm-xray's wrapper reads the ELF
  # behind its script, and would move an ELF named here out of the way)
  "$LLVM_XRAY" extract --symbolize "$bin" >"$bin.yaml" || fail "llvm-xray extract $bin"
  out=$(python3 "$TEST_SRC_DIR/fn_names_check.py" "$FN_DRIVER" "$bin.ids" "$bin.yaml" "$@") ||
    fail "$bin: $out"
  note "$bin: $out"
  echo "$out"
}

# check_v0 BINARY: fn_names_v0.c linked: ids 1-4 are first, second, third
# and first again (1 and 4 at one address), which llvm-xray places where
# the module does (it shows the last id of a function: 2, 3, 4).
check_v0() {
  local bin=$1 a1 a4 elf
  elf=$(fn_elf "$bin")
  fn_driver ids "$elf" >"$bin.ids" 2>"$bin.err" || fail "$bin: driver: $(cat "$bin.err")"
  expect_eq "$bin: names" "1 first 2 second 3 third 4 first" \
    "$(awk -F'\t' '{ printf "%s%s %s", sep, $1, $3; sep = " " }' "$bin.ids")"
  a1=$(awk -F'\t' '$1 == 1 { print $2 }' "$bin.ids")
  a4=$(awk -F'\t' '$1 == 4 { print $2 }' "$bin.ids")
  expect_eq "$bin: ids 1 and 4 are one function" "$a1" "$a4"
  "$LLVM_XRAY" extract "$bin" >"$bin.yaml" || fail "llvm-xray extract $bin"
  expect_eq "$bin: llvm-xray's functions" \
    "$(awk -F'\t' '$1 > 1 { printf "%s%s %s", sep, $1, $2; sep = " " }' "$bin.ids")" \
    "$(sed -n 's/.*id: *\([0-9]*\), *address: *0x[0-9A-F]*, *function: *\(0x[0-9A-F]*\).*/\1 \2/p' "$bin.yaml" |
       sort -un | tr 'A-FX' 'a-fx' | awk '{ printf "%s%s %s", sep, $1, $2; sep = " " }')"
}

# zero_fields BINARY: whether xray_instr_map's first entry holds zeros in
# the file (its addresses are then only in relocations).
zero_fields() {
  "$XRAY_READELF" -x xray_instr_map "$1" >"$1.map_bytes" || fail "readelf -x xray_instr_map $1"
  awk '/^ *0x/ { found = 1; zero = $2 == "00000000" && $3 == "00000000" && $4 == "00000000" &&
                                   $5 == "00000000"; exit }
       END { exit !(found && zero) }' "$1.map_bytes"
}
