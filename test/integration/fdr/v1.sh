# format_version=1: the 2017 layout (version 1 header, buffers ending in
# EndOfBuffer, no Pid or BufferExtents records, the version-1 custom event
# marker with an absolute TSC), read by llvm-xray.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog counts
rm -f xray-log.counts.*
# 1 KiB buffers: 1008 usable bytes (16 kept for EndOfBuffer), 48 of
# preamble (NewBuffer, WalltimeMarker, NewCPUId), room for 120 8-byte
# records: 600 records fill 5 or 6. (Not more than 16 buffers per thread:
# llvm-xray 14 sorts a thread's buffers with a comparator that is not an
# ordering and scrambles more than 16.) On one CPU: each migration adds a
# 16-byte NewCPUId record.
xr_pinned ./counts "func_duration_threshold_us=0 format_version=1 buffer_size=1024" 0 100
f=$(only_file "xray-log.counts.*")
expect_eq "version" 1 "$(fdr_header_field "$f" 0 2)"
expect_eq "type" 1 "$(fdr_header_field "$f" 2 2)"
expect_eq "buffer size" 1024 "$(fdr_header_field "$f" 16 8)"
expect_eq "account" "leaf:200 mid:100" "$(fdr_counts "$f" counts)"
buffers=$(fdr_dump_count "$f" '^<End of Buffer>')
expect_eq "one NewBuffer per EndOfBuffer" "$buffers" "$(fdr_dump_count "$f" '^<Thread ID')"
expect_eq "function records" 600 "$(fdr_dump_count "$f" '^<Function ')"
# Every buffer but the last is full: it was left for the next when the next
# record might not fit. A record is 8 bytes; an event on the writer's full
# path keeps 16 more for a NewCPUId or TSCWrap it may need first (every
# event where the CPU id needs a system call: without rseq, as under
# qemu-user), so a full buffer has fewer than 8 bytes left, or fewer than
# 24 (118 records, 6 buffers) there.
expect_eq "buffers left with room" "" "$("$LLVM_XRAY" fdr-dump "$f" | awk '
  /^<Thread ID/ { n++; used[n] = 0 }
  /^<Function / { used[n] += 8; next }
  /^<End of Buffer>/ { next }
  /^</ { used[n] += 16 }
  END { for (i = 1; i < n; i++) if (1008 - used[i] >= 24) print "buffer " i ": " 1008 - used[i] " bytes free" }')"
[ "$buffers" -eq 5 ] || [ "$buffers" -eq 6 ] || fail "buffers: $buffers, not 5 (fast path) or 6 (full path)"
expect_eq "no Pid records" 0 "$(fdr_dump_count "$f" '^<PID')"
expect_eq "no BufferExtents" 0 "$(fdr_dump_count "$f" '^<Buffer: size')"
# the first record after the header is NewBuffer (byte 0x01), not extents
expect_eq "first record" 1 "$(fdr_header_field "$f" 32 1)"

fdr_prog custom
rm -f xray-log.custom.*
./custom "func_duration_threshold_us=0 format_version=1"
f=$(only_file "xray-log.custom.*")
expect_eq "v1 custom events" "hello-event ! hello-event ! hello-event !" \
  "$("$LLVM_XRAY" fdr-dump "$f" | grep '^<Custom Event' | sed -E "s/.*data = '(.*)'>$/\1/" | xargs)"
"$LLVM_XRAY" fdr-dump "$f" | grep '^<Custom Event' | grep -q 'tsc = [0-9]' || fail "v1 custom events carry a TSC"
expect_eq "v1 functions" "framed_event:3/3 leaf_event:3/3" "$(fdr_calls "$f" custom)"
echo "v1: ok"
