# W^X after every patch/unpatch call (wx.c), PIE and non-PIE, with the
# system page size, a larger page-size override, and a bad override.
# shellcheck source=../integration/lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/stress_lib.sh"
build wx
build wx_nopie -no-pie -fno-pic 2>/dev/null || {
  cp "$TEST_SRC_DIR/wx.c" wx_nopie.c
  xr_cc wx_nopie wx_nopie.c -I"$TEST_SRC_DIR" -no-pie -fno-pic
}
for prog in wx wx_nopie; do
  note "$prog"
  run "$prog.log" "./$prog"
  run "$prog.8k.log" env XRAY_OPTIONS=xray_page_size_override=8192 "./$prog"
  run "$prog.bad.log" env XRAY_OPTIONS=xray_page_size_override=3000 "./$prog" bad-page-size
  cat "$prog.log"
done
echo "wx: ok"
