# One compiler (argument: clang-13, clang-14, ...; exit 77 if missing): PIE
# and -no-pie at -O0..-O3, and -flto -fuse-ld=lld when that compiler has its
# own lld. For each binary the runtime's ids, names and sled counts must equal
# llvm-xray extract's, and the event counts must be exact.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
cc_name=$1
cc=$(command -v "$cc_name" || true)
[ -n "$cc" ] || skip "$cc_name not installed"
xr_need_sanitizer_runtime "$cc"
version=${cc_name#clang-}
xray_tool=$(command -v "llvm-xray-$version" || true)
[ -n "$xray_tool" ] || xray_tool=${LLVM_XRAY:-}
[ -n "$xray_tool" ] || skip "no llvm-xray"
nolink=$(xr_no_link_deps_flag "$cc")
lld=$("$cc" -print-prog-name=ld.lld)
lto_ok=0
if [ -x "$lld" ] && [ "$(dirname "$(readlink -f "$lld")")" = "$(dirname "$(readlink -f "$cc")")" ]; then
  lto_ok=1
fi

# Expected event counts per function for the workload in matrix.c.
declare -A calls=([f_a]=100 [f_b]=250 [f_tail]=50 [f_log]=30)
declare -A args=([f_a]=0 [f_b]=0 [f_tail]=0 [f_log]=435)

check_binary() { # $1 = label, $2 = binary
  local label=$1 bin=$2
  ./"$bin" >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "$label: exited $exit_status"; }
  [ ! -s err.txt ] || fail "$label: stderr: $(cat err.txt)"
  local fn_idx
  fn_idx=$(sed -n 's/^fn_idx //p' out.txt)
  [ "$fn_idx" != -1 ] || fail "$label: xray_fn_idx judged inconsistent"
  "$xray_tool" extract --symbolize "$bin" >map.yaml 2>xerr.txt || fail "$label: extract: $(cat xerr.txt)"
  # extract: "id name sleds", and the kinds present per id
  sed -nE 's/.*id: *([0-9]+),.*kind: *([a-z-]+),.*function-name: *([A-Za-z_0-9]*).*/\1 \2 \3/p' map.yaml >sleds.txt
  awk '{ n[$1]++; name[$1] = $3 } END { for (i in n) print i, name[i], n[i] }' sleds.txt | sort -n >extract_ids.txt
  grep -v '^fn_idx' out.txt | awk '{ print $1, $2, $3 }' >runtime_ids.txt
  expect_file_eq "$label: ids, names, sled counts vs llvm-xray extract" extract_ids.txt runtime_ids.txt
  local id name ent ex tl argsum want has_tail
  while read -r id name _ ent ex tl argsum; do
    [ "$id" = fn_idx ] && continue
    want=${calls[$name]:-}
    [ -n "$want" ] || fail "$label: unexpected instrumented function $name (id $id)"
    has_tail=$(awk -v i="$id" '$1 == i && $2 == "tail-exit"' sleds.txt | wc -l)
    expect_eq "$label: $name entries" "$want" "$ent"
    if [ "$has_tail" -gt 0 ]; then
      expect_eq "$label: $name tail exits + exits" "$want" "$((tl + ex))"
      [ "$tl" -gt 0 ] || fail "$label: $name has a tail sled but no tail event"
    else
      expect_eq "$label: $name exits" "$want" "$ex"
      expect_eq "$label: $name tail exits" 0 "$tl"
    fi
    expect_eq "$label: $name argument sum" "${args[$name]}" "$argsum"
  done <out.txt
  [ "$(grep -vc '^fn_idx' out.txt)" -eq 4 ] || fail "$label: expected 4 functions"
  note "$label: ok (xray_fn_idx format $fn_idx)"
}

common=(-g -fxray-instrument "$nolink" -fxray-instruction-threshold=1 -I"$XRAY_INCLUDE"
        -I"$XRAY_SRC/lib" "$TEST_SRC_DIR/matrix.c")
for pie in pie no-pie; do
  pie_flags=(-fPIE -pie)
  [ $pie = no-pie ] && pie_flags=(-fno-pie -no-pie)
  for opt in -O0 -O1 -O2 -O3; do
    "$cc" "$opt" "${pie_flags[@]}" "${common[@]}" -o "m_$pie$opt" "${XRAY_LDFLAGS[@]}" ||
      fail "$cc_name $pie $opt: build failed"
    check_binary "$cc_name $pie $opt" "m_$pie$opt"
  done
done
if [ $lto_ok = 1 ]; then
  "$cc" -O2 -flto -fuse-ld=lld "${common[@]}" -o m_lto "${XRAY_LDFLAGS[@]}" ||
    fail "$cc_name -flto: build failed"
  check_binary "$cc_name -flto -fuse-ld=lld" m_lto
else
  note "$cc_name: no ld.lld of the same version; -flto case not run"
fi
