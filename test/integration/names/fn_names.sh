# xrayctl's names for the file commands (tools/xrayctl/fn_names.h,
# docs/control.md "Names in the file commands"), through fn_names_driver.c:
# - -m BINARY: for C and C++ programs, PIE and not, a shared object and a
#   stripped program (.dynsym), every id, its function's address and its
#   name equal llvm-xray extract --symbolize's (names in the canonical
#   spelling where the demanglers differ) and, byte for byte, the names the
#   runtime gives inside the program;
# - a hand-written version 0 map (absolute addresses; in a PIE linked by
#   lld only in RELATIVE relocations) is numbered as llvm-xray numbers it;
# - the .map the runtime writes beside a basic (packed ids) and an FDR
#   (dense ids) log names every id of the log, and its names win over -m's;
# - what is not a binary or a map is refused with the file's name (and
#   the map's line).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
# shellcheck source=fn_names_lib.sh
source "$TEST_SRC_DIR/fn_names_lib.sh"
need_llvm_xray
command -v python3 >/dev/null || skip "no python3"
command -v ld.lld >/dev/null || skip "ld.lld not found"

# --- -m BINARY ------------------------------------------------------------
xr_cc c_pie "$TEST_SRC_DIR/names_c.c" -fPIE -pie
xr_cc c_nopie "$TEST_SRC_DIR/names_c.c" -fno-pie -no-pie
xr_cxx cxx_pie "$TEST_SRC_DIR/names_cxx.cc" -fPIE -pie
xr_cxx cxx_nopie "$TEST_SRC_DIR/names_cxx.cc" -fno-pie -no-pie
xr_cxx spelling "$TEST_SRC_DIR/spelling.cc"
for prog in c_pie c_nopie cxx_pie cxx_nopie spelling; do
  ./$prog names >$prog.names || fail "$prog names exited $?"
  check_ids $prog --runtime $prog.names >/dev/null
done
expect_eq "C++: mangled names demangled" "parser::Node::eval(int) const" \
  "$(awk -F'\t' '$3 ~ /eval/ { print $3 }' cxx_pie.ids)"
# spelling.cc's lambdas, unnamed types and operators: llvm-xray spells
# some differently, so the canonical comparison was really made.
summary=$(check_ids spelling)
if ! [[ $summary =~ ([0-9]+)\ spelled\ differently ]] || [ "${BASH_REMATCH[1]}" -eq 0 ]; then
  fail "spelling: no name spelled differently by llvm-xray ($summary)"
fi

# The other clangs installed, each against its own llvm-xray (clang 19
# writes xray_fn_idx relative; LLVM 16+ spell '>>' as GNU does not).
for v in 13 16 19; do
  cc=$(command -v "clang++-$v" || true)
  tool=$(command -v "llvm-xray-$v" || true)
  { [ -n "$cc" ] && [ -n "$tool" ]; } || { note "clang++-$v or llvm-xray-$v missing: not compared"; continue; }
  "$cc" -g -O1 -fxray-instrument "$(xr_no_link_deps_flag "$cc")" -fxray-instruction-threshold=1 \
    "$TEST_SRC_DIR/fn_names_plain.cc" -o "plain_clang$v"
  LLVM_XRAY=$tool check_ids "plain_clang$v" >/dev/null
  LLVM_XRAY=$tool check_ids spelling >/dev/null # clang 14's names in this LLVM's spelling
done

# A shared object (ET_DYN without an interpreter), and a stripped program
# whose exported functions .dynsym still names (the static helper is left
# without a name, as llvm-xray leaves it).
"$XRAY_CLANGXX" -g -O1 -fPIC -shared -DPLAIN_NO_MAIN "${XRAY_CFLAGS[@]}" \
  "$TEST_SRC_DIR/fn_names_plain.cc" -o plain.so
check_ids plain.so >/dev/null
"$XRAY_CLANGXX" -O1 -rdynamic -s "${XRAY_CFLAGS[@]}" "$TEST_SRC_DIR/fn_names_plain.cc" -o plain_dyn
check_ids plain_dyn >/dev/null
expect_eq "stripped: names from .dynsym" "shapes::area(double) c_entry -" \
  "$(awk -F'\t' '$3 == "shapes::area(double)" || $3 == "c_entry" || NR == 4 { printf "%s%s", sep, $3; sep = " " }' plain_dyn.ids)"

# --- version 0: absolute addresses, relocations ---------------------------
"$XRAY_CLANG" -O1 -fuse-ld=lld -fPIE -pie "$TEST_SRC_DIR/fn_names_v0.c" -o v0_lld_pie
zero_fields v0_lld_pie || fail "lld wrote the addresses into the section: relocations untested"
check_v0 v0_lld_pie
"$XRAY_CLANG" -O1 -fno-pie -no-pie "$TEST_SRC_DIR/fn_names_v0.c" -o v0_nopie
check_v0 v0_nopie

