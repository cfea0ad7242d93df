# Exact call counts at threshold 0: main thread alone, 1 thread, 4 threads
# writing concurrently (several buffers each), read back by llvm-xray
# account; again without rseq; the same object with compiler-rt's runtime
# counts the same.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog counts
for threads in 0 1 4; do
  rm -f xray-log.counts.*
  XRAY_OPTIONS="xray_logfile_base=xray-log." ./counts "func_duration_threshold_us=0" $threads 3000
  f=$(only_file "xray-log.counts.*")
  n=$(( threads == 0 ? 1 : threads ))
  expect_eq "calls, $threads threads" "leaf:$((6000 * n))/$((6000 * n)) mid:$((3000 * n))/$((3000 * n))" "$(fdr_calls "$f" counts)"
  # several buffers per thread (3000 calls * 6 records * 8 bytes > 16 KiB),
  # written as one block per thread, which account reads whatever the
  # number of threads (docs/formats.md)
  expect_eq "account, $threads threads" "leaf:$((6000 * n)) mid:$((3000 * n))" "$(fdr_counts "$f" counts)"
  expect_eq "blocks, $threads threads" $n "$(fdr_dump_count "$f" '^<Buffer: size')"
  [ "$(stat -c %s "$f")" -gt $((n * 5 * 16384)) ] || fail "$threads threads: under 5 buffers each"
  expect_eq "header version" 5 "$(fdr_header_field "$f" 0 2)"
  expect_eq "header type" 1 "$(fdr_header_field "$f" 2 2)"
  # one block per thread, larger than a buffer: the header declares the
  # largest (docs/formats.md, "Framing")
  expect_eq "header buffer size" "$(fdr_largest_block "$f")" "$(fdr_header_field "$f" 16 8)"
  mv "$f" "ours.$threads.trace"
done
# Buffers over 4 MiB get a helper thread that faults fresh buffers in
# ahead of the writers (lib/fdr/fdr_prefault.c): 4 threads write while it
# runs, finalize stops it; the counts are as exact as without it
# (populate_ahead_mb=0).
for ahead in 32 0; do
  rm -f xray-log.counts.*
  XRAY_OPTIONS="xray_logfile_base=xray-log. verbosity=1" ./counts \
    "func_duration_threshold_us=0 buffer_size=1048576 buffer_max=12 populate_ahead_mb=$ahead" \
    4 20000 2>stderr.txt
  said=$(grep -c 'faulted in ahead by a helper thread' stderr.txt || true)
  expect_eq "helper announced, populate_ahead_mb=$ahead" "$(( ahead > 0 ? 1 : 0 ))" "$said"
  f=$(only_file "xray-log.counts.*")
  expect_eq "calls, large buffers, populate_ahead_mb=$ahead" "leaf:160000/160000 mid:80000/80000" "$(fdr_calls "$f" counts)"
  expect_eq "account, large buffers, populate_ahead_mb=$ahead" "leaf:160000 mid:80000" "$(fdr_counts "$f" counts)"
done
# Without an rseq area (glibc < 2.35, or rseq turned off as here) the fast
# path reads the CPU with rdpid or rdtscp: the same exact counts. Before,
# every event took the slow path (199 ns per event instead of 11).
for threads in 1 4; do
  rm -f xray-log.counts.*
  GLIBC_TUNABLES=glibc.pthread.rseq=0 XRAY_OPTIONS="xray_logfile_base=xray-log. verbosity=2" \
    ./counts "func_duration_threshold_us=0" $threads 3000 2>stderr.txt
  source_line=$(grep -o 'cpu id via [a-z_]*' stderr.txt | head -1)
  if [ "$source_line" = "cpu id via rseq" ]; then
    note "this glibc ignores glibc.pthread.rseq=0: no-rseq run skipped"
    break
  fi
  case $source_line in
    "cpu id via rdpid"|"cpu id via rdtscp") ;;
    # AArch64 has no CPU-id instruction at EL0: getcpu, on the full path.
    "cpu id via sched_getcpu") [ "$XRAY_TEST_ARCH" = aarch64 ] || fail "no rseq: sched_getcpu on $XRAY_TEST_ARCH" ;;
    *) fail "no rseq: expected rdpid or rdtscp, got '$source_line'" ;;
  esac
  f=$(only_file "xray-log.counts.*")
  expect_eq "calls without rseq ($source_line), $threads threads" \
    "leaf:$((6000 * threads))/$((6000 * threads)) mid:$((3000 * threads))/$((3000 * threads))" \
    "$(fdr_calls "$f" counts)"
done
if xr_cc_ref counts_ref "$TEST_SRC_DIR/progs/counts.c" -I"$TEST_SRC_DIR/progs" -lpthread; then
  rm -f xray-log.counts_ref.*
  XRAY_OPTIONS="xray_logfile_base=xray-log." ./counts_ref "func_duration_threshold_us=0" 4 3000 2>/dev/null
  f=$(only_file "xray-log.counts_ref.*")
  expect_eq "compiler-rt calls" "leaf:24000/24000 mid:12000/12000" "$(fdr_calls "$f" counts_ref)"
else
  note "compiler-rt's runtime not linkable here: side-by-side check skipped"
fi
echo "counts: ok"
