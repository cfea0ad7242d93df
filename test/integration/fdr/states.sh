# Statuses of the state machine (flush before finalize, finalize twice,
# init while initialised), bad configurations (a status and a message,
# never a crash), and the deprecated log_init sizes.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog states
# (the environment sets the threshold for the deprecated call, which has no
# config string)
XRAY_FDR_OPTIONS="func_duration_threshold_us=0" ./states >states.out 2>states.err
expect_file_eq "statuses" "$TEST_SRC_DIR/states.expected" states.out
# every refused configuration says why, then that it was refused
expect_eq "refusals" 8 "$(grep -c 'xray-fdr: bad configuration; not initialised\|xray-fdr: cannot map' states.err)"
grep -q "bad value '0' for int option 'buffer_size'" states.err || fail "buffer_size=0 message"
grep -q "format_version=4 is not supported" states.err || fail "format_version message"
grep -q "no configuration given to log_init" states.err || fail "NULL config message"
grep -q "already initialised" states.err || fail "init twice message"
files=( xray-log.states.* )
expect_eq "files" 2 "${#files[@]}"
got=""
for f in "${files[@]}"; do
  got+="$(fdr_header_field "$f" 16 8)=$(fdr_counts "$f" states);"
done
expect_eq "files: default and deprecated sizes" "16384=work:1;4096=work:2;" \
  "$(echo "$got" | tr ';' '\n' | sort | grep . | tr '\n' ';')"
echo "states: ok"
