# Exits skipped by longjmp (100000 times) and by C++ exceptions (10000
# times): the shadow stack is unwound at the next exit of a frame below, the
# skipped calls are closed, llvm-xray reads the log, and calls made
# afterwards are still recorded (compiler-rt stops recording once its depth
# counter passes max_stack_depth).
source "$TEST_SRC_DIR/basic_lib.sh"
build longjmp
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0 max_stack_depth=2" ./longjmp > out.txt
expect_eq "program output" "100000 4" "$(cat out.txt)"
log=$(only_file "xray-log.longjmp.*")
expect_eq "longjmp counts (depth <= 2)" \
"after 1
after2 1
attempt 100000
top 100000" "$(counts longjmp "$log")"

rm -f xray-log.longjmp.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0 max_stack_depth=8" ./longjmp >/dev/null
expect_eq "longjmp counts (all)" \
"after 1
after2 1
attempt 100000
leaf 100000
mid 100000
top 100000" "$(counts longjmp "$(only_file 'xray-log.longjmp.*')")"

# Patched from inside g(): g's exit has no entry and is not written
# (compiler-rt writes it, and llvm-xray account then fails).
build late_patch
XRAY_OPTIONS="xray_mode=xray-basic" XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" \
  ./late_patch >/dev/null
expect_eq "late patch counts" "leaf 2" "$(counts late_patch "$(only_file 'xray-log.late_patch.*')")"

[ -n "${XRAY_CLANGXX:-}" ] || skip "clang++ not found (C part passed)"
xr_cxx throw "$PROGS/throw.cc"
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./throw > out.txt
expect_eq "program output" "10000 2" "$(cat out.txt)"
expect_eq "exception counts" \
"after(int) 1
catcher(int) 10000
middle(int) 10000
thrower(int) 10000" "$(counts throw "$(only_file 'xray-log.throw.*')")"
