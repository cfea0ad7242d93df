# xrayctl's names module reads AArch64 binaries on any host
# (tools/xrayctl/fn_names.h): fn_names_plain.cc built for AArch64, PIE and
# not, every id, address and name as llvm-xray extract --symbolize gives
# them; the hand-written version 0 map (fn_names_v0.c) in a PIE linked by
# lld, whose addresses are only in R_AARCH64_RELATIVE relocations. The
# programs are only read: they need no runtime and do not run.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
# shellcheck source=fn_names_lib.sh
source "$TEST_SRC_DIR/fn_names_lib.sh"
need_llvm_xray
[ -z "${XRAY_TEST_EMULATOR:-}" ] || skip "the module runs on the host; this reads AArch64 files there"
command -v python3 >/dev/null || skip "no python3"
command -v ld.lld >/dev/null || skip "ld.lld not found"
[ -e /usr/aarch64-linux-gnu/include/stdio.h ] || skip "no AArch64 C library (libc6-dev-arm64-cross)"
[ -n "${XRAY_CLANGXX:-}" ] || skip "clang++ not found"

target=(--target=aarch64-linux-gnu -fxray-instrument "$(xr_no_link_deps_flag "$XRAY_CLANG")"
        -fxray-instruction-threshold=1)
# compiled as C++, linked as C: no AArch64 libstdc++ needed
"$XRAY_CLANGXX" -g -O1 "${target[@]}" -c "$TEST_SRC_DIR/fn_names_plain.cc" -o plain.o
for pie in pie no-pie; do
  "$XRAY_CLANG" --target=aarch64-linux-gnu -"$pie" plain.o -o "a64_$pie" ||
    fail "linking an AArch64 program ($pie)"
  file_type=$("$XRAY_READELF" -h "a64_$pie" | awk '/Machine:/ { $1 = ""; print }')
  [[ $file_type == *AArch64* ]] || fail "a64_$pie is not an AArch64 file: $file_type"
  check_ids "a64_$pie" >/dev/null
done
expect_eq "AArch64: C++ names" "shapes::Box<long>::get(long) const" \
  "$(awk -F'\t' '$3 ~ /Box<long>/ { print $3 }' a64_pie.ids)"

"$XRAY_CLANG" --target=aarch64-linux-gnu -O1 -fuse-ld=lld -fPIE -pie "$TEST_SRC_DIR/fn_names_v0.c" -o a64_v0
zero_fields a64_v0 || fail "lld wrote the addresses into the section: relocations untested"
"$XRAY_READELF" -r a64_v0 >a64_v0.relocs || fail "readelf -r a64_v0"
grep -q R_AARCH64_RELATIVE a64_v0.relocs || fail "a64_v0 has no RELATIVE relocation"
check_v0 a64_v0
note "AArch64 ids and names as llvm-xray gives them"
