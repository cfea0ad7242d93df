# format_version=1: the 2017 layout (version 1 header, blocks from
# NewBuffer to EndOfBuffer, no Pid or BufferExtents records, the version-1
# custom event marker with an absolute TSC), joined per thread as version
# 5 is (one block per thread, the sync event), read by llvm-xray.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog counts
rm -f xray-log.counts.*
# 1 KiB buffers: 1008 usable bytes (16 kept for EndOfBuffer), 48 of
# preamble (NewBuffer, WalltimeMarker, NewCPUId), room for 120 8-byte
# records: 600 records fill 5 or 6, joined into one block. On one CPU: a
# NewCPUId record is each buffer's start (a migration would add one).
xr_pinned ./counts "func_duration_threshold_us=0 format_version=1 buffer_size=1024" 0 100
f=$(only_file "xray-log.counts.*")
expect_eq "version" 1 "$(fdr_header_field "$f" 0 2)"
expect_eq "type" 1 "$(fdr_header_field "$f" 2 2)"
expect_eq "header declares the block" "$(fdr_largest_block "$f")" "$(fdr_header_field "$f" 16 8)"
expect_eq "account" "leaf:200 mid:100" "$(fdr_counts "$f" counts)"
expect_eq "one block: NewBuffer" 1 "$(fdr_dump_count "$f" '^<Thread ID')"
expect_eq "one block: EndOfBuffer" 1 "$(fdr_dump_count "$f" '^<End of Buffer>')"
expect_eq "function records" 600 "$(fdr_dump_count "$f" '^<Function ')"
buffers=$(fdr_dump_count "$f" '^<CPU: ')
# Every buffer but the last is full: it was left for the next when the next
# record might not fit. A record is 8 bytes; an event on the writer's full
# path keeps 16 more for a NewCPUId or TSCWrap it may need first (every
# event where the CPU id needs a system call: without rseq, as under
# qemu-user), so a full buffer has fewer than 8 bytes left, or fewer than
# 24 (118 records, 6 buffers) there.
expect_eq "buffers left with room" "" "$("$LLVM_XRAY" fdr-dump "$f" | awk '
  /^<CPU: / { n++; used[n] = 48; next }
  /^<Function / { used[n] += 8; next }
  /^<(End of Buffer|Thread ID|Wall Time)/ { next }
  /^</ { used[n] += 16 }
  END { for (i = 1; i < n; i++) if (1008 - used[i] >= 24) print "buffer " i ": " 1008 - used[i] " bytes free" }')"
[ "$buffers" -eq 5 ] || [ "$buffers" -eq 6 ] || fail "buffers: $buffers, not 5 (fast path) or 6 (full path)"
expect_eq "no Pid records" 0 "$(fdr_dump_count "$f" '^<PID')"
expect_eq "no BufferExtents" 0 "$(fdr_dump_count "$f" '^<Buffer: size')"
# the first record after the header is NewBuffer (byte 0x01), not extents
expect_eq "first record" 1 "$(fdr_header_field "$f" 32 1)"

# Three threads, each filling 5 or 6 buffers, written at once: one block
# per thread with exactly its 600 records (mid 100, leaf 200 calls), the
# sync event (a version 1 custom event) first in each; account, stack and
# graph of every llvm-xray read it.
rm -f xray-log.counts.*
./counts "func_duration_threshold_us=0 format_version=1 buffer_size=1024" 3 100
f=$(only_file "xray-log.counts.*")
expect_eq "threads: blocks" "3 3" \
  "$(fdr_dump_count "$f" '^<Thread ID') $(fdr_dump_count "$f" '^<End of Buffer>')"
expect_eq "threads: events per thread" "enter:300 exit:300 sync:1
enter:300 exit:300 sync:1
enter:300 exit:300 sync:1" "$(fdr_yaml "$f" counts | awk '
  /kind: function-enter/ { match($0, /thread: [0-9]+/); e[substr($0, RSTART, RLENGTH)]++ }
  /kind: function-exit/ { match($0, /thread: [0-9]+/); x[substr($0, RSTART, RLENGTH)]++ }
  /kind: custom-event.*xray-sync/ { match($0, /thread: [0-9]+/); s[substr($0, RSTART, RLENGTH)]++ }
  END { for (t in e) print "enter:" e[t] " exit:" x[t] " sync:" s[t] }' | sort)"
expect_eq "threads: account" "leaf:600 mid:300" "$(fdr_counts "$f" counts)"
for x in "$LLVM_XRAY" $(command -v llvm-xray-14 llvm-xray-19 || true); do
  for cmd in account stack graph; do
    "$x" $cmd -m counts "$f" >/dev/null 2>"$cmd.err" || fail "$x $cmd: $(head -3 "$cmd.err")"
  done
done

fdr_prog custom
rm -f xray-log.custom.*
./custom "func_duration_threshold_us=0 format_version=1"
f=$(only_file "xray-log.custom.*")
expect_eq "v1 custom events" "hello-event ! hello-event ! hello-event !" \
  "$("$LLVM_XRAY" fdr-dump "$f" | grep '^<Custom Event' | sed -E "s/.*data = '(.*)'>$/\1/" | xargs)"
"$LLVM_XRAY" fdr-dump "$f" | grep '^<Custom Event' | grep -q 'tsc = [0-9]' || fail "v1 custom events carry a TSC"
expect_eq "v1 functions" "framed_event:3/3 leaf_event:3/3" "$(fdr_calls "$f" custom)"
echo "v1: ok"
