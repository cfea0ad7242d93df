# A JSON cut short (here by the file size limit, as by a kill between two
# writes) ends after a whole event: what is there plus ']' parses, and the
# program is not hurt (no SIGXFSZ, exit 0, a message).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/trace_lib.sh"
build_threads
# The log (~1.5 MB) fits under 2000 KiB, its JSON (~3.4 MB) does not.
( ulimit -f 2000
  XRAY_OPTIONS=verbosity=1 ./threads xray-basic \
    "func_duration_threshold_us=0:trace_output=xray+chrome" 4 3000 1 0 2> err.txt ) ||
  fail "the program was hurt: $(cat err.txt)"
log=$(log_of xray-log.threads.)
grep -q "trace_output: writing '$log.json' failed: File too large" err.txt ||
  fail "no message: $(cat err.txt)"
size=$(stat -c %s "$log.json")
{ [ "$size" -gt 1000000 ] && [ "$size" -le 2048000 ]; } || fail "JSON size $size"
$CHECK "$log.json" --cut > summary.txt
grep -q "^mid:" summary.txt || fail "no calls in the cut file"
echo "cut: ok ($size bytes)"
