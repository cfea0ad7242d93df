# __xray_log_process_buffers: the header and each buffer, whose
# concatenation llvm-xray reads as a trace with the exact counts.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog in_memory
# 5000 calls = 80000 bytes of records: 5 buffers of 16 KiB, + the header
# (on one CPU: each migration adds a 16-byte NewCPUId record)
out=$(xr_pinned ./in_memory "func_duration_threshold_us=0 no_file_flush=true" mem.trace 5000)
expect_eq "buffers handed out" "buffers=6" "${out% *}"
expect_eq "bytes handed out" "bytes=$(stat -c %s mem.trace)" "${out#* }"
expect_eq "no file with no_file_flush" "" "$(ls xray-log.* 2>/dev/null || true)"
expect_eq "account of the concatenation" "work:5000" "$(fdr_counts mem.trace in_memory)"
expect_eq "header version" 5 "$(fdr_header_field mem.trace 0 2)"
# with a file too: the file and the in-memory copy are the same bytes
./in_memory "func_duration_threshold_us=0" mem2.trace 300 >/dev/null
f=$(only_file "xray-log.in_memory.*")
cmp "$f" mem2.trace || fail "file and in-memory buffers differ"
echo "in_memory: ok"

# An empty run (nothing recorded): one buffer that is only a preamble, so
# the file and the in-memory copy stay readable (a bare header is not).
rm -f xray-log.in_memory.*
./in_memory "func_duration_threshold_us=0" empty.trace 0 >/dev/null
f=$(only_file "xray-log.in_memory.*")
cmp "$f" empty.trace || fail "empty run: file and in-memory buffers differ"
expect_eq "empty run size" $((32 + 16 + 64)) "$(stat -c %s "$f")"
expect_eq "empty run: no functions" "" "$(fdr_calls "$f" in_memory)"
expect_eq "empty run: one buffer" 1 "$(fdr_dump_count "$f" '^<CPU:')"
echo "in_memory empty: ok"
