# Helpers of the argument-capture surface tests (sourced after lib.sh).
# surface_build [FLAGS...]: ./surface from surface.c (it calls core's hook
# directly: lib/ on the include path).
surface_build() {
  xr_cc surface "$TEST_SRC_DIR/surface.c" -I"$XRAY_SRC/lib" -lm "$@"
}
# The port's integer-argument message, as the runtime words it.
# shellcheck disable=SC2034  # used by the scripts that source this file
case $XRAY_TEST_ARCH in
  aarch64) INT_LIMIT="AArch64 passes integer arguments 1-8 in registers" ;;
  *) INT_LIMIT="x86-64 passes integer arguments 1-6 in registers" ;;
esac
