# A shared object's functions through the argument trampolines (dso.c):
# values exact through the object's near stub page, the page and its stub
# checked, freed with the object, made again when it is loaded again; no
# page within reach: said once at verbosity 1, the functions keep the usual
# trampolines, and are captured again once a page can be had.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
# shellcheck source=../dso/dso_lib.sh
source "$TEST_SRC_DIR/../dso/dso_lib.sh"
xr_so "$XRAY_CLANG" libargs.so "$TEST_SRC_DIR/dso_lib.c"
xr_exe "$XRAY_CLANG" dso "$TEST_SRC_DIR/dso.c" -I"$XRAY_SRC/lib"
XRAY_OPTIONS=verbosity=1 ./dso >out.txt 2>err.txt ||
  { exit_status=$?; cat out.txt err.txt >&2; fail "exited $exit_status"; }
expect_file_eq "a shared object's values" "$TEST_SRC_DIR/dso.expected" out.txt
reach=2048
[ "$XRAY_TEST_ARCH" = aarch64 ] && reach=128
expect_eq "said once" 1 "$(grep -c "no free page within $reach MiB of its code for the argument trampolines' stubs: its 1 functions with argument capture keep the usual trampolines" err.txt)"
note "$(grep 'the object is' err.txt)"
