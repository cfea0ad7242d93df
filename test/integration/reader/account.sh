# xrayctl report --csv against llvm-xray account -format=csv: equal calls
# and totals per function id, on multi-threaded basic and FDR logs (version
# 5 and 1) and an FDR snapshot of our runtime, and compiler-rt's logs. compiler-rt's FDR log of
# concurrent threads (several buffers per thread, written in queue order)
# is one account refuses (docs/formats.md "What llvm-xray needs", rule 1):
# it is checked against account's rule applied to llvm-xray convert's
# decoding of the same file.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/reader_lib.sh"
need_llvm_xray
build_workers
N=1500
# worker 4, step, logged 4N, leaf 8N, fib(4) 9 calls a step: 36N
want=$(printf '%s\n' 4 $((4 * N)) $((4 * N)) $((8 * N)) $((36 * N)) | sort -n | xargs)
calls() { tr ' ' '\n' <<<"$1" | cut -d: -f2 | sort -n | xargs; }

log=$(run_workers workers basic- xray-basic "func_duration_threshold_us=0:thread_buffer_size=64" 4 $N 0)
got=$(same_as_account workers "$log")
expect_eq "basic: calls" "$want" "$(calls "$got")"

log=$(run_workers workers fdr- xray-fdr "func_duration_threshold_us=0:buffer_size=1024:buffer_max=8000" 4 $N 0)
got=$(same_as_account workers "$log")
expect_eq "fdr: calls" "$want" "$(calls "$got")"

# one thread, 4 MiB: report reads it ahead on a spare CPU (chunks of 1 MiB)
log=$(run_workers workers one- xray-fdr "func_duration_threshold_us=0:buffer_size=65536:buffer_max=100" 1 20000 0)
[ "$(stat -c %s "$log")" -gt $((3 * 1048576)) ] || fail "one thread: under 3 MiB"
got=$(same_as_account workers "$log")
expect_eq "fdr, one thread: calls" "1 20000 20000 40000 180000" "$(calls "$got")"

log=$(run_workers workers v1- xray-fdr "func_duration_threshold_us=0:buffer_size=1024:buffer_max=8000:format_version=1" 4 $N 0)
expect_eq "v1: version" "1" "$(od -An -tu2 -N2 "$log" | tr -d ' ')"
got=$(same_as_account workers "$log")
expect_eq "fdr v1: calls" "$want" "$(calls "$got")"

# an FDR snapshot (of a program whose calls longjmp skipped: the runtime
# closes them) is an FDR log
xr_cc threads "$XRAY_SRC/test/integration/trace_json/progs/threads.c"
rm -f snap-*
THREADS_SNAPSHOT=1 XRAY_OPTIONS="xray_logfile_base=snap- verbosity=0" ./threads xray-fdr \
  "func_duration_threshold_us=0:buffer_size=1024:buffer_max=4000" 4 300 1 0 ||
  fail "threads with a snapshot"
snap=$(only_file "snap-threads.??????.snap000001")
# leaf 2400, deep 688 (43 longjmps a thread, 4 frames each), mid 1200, worker 4
expect_eq "snapshot: calls" "1:2400 2:688 4:1200 5:4" "$(same_as_account threads "$snap")"

if build_workers_ref; then
  N=200
  want=$(printf '%s\n' 4 $((4 * N)) $((4 * N)) $((8 * N)) $((36 * N)) | sort -n | xargs)
  # threads one after the other: compiler-rt's basic log is then in time
  # order, which account needs
  log=$(run_workers workers.ref crt-basic- xray-basic "func_duration_threshold_us=0" 4 $N 1)
  got=$(same_as_account workers.ref "$log")
  expect_eq "compiler-rt basic: calls" "$want" "$(calls "$got")"
  # 4 KiB buffers: about 10 a thread, in queue order
  log=$(run_workers workers.ref crt-fdr- xray-fdr "func_duration_threshold_us=0:buffer_size=4096:buffer_max=1000" 4 $N 0)
  [ "$(stat -c %s "$log")" -gt $((4 * 6 * 4096)) ] || fail "compiler-rt fdr: under 6 buffers a thread"
  "$LLVM_XRAY" convert -f yaml "$log" >crt-fdr.yaml || fail "llvm-xray convert rejects $log"
  "$XRAYCTL" report --csv "$log" >crt-fdr.csv || fail "xrayctl report $log"
  got=$($COMPARE --report crt-fdr.csv --yaml crt-fdr.yaml)
  expect_eq "compiler-rt fdr: calls" "$want" "$(calls "$got")"
  # the same blocks, each thread's latest first: read in time order all the same
  python3 "$TEST_SRC_DIR/reverse_blocks.py" "$log" reversed.fdr
  "$XRAYCTL" report --csv reversed.fdr >reversed.csv || fail "xrayctl report reversed.fdr"
  expect_eq "compiler-rt fdr, blocks reversed: calls" "$want" \
    "$(calls "$($COMPARE --report reversed.csv --yaml crt-fdr.yaml)")"
else
  note "compiler-rt's XRay runtime not installed: its logs not checked"
fi
echo "account: ok"
