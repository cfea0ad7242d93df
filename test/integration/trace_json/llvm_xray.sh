# llvm-xray account, stack and graph (14 and 19: every installed version)
# read basic and FDR logs of 4 threads with more than 16 buffers each and
# calls skipped by longjmp, without -k and without -d; the JSON beside each
# log has exactly account's calls. Then an FDR ring that wrapped many times
# (its kept records begin inside calls): still read by all three.
# The rules the logs follow are in docs/formats.md ("What llvm-xray needs").
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/trace_lib.sh"
source "$XRAY_SRC/test/integration/fdr/fdr_framing_lib.sh"
build_threads
readable() { # LOG: account, stack and graph of every llvm-xray accept it
  for x in "${LLVM_XRAY_VERSIONS[@]}"; do
    for cmd in account stack graph; do
      "$x" $cmd -m threads "$1" > "$cmd.out" 2> "$cmd.err" ||
        fail "$x $cmd rejects $1: $(head -3 "$cmd.err")"
    done
  done
}
want="deep:6864 leaf:24000 marks:unwound=6864 mid:12000 worker:4"
announced_exist() { # ERR: every file announced at verbosity=1 is there (no temporaries)
  grep -o "File in '[^']*'" "$1" | cut -d"'" -f2 | while read -r f; do
    [ -e "$f" ] || fail "announced '$f', which does not exist: $(cat "$1")"
  done
}

# basic: 64-record thread buffers, so each thread appends ~400 chunks
XRAY_OPTIONS="xray_logfile_base=basic- verbosity=1" ./threads xray-basic \
  "func_duration_threshold_us=0:thread_buffer_size=64:trace_output=xray+chrome" 4 3000 1 0 2> basic.err
log=$(log_of basic-threads.)
announced_exist basic.err
[ "$(stat -c %s "$log")" -gt $((4 * 17 * 64 * 32)) ] || fail "basic: under 17 buffers a thread"
readable "$log"
expect_eq "basic" "$want" "$(check_against_llvm_xray "$log" | sort | paste -sd' ' -)"

# FDR: 1 KiB buffers, room for all (no overwrite)
XRAY_OPTIONS="xray_logfile_base=fdr- verbosity=1" ./threads xray-fdr \
  "func_duration_threshold_us=0:buffer_size=1024:buffer_max=4000:trace_output=xray+chrome" \
  4 3000 1 0 2> fdr.err
log=$(log_of fdr-threads.)
[ "$(stat -c %s "$log")" -gt $((4 * 17 * 1024)) ] || fail "fdr: under 17 buffers a thread"
grep -q "xray-fdr: 4 thread(s), 6864 call(s) closed that unwinding" fdr.err ||
  fail "fdr: closing message: $(cat fdr.err)"
grep -q " 0 buffers overwritten" fdr.err || fail "fdr: a buffer was overwritten"
announced_exist fdr.err
readable "$log"
expect_eq "fdr" "$want" "$(check_against_llvm_xray "$log" | sort | paste -sd' ' -)"

# FDR ring: 16 buffers of 1 KiB for ~800 KiB of records
XRAY_OPTIONS="xray_logfile_base=ring- verbosity=1" ./threads xray-fdr \
  "func_duration_threshold_us=0:buffer_size=1024:buffer_max=16:trace_output=xray+chrome" \
  4 3000 1 0 2> ring.err
log=$(log_of ring-threads.)
over=$(grep -o '[0-9]* buffers overwritten' ring.err | cut -d' ' -f1)
[ "${over:-0}" -ge 500 ] || fail "ring: only ${over:-0} buffers overwritten"
readable "$log"
check_against_llvm_xray "$log" > ring.txt
grep -q "^mid:" ring.txt || fail "ring: no calls kept"
echo "llvm_xray: ok (ring overwritten $over times; $(tail -1 ring.txt))"
