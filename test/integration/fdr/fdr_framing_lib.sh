# Sourced (after lib.sh) by every test that writes FDR files: at its exit,
# when it passed, every FDR file under the test's directory must be framed
# as docs/formats.md says (header; BufferExtents blocks that fill the file,
# none larger than the header's buffer size; well-formed records), checked
# by fdr_frame_check.py; the test fails otherwise.
fdr_check_framing() {
  python3 "$XRAY_SRC/test/integration/fdr/fdr_frame_check.py" --scan "$TEST_WORK_DIR" \
    >"$TEST_WORK_DIR/framing.txt" || fail "an FDR file is not framed (above)"
}
fdr_framing_exit() { local rc=$?; [ $rc -ne 0 ] || fdr_check_framing; exit $rc; }
trap fdr_framing_exit EXIT
