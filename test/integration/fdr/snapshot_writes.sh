# A snapshot is written once, already joined per thread: strace counts
# every byte the program writes to the snapshot's file, which is exactly
# the file's size (write/writev), plus at most a few 8- or 16-byte pwrite
# patches (the header's declared block size, a block's BufferExtents); no
# other file (a .tmp) is opened or renamed over it. Versions 5 and 1, three
# threads, 128-byte buffers (the header patch) and 16 KiB ones.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
command -v strace >/dev/null || skip "strace not found"
command -v python3 >/dev/null || skip "python3 not found"
fdr_prog framing -lpthread
for version in 5 1; do
  for size in 128 16384; do
    rm -f xray-log.framing.* trace.txt
    # LeakSanitizer cannot run under ptrace (the ASan phase)
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
      XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr" \
      XRAY_FDR_OPTIONS="func_duration_threshold_us=0 buffer_size=$size buffer_max=1000 format_version=$version" \
      strace -f -y -qq -e trace=openat,write,writev,pwrite64,rename,renameat,renameat2 \
      -o trace.txt ./framing 300 || fail "v$version, $size: exit status $?"
    snap=$(only_file "xray-log.framing.*.snap000001")
    got=$(python3 - "$PWD/$snap" trace.txt <<'PY'
import re, sys
path, trace = sys.argv[1], open(sys.argv[2]).read().splitlines()
written = patches = 0
bad = []
for line in trace:
    m = re.search(r'(\w+)\((\d+)<([^>]*)>.*\) = (-?\d+)', line)
    if re.search(r'\b(openat|rename\w*)\(', line) and '.tmp' in line:
        bad.append(line)
    if not m or m.group(3) != path:
        continue
    call, n = m.group(1), int(m.group(4))
    if call in ("write", "writev"):
        written += n
    elif call == "pwrite64":
        if n > 16:
            bad.append(line)
        patches += 1
print(written, "patches" if patches else "no patches", "bad:" + str(len(bad)))
for b in bad:
    print(b, file=sys.stderr)
PY
)
    want_patch="no patches"
    [ $size = 16384 ] || want_patch=patches # the header declares a block
    expect_eq "v$version, $size: bytes written to $snap" \
      "$(stat -c %s "$snap") $want_patch bad:0" "$got"
    expect_eq "v$version, $size: one block per thread" 3 "$(fdr_dump_count "$snap" '^<Thread ID')"
    "$LLVM_XRAY" account -m framing "$snap" >/dev/null || fail "v$version, $size: account of $snap"
  done
done
echo "snapshot_writes: ok"