# --- the .map beside a log ------------------------------------------------
source "$XRAY_SRC/test/integration/dso/dso_lib.sh"
xr_modes_build
xr_so "$XRAY_CLANG" plugin.so "$XRAY_SRC/test/integration/dso/plugin.c"
for mode in basic fdr; do
  rm -f xray-log.*
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-$mode" \
    XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 XRAY_FDR_OPTIONS=func_duration_threshold_us=0 \
    ./modes "$PWD/plugin.so" >out.txt 2>err.txt || fail "$mode run exited $?: $(cat err.txt)"
  log=$(only_file "xray-log.modes.??????")
  [ -f "$log.map" ] || fail "$mode: no $log.map"
  # every function id the log holds, named through the map alone
  "$LLVM_XRAY" convert --output-format=yaml "$log" >log.yaml || fail "$mode: llvm-xray convert"
  mapfile -t ids < <(sed -n 's/.*func-id: *\([0-9]*\),.*/\1/p' log.yaml | sort -un)
  [ ${#ids[@]} -eq 5 ] || fail "$mode: the log holds ${#ids[@]} function ids: ${ids[*]}"
  fn_driver get "$log.map" "${ids[@]}" >names.txt 2>err.txt || fail "$mode: $(cat err.txt)"
  expect_eq "$mode: the log's ids named by its map" \
    "exe_leaf first_add plugin_fn plugin_leaf second_mul" \
    "$(cut -f2 names.txt | sort | tr '\n' ' ' | sed 's/ $//')"
  # the same names as the map's lines (the ids the map gives them)
  expect_eq "$mode: as the map says" \
    "$(awk '$1 == "function" { print $2 "\t" $5 }' "$log.map" | grep -wE "^($(IFS='|'; echo "${ids[*]}"))" | sort)" \
    "$(sort names.txt)"
  expect_eq "$mode: the map's kind of ids" "$([ $mode = fdr ] && echo dense || echo packed)" \
    "$(awk 'NR == 1 { print index($0, "<dense id") ? "dense" : "packed"; exit }' "$log.map")"
done
# -m and a map: the map's names win where it names an id, -m names the rest.
{
  echo "# XRay object map of xray-log.cxx_pie.abcdef: function <packed id> <object> <function> <name>"
  echo "object 0 loaded base 0x5555 functions 9 build-id - id-base 0 path $PWD/cxx_pie"
  echo "function 3 0 3 named by the map"
} >three.map
fn_driver ids "$(fn_elf cxx_pie)" three.map >both.ids || fail "cxx_pie with three.map"
expect_eq "the map's name wins" "named by the map" "$(awk -F'\t' '$1 == 3 { print $3 }' both.ids)"
expect_eq "-m names the rest" "$(grep -v '^3	' cxx_pie.ids)" "$(grep -v '^3	' both.ids)"
[ "$(grep -c . both.ids)" -eq 9 ] || fail "cxx_pie with three.map: not 9 ids"

# --- refusals ---------------------------------------------------------------
echo "not an ELF" >text.txt
echo 'int main(void) { return 0; }' >plain.c
"$XRAY_CLANG" plain.c -o uninstrumented
uninstrumented=$(fn_elf uninstrumented)
expect_eq "a text file as -m" "text.txt: not an ELF file" "$(fn_driver open text.txt -)"
expect_eq "an uninstrumented program as -m" \
  "$uninstrumented: no xray_instr_map section (not built with -fxray-instrument, or no function was instrumented)" \
  "$(fn_driver open "$uninstrumented" -)"
expect_eq "a missing -m" "missing: No such file or directory" "$(fn_driver open missing -)"
sed '3s/ functions [0-9]* / functions 1x /' "$log.map" >bad.map
expect_eq "a bad object line" \
  "bad.map: line 3: object 1: expected 'functions <count>' (at most 16777215)" \
  "$(fn_driver open - bad.map)"
{ cat "$log.map"; grep -m1 '^function' "$log.map"; } >dup.map
expect_eq "a duplicate id" \
  "dup.map: line $(($(wc -l <"$log.map") + 1)): function $(grep -m1 '^function' "$log.map" | cut -d' ' -f2) is named twice" \
  "$(fn_driver open - dup.map)"
expect_eq "text as the map" "text.txt: line 1: not the header of an XRay object map ('# XRay object map of <log>: function <packed id> <object> <function> <name>' or its dense form)" \
  "$(fn_driver open - text.txt)"
note "all ids, names and refusals as expected"
