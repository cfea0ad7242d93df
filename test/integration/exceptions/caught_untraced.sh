# A traced function that throws into an untraced caller, 100 times, then a
# traced function called 10 times (progs/caught_untraced.cc): each thrown
# call is closed once, as unwound, by the next entry, and recording goes
# on, in basic, FDR (its log and a snapshot) and profiling mode, every
# function patched or only those two by name.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/exc_lib.sh"
xr_cxx caught_untraced "$TEST_SRC_DIR/progs/caught_untraced.cc"
want="later calls=10 exit=10 tail=0 unwound=0 open=0
thrower calls=100 exit=0 tail=0 unwound=100 open=0"
folded="thrower 100
later 10"
for select in "" "thrower;later"; do
  exc_check_all caught_untraced caught_untraced 1 "$select" "caught 100" "$want" "$folded" ./caught_untraced
done

# An FDR snapshot taken at the end (the program raises SIGUSR1) holds the
# same calls, and so does its JSON.
EXC_FDR_MORE="snapshot_signal=SIGUSR1" exc_run fdr "" ./caught_untraced snapshot
snap=$(only_file "xray-log.caught_untraced.*.snap000001")
exc_check_trace fdr caught_untraced "$snap" caught_untraced 1 "$want"
