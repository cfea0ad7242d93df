# snapshot_on_crash=true in a program that installs its own SIGSEGV handler
# in main, after FDR started: the crash snapshot is written first, then the
# program's handler runs (its report prints), and the crash ends as without
# the option (signal, core dump, exit status). The program's sigaction query
# sees its own handler. Handlers: print and re-raise (SA_SIGINFO), print and
# _exit(1), installed with signal() then abort() (also built with -std=c11,
# where signal() is glibc's __sysv_signal), SA_RESETHAND and return (the
# fault repeats under SIG_DFL); and SIG_IGN first (a raised SIGSEGV is
# ignored, no snapshot), then the _exit(1) handler.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
command -v python3 >/dev/null || skip "python3 not found"
fdr_prog crash_own
xr_cc crash_own_c11 "$TEST_SRC_DIR/progs/crash_own.c" -I"$TEST_SRC_DIR/progs" \
  -std=c11 -D_POSIX_C_SOURCE=200809L
"$XRAY_CLANG" -c -std=c11 -D_POSIX_C_SOURCE=200809L -I"$XRAY_INCLUDE" -I"$TEST_SRC_DIR/progs" \
  "$TEST_SRC_DIR/progs/crash_own.c" -o c11.o
nm c11.o | grep -q ' U __sysv_signal$' || fail "with -std=c11, signal() is not __sysv_signal"
ulimit -c unlimited 2>/dev/null || true
cores=1
if [ -n "${XRAY_TEST_SANITIZE:-}" ]; then
  cores=0 && echo "sanitizer runtimes turn core dumps off (disable_coredump): no core expected"
elif [ "$(ulimit -c)" != unlimited ] || [[ "$(cat /proc/sys/kernel/core_pattern)" != core* ]]; then
  cores=- && echo "core dumps go elsewhere here (core_pattern, ulimit -c): core bit not checked"
fi
base="func_duration_threshold_us=0"
report="report: SIGSEGV, crashed in crash_null"
for run in crash_own:reraise crash_own:exit crash_own:signal crash_own:resethand \
           crash_own:ignore crash_own_c11:signal; do
  prog=${run%%:*} mode=${run#*:}
  rm -f "xray-log.$prog".* core core.*
  without=$(wait_status "./$prog" "$base" "$mode" 2>/dev/null)
  ignored=""
  [ "$mode" != ignore ] || ignored=$'ignored\n'
  expect_eq "$run: without the option, the report" "${ignored}query: own
$report" "$(cat prog.out)"
  rm -f core core.*
  with=$(XRAY_OPTIONS=verbosity=1 wait_status "./$prog" "$base snapshot_on_crash=true" "$mode" 2>err.txt)
  rm -f core core.*
  expect_eq "$run: ends as without the option" "$without" "$with"
  case $mode in
    exit|ignore) want="exit=1" ;;
    signal) want="signal=6 core=$cores" ;;
    *) want="signal=11 core=$cores" ;;
  esac
  [ "$cores" != - ] || with=${with/core=[01]/core=-}
  expect_eq "$run: status" "$want" "$with"
  expect_eq "$run: the program's query and report" "${ignored}query: own
$report" "$(cat prog.out)"
  expect_eq "$run: said once at verbosity 1" 1 \
    "$(grep -c "the program installs its own SIGSEGV handler; kept behind the crash snapshot" err.txt || true)"
  # one snapshot, of the SIGSEGV (abort() in the handler is the same crash)
  expect_eq "$run: one snapshot" "xray-log.$prog.X.snap000001" \
    "$(printf '%s\n' "xray-log.$prog".*.snap* | sed 's/\.[^.]*\.snap/.X.snap/')"
  snap=$(only_file "xray-log.$prog.*.snap000001")
  expect_eq "$run: metadata" 1 \
    "$(fdr_dump_count "$snap" "data = 'xray-snapshot number=1 reason=crash signal=11 tid=[0-9]+ buffers=[0-9]+ ")"
  expect_eq "$run: the calls before the crash" "crash_null:1/0 work:10/10" \
    "$(fdr_calls "$snap" "$prog")"
done
echo "crash_own: ok"
