# An exit without its entry (progs/late_patch.cc): started with outer()
# and later() patched, g() (called by outer) patches itself and thrower()
# while it runs, thrower() throws into g's catch, and g returns. g's exit
# is dropped and counted; it closes thrower's call below it, which it shows
# gone (as unwound, at its own time: no later than the next record, which
# calls.py checks with EXC_DROPPED_EXITS), and not outer's above it, which
# outer's own exit ends.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/exc_lib.sh"
xr_cxx late_patch "$TEST_SRC_DIR/progs/late_patch.cc"
want="later calls=10 exit=10 tail=0 unwound=0 open=0
outer calls=1 exit=1 tail=0 unwound=0 open=0
thrower calls=1 exit=0 tail=0 unwound=1 open=0"
export EXC_DROPPED_EXITS=1
for mode in basic fdr; do
  exc_run "$mode" "outer;later" ./late_patch
  expect_eq "$EXC_LABEL: program output" "patched 2" "$(cat "$mode.out")"
  exc_check_trace "$mode" late_patch "$(only_file "xray-log.late_patch.??????")" late_patch 2 "$want"
  exc_check_said "$mode" "$want" 1
done
exc_run profiling "outer;later" ./late_patch
exc_check_profile late_patch "outer 1
outer;thrower 1
later 10" late_patch
