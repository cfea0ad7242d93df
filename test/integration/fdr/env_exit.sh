# XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr" starts FDR with
# XRAY_FDR_OPTIONS and writes the log at exit, while another thread is still
# tracing; selecting the mode without initialising it records nothing.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog env_exit
for run in 1 2 3; do
  rm -f xray-log.env_exit.*
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr" \
    XRAY_FDR_OPTIONS="func_duration_threshold_us=0" ./env_exit 200
  f=$(only_file "xray-log.env_exit.*")
  calls=$(fdr_calls "$f" env_exit)
  # main's events fit in its one buffer: exact; the spinner's are whatever
  # the flight recorder kept, but every record it wrote parses
  # (main is patched before it starts: its entry and exit are there too)
  case "$calls" in
    "leaf:200/200 main:1/1 mid:200/200 spin:"*) ;;
    *) fail "run $run: $calls" ;;
  esac
done
# Legacy threshold from XRAY_OPTIONS when XRAY_FDR_OPTIONS is unset: 1 s
# erases every call of main (each takes nanoseconds), on one CPU (a call
# that changed CPU is never erased).
rm -f xray-log.env_exit.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr xray_fdr_log_func_duration_threshold_us=1000000" \
  xr_pinned ./env_exit 200
f=$(only_file "xray-log.env_exit.*")
fdr_calls "$f" env_exit | grep -q -E "(leaf|mid):" && fail "short calls kept at a 1 s threshold"
# Selected only: no file, nothing installed.
rm -f xray-log.env_exit.*
XRAY_OPTIONS="xray_mode=xray-fdr" XRAY_FDR_OPTIONS="func_duration_threshold_us=0" ./env_exit 200
expect_eq "selected only: no file" "" "$(ls xray-log.env_exit.* 2>/dev/null || true)"
echo "env_exit: ok"
