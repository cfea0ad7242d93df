# FDR files are framed as docs/formats.md says ("Framing"), whatever the
# buffer size: for buffer_size 128 (the smallest), 1001 and 4104 (odd
# sizes) and 16384, in format versions 5 and 1, the log written at exit,
# an API snapshot and a crash snapshot (abort) of three threads with nested
# calls and custom events. fdr_frame_check.py checks each file: the header,
# then blocks that fill the file exactly, none larger than the header's
# buffer size; fdr-dump, convert and account read each (both versions are
# joined per thread).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
# ASan and UBSan handle the crash signals themselves (report, exit 1)
crash=abort
[ -z "${XRAY_TEST_SANITIZE:-}" ] || crash=
fdr_prog framing -lpthread
files=0
for version in 5 1; do
  for size in 128 1001 4104 16384; do
    for end in exit $crash; do
      rm -f xray-log.framing.*
      status=0
      XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr" \
        XRAY_FDR_OPTIONS="func_duration_threshold_us=0 buffer_size=$size buffer_max=16 format_version=$version snapshot_on_crash=true" \
        ./framing 300 "$end" 2>err.txt || status=$?
      want=0
      [ "$end" = exit ] || want=134
      expect_eq "v$version, $size, $end: exit status" $want $status
      expect_eq "v$version, $size, $end: files (log or crash snapshot, API snapshot)" 2 \
        "$(find . -maxdepth 1 -name 'xray-log.framing.*' | wc -l)"
      for f in xray-log.framing.*; do
        python3 "$TEST_SRC_DIR/fdr_frame_check.py" "$f" >/dev/null || fail "v$version, $size, $end: $f is not framed"
        expect_eq "v$version: $f's version" $version "$(fdr_header_field "$f" 0 2)"
        "$LLVM_XRAY" fdr-dump "$f" >/dev/null 2>&1 || fail "fdr-dump of $f (v$version, $size, $end)"
        "$LLVM_XRAY" convert -f yaml "$f" >/dev/null 2>&1 || fail "convert of $f (v$version, $size, $end)"
        "$LLVM_XRAY" account -m framing "$f" >account.txt 2>&1 || { cat account.txt >&2; fail "account of $f (v$version, $size, $end)"; }
        files=$((files + 1))
      done
    done
  done
done
# A snapshot that cannot map its image (the address space capped) is
# written as the buffers are, said at verbosity 0, still framed: with
# 128-byte buffers its metadata block (64 + 16 + the line) is larger than a
# buffer, so its header declares that block; convert and fdr-dump read it.
for version in 5 1; do
  for size in 128 16384; do
    rm -f xray-log.framing.*
    XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr verbosity=0" \
      XRAY_FDR_OPTIONS="func_duration_threshold_us=0 buffer_size=$size buffer_max=16 format_version=$version" \
      ./framing 300 nomem >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "nomem, $size: exit status $exit_status"; }
    snap=$(cat out.txt)
    grep -qF "xray-fdr: snapshot '$snap' written as the buffers are (no memory to join them): llvm-xray convert and fdr-dump read it, account may not" err.txt ||
      { cat err.txt >&2; fail "nomem, v$version, $size: message"; }
    python3 "$TEST_SRC_DIR/fdr_frame_check.py" "$snap" >frame.txt || fail "nomem, v$version, $size: $snap is not framed"
    [ "$(fdr_dump_count "$snap" '^<Thread ID')" -gt 3 ] || fail "nomem, v$version, $size: not one block per buffer"
    if [ $size = 128 ]; then
      [ "$(fdr_header_field "$snap" 16 8)" -gt 128 ] || fail "nomem, v$version, 128: header buffer size $(fdr_header_field "$snap" 16 8)"
    fi
    expect_eq "nomem, v$version, $size: header declares the largest block" \
      "$(fdr_header_field "$snap" 16 8)" "$(fdr_largest_block "$snap" | awk -v s=$size '{ print ($1 > s ? $1 : s) }')"
    "$LLVM_XRAY" convert -f yaml "$snap" >/dev/null 2>&1 || fail "convert of $snap"
  done
done
echo "framing: $files files framed and read; a snapshot without memory for its image is framed"
