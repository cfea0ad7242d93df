# Buffer exhaustion and recycling: dropped events are counted and reported
# (verbosity 1), the file stays readable; threads exiting mid-trace return
# their buffers, and the oldest data is overwritten first.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog exhaust
rm -f xray-log.exhaust.*
XRAY_OPTIONS=verbosity=1 ./exhaust "func_duration_threshold_us=0 buffer_max=3" 4 500 2>stderr.txt
f=$(only_file "xray-log.exhaust.*")
# 3 threads x 501 calls recorded; the 4th thread's 1002 events dropped
expect_eq "recorded" "work:1503/1503" "$(fdr_calls "$f" exhaust)"
expect_eq "threads in the file" 3 "$(fdr_dump_count "$f" '^<Thread ID')"
grep -q "xray-fdr: 1002 events dropped" stderr.txt || { cat stderr.txt >&2; fail "drop count message"; }
# quiet at verbosity 0
rm -f xray-log.exhaust.*
./exhaust "func_duration_threshold_us=0 buffer_max=3" 4 10 2>stderr0.txt
expect_eq "verbosity 0 is quiet" "" "$(cat stderr0.txt)"

fdr_prog thread_exit
# 12 threads, 4 buffers: 200 calls (3200 bytes) fit one buffer each; a
# thread's buffer goes back at its exit and the next thread takes the one
# released longest ago, so the last 4 threads' calls remain, none dropped.
rm -f xray-log.thread_exit.*
XRAY_OPTIONS=verbosity=1 ./thread_exit "func_duration_threshold_us=0 buffer_max=4" 12 200 2>stderr.txt
f=$(only_file "xray-log.thread_exit.*")
expect_eq "kept: the last 4 threads" "work:800/800" "$(fdr_calls "$f" thread_exit)"
grep -q "xray-fdr: 0 events dropped .* 8 buffers overwritten" stderr.txt || { cat stderr.txt >&2; fail "overwrite message"; }
expect_eq "threads in the file" 4 "$(fdr_dump_count "$f" '^<Thread ID')"
echo "buffers: ok"

# A file that cannot be written whole (RLIMIT_FSIZE 64 KiB, SIGXFSZ ignored;
# 8 threads of one buffer, each written as a block of 16105 bytes:
# BufferExtents, NewBuffer, Walltime, Pid, the sync event (NewCPUId,
# marker, 9 bytes), the buffer's NewCPUId, 2000 records; 4 fit):
# cut back to the last whole block, still readable, and the failure said.
# On one CPU (xr_pinned): a thread that migrates writes one more NewCPUId,
# and its block is 16 bytes longer than counted here.
rm -f xray-log.thread_exit.*
( trap '' XFSZ; ulimit -f 64
  xr_pinned ./thread_exit "func_duration_threshold_us=0 buffer_size=16384 buffer_max=8" 8 1000 ) 2>fsize.txt
f=$(only_file "xray-log.thread_exit.*")
grep -q "xray-fdr: writing '.*' failed: File too large; it keeps the 4 whole block(s) written before" fsize.txt ||
  { cat fsize.txt >&2; fail "file size failure message"; }
expect_eq "cut to whole blocks" $((32 + 4 * (16 + 48 + 41 + 16 + 2000 * 8))) "$(stat -c %s "$f")"
expect_eq "readable after the cut" "work:4000/4000" "$(fdr_calls "$f" thread_exit)"
echo "buffers fsize: ok"
