# Same program, same paths and counts as compiler-rt's profiling mode: both
# runtimes' files read by the same reader (skipped without compiler-rt's
# profiling archive or clang++).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
command -v python3 >/dev/null || skip "python3 not found"
[ -n "${XRAY_CLANGXX:-}" ] || skip "clang++ not found"
rt=$("$XRAY_CLANGXX" -print-resource-dir)/lib/linux
ls "$rt"/libclang_rt.xray-profiling*.a >/dev/null 2>&1 || skip "no compiler-rt profiling runtime"
# compiler-rt's headers are C++ only: build the program as C++ for both
cp "$TEST_SRC_DIR/calltree.c" calltree.cc
"$XRAY_CLANGXX" -O1 -fxray-instrument -fxray-instruction-threshold=1 \
  -fxray-modes=xray-profiling calltree.cc -o calltree_ref -lpthread ||
  skip "cannot link against compiler-rt's runtime"
xr_cxx calltree_ours calltree.cc
ids() { python3 "$TEST_SRC_DIR/profile_reader.py" --ids "$@"; }
for threads in 0 4; do
  note "$threads thread(s)"
  rm -f xray-log.*
  ./calltree_ref $threads "" > /dev/null 2>&1 || fail "compiler-rt run exited $?"
  ref=$(only_file "xray-log.calltree_ref.*")
  ./calltree_ours $threads "" > /dev/null || fail "our run exited $?"
  ours=$(only_file "xray-log.calltree_ours.*")
  ids --merge "$ref" > ref.txt || fail "reader rejected compiler-rt's file"
  ids --merge --check-times "$ours" > ours.txt || fail "reader rejected our file"
  [ -s ref.txt ] || fail "compiler-rt recorded nothing"
  expect_file_eq "paths and counts vs compiler-rt ($threads threads)" ref.txt ours.txt
  expect_eq "blocks ($threads threads)" "$(ids "$ref" | grep -c '^block')" "$(ids "$ours" | grep -c '^block')"
done
echo "compat: ok"
