# long double, __m128, __m256, many/variadic doubles intact through patched
# sleds, with a floating-point user handler and in each mode (fp_args.c).
# shellcheck source=../integration/lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/stress_lib.sh"
for opt in -O0 -O2; do
  build fp_args "$opt"
  mv fp_args "fp_args$opt"
  run "handler$opt.log" "./fp_args$opt" handler
  cat "handler$opt.log"
  for mode in "${MODES[@]}"; do
    have_mode "$mode" || continue
    XRAY_OPTIONS="xray_logfile_base=fp-$mode-" run "$mode$opt.log" "./fp_args$opt" "$mode"
  done
done
echo "fp_args: ok"
