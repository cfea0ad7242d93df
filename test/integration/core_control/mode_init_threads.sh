# A mode started in a program with threads pays no membarrier registration:
# the runtime registers once at start, before the program's first thread,
# while the kernel needs no RCU grace period for it (milliseconds otherwise,
# in the thread that starts the mode). strace shows the order: one
# REGISTER_PRIVATE_EXPEDITED, before the first clone; then FDR's fences.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
command -v strace >/dev/null || skip "strace not found"
[ -z "${XRAY_TEST_EMULATOR:-}" ] || skip "strace would trace the emulator"
xr_cc prog "$TEST_SRC_DIR/mode_init_threads.c" -lpthread
# LeakSanitizer cannot run under ptrace (the ASan phase)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  XRAY_OPTIONS="xray_logfile_base=log-" \
  strace -f -qq -e trace=membarrier,clone,clone3 -o trace.txt ./prog >out.txt ||
  fail "exit status $?"
expect_eq "mode selected and initialised" "select 0 init 2" "$(cat out.txt)"
[ "$(cat /proc/sys/kernel/membarrier 2>/dev/null || echo 1)" != 0 ] ||
  skip "membarrier is disabled on this kernel"
grep -q 'membarrier(MEMBARRIER_CMD_QUERY' trace.txt ||
  skip "no membarrier(2) here (kernel or seccomp): the pause stands in"
registers=$(grep -c 'MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) = 0' trace.txt || true)
expect_eq "registrations" 1 "$registers"
first_register=$(grep -n 'MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED' trace.txt | head -1 | cut -d: -f1)
first_clone=$(grep -nE '\bclone3?\(' trace.txt | head -1 | cut -d: -f1)
[ -n "$first_clone" ] || fail "no clone in the trace: $(head -c 400 trace.txt)"
[ "$first_register" -lt "$first_clone" ] ||
  fail "membarrier registered at line $first_register, after the first thread (line $first_clone)"
fences=$(grep -c 'membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0) = 0' trace.txt || true)
[ "$fences" -ge 1 ] || fail "FDR's finalize issued no membarrier fence"
echo PASS
