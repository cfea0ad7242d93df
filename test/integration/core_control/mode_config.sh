# One behaviour for each bad configuration, in every built-in mode: a config
# string over 4095 bytes, an unknown output word, a bad value. Each is
# refused (log_init answers XRAY_LOG_UNINITIALIZED) with a message; the same
# mode then starts with a good one. Basic used to cut the long string and
# start, and to fall back to the XRay log on a bad trace_output; profiling
# ignored the long string and kept defaults for bad values.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"

xr_cc mode_config "$TEST_SRC_DIR/mode_config.c"
XRAY_OPTIONS="verbosity=0" ./mode_config >out.txt 2>err.txt || fail "exit status $?"
cat >want.txt <<'WANT'
xray-basic over-long: 0
xray-basic bad output: 0
xray-basic bad value: 0
xray-basic good: 2
xray-basic finalize: 4
xray-basic flush: 2
xray-fdr over-long: 0
xray-fdr bad output: 0
xray-fdr bad value: 0
xray-fdr good: 2
xray-fdr finalize: 4
xray-fdr flush: 2
xray-profiling over-long: 0
xray-profiling bad output: 0
xray-profiling bad value: 0
xray-profiling good: 2
xray-profiling finalize: 4
xray-profiling flush: 2
WANT
diff want.txt out.txt || fail "statuses differ"
for mode in basic fdr profiling; do
  grep -q "xray-$mode config: longer than 4095 bytes" err.txt ||
    { cat err.txt >&2; fail "no over-long message for $mode"; }
done
expect_eq "not-initialised messages" 9 "$(grep -c 'bad configuration; not' err.txt)"
