#!/usr/bin/env bash
# The whole test suite, from a fresh Debian machine:
#   1. installs what is missing (cmake, compilers, llvm tools, compiler-rt's
#      sanitizer and libFuzzer runtimes, also those of clang-13/16/19, cmocka,
#      go, python3, libc++) with apt-get;
#   2. static:   shellcheck on every shell script, clang-tidy-14 with the
#                checks of .clang-tidy over lib/ and tools/ (no build: a
#                configure with clang writes the compilation database); any
#                finding fails;
#      release:  the normal Release build with the default C compiler + ctest;
#      compilers: the archive built with each of gcc, clang-13/14/16/19 that
#                is installed, and a smoke test (XRAY_SMOKE_TESTS) on each;
#   3. asan:     clang, -fsanitize=address,undefined on the archive, the unit
#                tests and the instrumented test programs + ctest;
#   4. tsan:     clang, -fsanitize=thread + ctest of the concurrent tests
#                (buffer queue, registry, patching, stress);
#   5. fuzz:     each libFuzzer target for XRAY_FUZZ_SECONDS (default 30);
#   6. aarch64:  the runtime and the test programs cross-built for AArch64
#                (clang 14, then clang 19 for events) and run under
#                qemu-aarch64 (installs qemu-user and Debian's arm64 cross
#                packages, and compiler-rt's AArch64 runtime as reference).
#
# Idempotent: installs only what is missing, reuses build directories.
# Environment knobs (all optional):
#   XRAY_TEST_PHASES   phases to run, default "static release compilers asan tsan fuzz aarch64"
#   XRAY_TEST_BUILD    build root, default <repo>/build/test-suite
#   XRAY_TEST_JOBS     parallel build and ctest jobs, default 2
#   XRAY_FUZZ_SECONDS  seconds per fuzz target, default 30
#   XRAY_SKIP_INSTALL  set to 1 to never call apt-get
#   XRAY_TEST_ALL_COMPILERS  0: do not install clang-13/16/19 (their tests skip)
#   XRAY_TSAN_TESTS    ctest -R regex of the tests run under TSan
#   XRAY_SMOKE_TESTS   ctest -R regex of the tests run on each compiler's build
#   XRAY_AARCH64_TESTS ctest -R regex of the tests run under qemu-aarch64
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PHASES=${XRAY_TEST_PHASES:-static release compilers asan tsan fuzz aarch64}
BUILD_ROOT=${XRAY_TEST_BUILD:-$ROOT/build/test-suite}
JOBS=${XRAY_TEST_JOBS:-2}
export XRAY_FUZZ_SECONDS=${XRAY_FUZZ_SECONDS:-30}
# Concurrent parts: buffer queue, registry, thread hooks, writers, the
# overhead budget's sampling windows (their threads and the window's reader),
# the snapshot JSON helper thread (fdr.snapshot_api), live
# patching, and the stress tests with threads. Not here: tests that check
# vector registers survive a lean handler (TSan's instrumentation calls into
# its runtime, which uses them) or exact tail-exit events (TSan's function
# exit hooks turn tail calls into calls), such as core_patch.threads; nor
# basic.concurrent (under TSan's timing its threads' chunks interleave so
# that llvm-xray account, which wants time order, sometimes rejects the log);
# nor unit.core_control_lifecycle_signal (it forks inside a signal handler;
# under TSan the fork allocates there, in ld.so's allocate_dtv, and TSan
# reports a signal-unsafe call. Its one other thread waits on a barrier).
# Live retargeting of sleds to the argument trampolines (args_tramp.retarget).
# The overhead budget's thread culling while the program runs: budget.phases,
# unmet, onoff, control, dso (no new group: CMake's regex holds 9 at most);
# not budget.threads, whose FDR snapshots of a wrapping ring read buffers
# that writers take again, a race the snapshot validates afterwards by
# design; nor budget.fork (TSan does not start threads in the child of a
# process with threads). Argument capture's tables changed while threads
# read them (args_surface.race, .api).
TSAN_DEFAULT='^(args_surface\.race|args_surface\.api|args_tramp\.retarget|budget\.phases|budget\.unmet|budget\.onoff|budget\.control|budget\.dso|unit\.(budget_window|fdr_queue|fdr_prefault|fdr_log_writer|core_control_registry|core_control_thread|core_control_lifecycle|basic_writer)|basic\.(flush|fork|signal)|dso\.(fork_start|snapshot_map)|fdr\.(buffers|fork_signal|counts|snapshot_api|busy_snapshots|args)|profiling\.(faults|env_start)|core_control\.(exit_flush|exit_transition)|stress\.(patch_load|wx|api_abuse|fork_exit|fork_locks|faults|signals|threads)|control\.(security|lifecycle|record|top|dirs|modes|socket_ready)|budget\.windows|reader\.account)$'
TSAN_TESTS=${XRAY_TSAN_TESTS:-$TSAN_DEFAULT}

START=$SECONDS
say() { printf '\n=== [%4ds] %s\n' $((SECONDS - START)) "$*"; }

# --- 1. what a fresh machine lacks ----------------------------------------
missing=() optional=() apt_updated=0
need_cmd() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
want_cmd() { command -v "$1" >/dev/null 2>&1 || optional+=("$2"); }
need_file() { [ -e "$1" ] || missing+=("$2"); }
want_file() { [ -e "$1" ] || optional+=("$2"); }

need_cmd cmake cmake
need_cmd make make
need_cmd cc "gcc libc6-dev"
need_cmd clang clang
need_cmd llvm-xray llvm
need_cmd llvm-readelf llvm
need_cmd llvm-objdump llvm
need_cmd ld.lld lld
need_file /usr/include/cmocka.h libcmocka-dev
need_cmd go golang-go # go tool pprof reads the profiling mode's .pb (profiling.pprof)
need_cmd python3 python3 # the tests' readers of pprof and JSON output
need_cmd protoc protobuf-compiler # compiles the Perfetto tests' schema (perfetto.*)
need_file /usr/lib/python3/dist-packages/google/protobuf/__init__.py python3-protobuf # decodes .pftrace (perfetto.*, reader.convert)
need_cmd strace strace # counts the bytes a snapshot writes (fdr.snapshot_writes)
need_cmd valgrind valgrind # memcheck and callgrind run traced programs (valgrind.*)
want_cmd gdb gdb # backtraces through the trampolines (core_patch.exceptions)
want_cmd unshare util-linux # PID and mount namespaces (control.container; it skips without)
# libc++, whose __cxa_demangle is LLVM's (names.spelling's second half; left out without)
want_file "/usr/lib/$(uname -m)-linux-gnu/libc++.so" libc++-dev
want_file "/usr/lib/$(uname -m)-linux-gnu/libc++abi.so" libc++abi-dev
# an AArch64 C library to link AArch64 programs that xrayctl's names module
# reads on this host (names.fn_names_aarch64; it skips without)
want_file /usr/aarch64-linux-gnu/include/stdio.h libc6-dev-arm64-cross
want_file /usr/lib/gcc-cross/aarch64-linux-gnu/12/crtbeginS.o libgcc-12-dev-arm64-cross
case " $PHASES " in
  *" static "*) # the static phase's tools; the AArch64 port is analysed
                # against its own C library headers
    need_cmd shellcheck shellcheck
    need_cmd clang-tidy-14 clang-tidy-14
    need_file /usr/aarch64-linux-gnu/include/stdio.h libc6-dev-arm64-cross ;;
esac
# The other compilers the sled decoder must handle (core_patch.matrix skips
# any that is missing). XRAY_TEST_ALL_COMPILERS=0 leaves them out.
if [ "${XRAY_TEST_ALL_COMPILERS:-1}" != 0 ]; then
  for v in 13 16 19; do
    want_cmd "clang-$v" "clang-$v"
    want_cmd "llvm-xray-$v" "llvm-$v"
  done
fi
if command -v clang >/dev/null 2>&1; then
  # The sanitizer and libFuzzer runtimes are only "recommended" by clang.
  clang_major=$(clang -dumpversion | cut -d. -f1)
  rt_dir=$(clang -print-resource-dir)/lib/linux
  need_file "$rt_dir/libclang_rt.asan-x86_64.a" "libclang-rt-$clang_major-dev"
  need_file "$rt_dir/libclang_rt.fuzzer-x86_64.a" "libclang-rt-$clang_major-dev"
else
  missing+=(libclang-rt-dev)  # resolved below once clang is there
fi

if [ $((${#missing[@]} + ${#optional[@]})) -gt 0 ] && [ "${XRAY_SKIP_INSTALL:-0}" != 1 ]; then
  SUDO=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      SUDO=(sudo -n)
    elif [ ${#missing[@]} -gt 0 ]; then
      echo "run-all.sh: missing packages (${missing[*]}) and no root or sudo" >&2
      exit 1
    else
      optional=() # nothing we must have; the tests that need these skip
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt() { "${SUDO[@]}" apt-get -y -q --no-install-recommends "$@"; }
  pkgs=() rt=0
  for p in "${missing[@]}"; do
    if [ "$p" = libclang-rt-dev ]; then rt=1; else read -ra words <<<"$p"; pkgs+=("${words[@]}"); fi
  done
  say "installing: ${pkgs[*]} ${optional[*]}"
  "${SUDO[@]}" apt-get update -q
  apt_updated=1
  [ ${#pkgs[@]} -eq 0 ] || apt install "${pkgs[@]}"
  [ $rt = 0 ] || apt install "libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev"
  for p in "${optional[@]}"; do
    apt install "$p" || say "optional package $p not installable: its tests skip"
  done
fi

# The sanitizer runtimes of the other clangs: clang 16 and later ship them
# apart, in libclang-rt-N-dev (3-4 MB each, about 10 s to install); without
# them their matrix tests skip in the asan phase (xr_need_sanitizer_runtime).
if [ "${XRAY_TEST_ALL_COMPILERS:-1}" != 0 ] && [ "${XRAY_SKIP_INSTALL:-0}" != 1 ] &&
   { [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null 2>&1; }; then
  rt_pkgs=() probe=$(mktemp -d)
  echo 'int main(void) { return 0; }' >"$probe/p.c"
  for v in 13 16 19; do
    command -v "clang-$v" >/dev/null 2>&1 || continue
    "clang-$v" -fsanitize=address,undefined "$probe/p.c" -o "$probe/p" >/dev/null 2>&1 ||
      rt_pkgs+=("libclang-rt-$v-dev")
  done
  rm -rf "$probe"
  if [ ${#rt_pkgs[@]} -gt 0 ]; then
    SUDO=()
    [ "$(id -u)" -eq 0 ] || SUDO=(sudo -n)
    say "installing: ${rt_pkgs[*]}"
    [ $apt_updated = 1 ] || "${SUDO[@]}" apt-get update -q || true
    for p in "${rt_pkgs[@]}"; do
      DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get -y -q --no-install-recommends install "$p" ||
        say "optional package $p not installable: its asan matrix tests skip"
    done
  fi
fi

# --- helpers ---------------------------------------------------------------
# configure NAME [cmake args...]: (re)configures BUILD_ROOT/NAME.
configure() {
  local dir=$BUILD_ROOT/$1; shift
  cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >"$dir.configure.log" 2>&1 ||
    { mkdir -p "$dir"; cat "$dir.configure.log" >&2; return 1; }
}
build() { cmake --build "$BUILD_ROOT/$1" -j"$JOBS" "${@:2}"; }
# (--no-tests=error: a -R regex CMake cannot compile, e.g. one with more
# than 9 groups, selects no test and would otherwise pass)
run_ctest() {
  local dir=$BUILD_ROOT/$1; shift
  (cd "$dir" && ctest --output-on-failure --no-tests=error -j"$JOBS" "$@")
}
mkdir -p "$BUILD_ROOT"
failed=()

# --- 2. static checks -----------------------------------------------------
# house.shellcheck and house.clang_tidy (test/integration/house/), with their
# self-tests: the configure alone writes the compilation database clang-tidy
# reads, so nothing is built. XRAY_STATIC_REQUIRED=1: a missing tool or a
# port left unanalysed fails instead of skipping. ctest prints each finding.
phase_static() {
  configure static -DCMAKE_C_COMPILER=clang -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
  XRAY_STATIC_REQUIRED=1 run_ctest static -L '^static$'
}

# --- 2b. release ---------------------------------------------------------
phase_release() {
  configure release
  build release
  run_ctest release
}

# --- 2c. every compiler ----------------------------------------------------
# The runtime must build with gcc and clang 13-19 (each lacks or spells
# something differently: clang 13 cannot lower __builtin_thread_pointer).
# Only the archive is built (-j, a few seconds each); the smoke tests are
# integration tests, which need nothing else: the trampolines and the lean
# handlers as that compiler built them, through real instrumented programs
# (compiled by the default clang) read back by llvm-xray.
SMOKE_DEFAULT='^(core_patch\.(events|regs|avx512|x87|protection)|basic\.counts|fdr\.counts|profiling\.calltree|stress\.fp_args)$'
SMOKE_TESTS=${XRAY_SMOKE_TESTS:-$SMOKE_DEFAULT}
phase_compilers() {
  local cc tried=0 bad=()
  for cc in gcc clang-13 clang-14 clang-16 clang-19; do
    command -v "$cc" >/dev/null 2>&1 || { say "compiler $cc: not installed, skipped"; continue; }
    tried=$((tried + 1))
    say "compiler $cc"
    if configure "cc-$cc" -DCMAKE_C_COMPILER="$cc" && build "cc-$cc" --target xray &&
       run_ctest "cc-$cc" -R "$SMOKE_TESTS"; then
      :
    else
      bad+=("$cc")
    fi
  done
  [ $tried -gt 0 ] || { echo "no compiler of the list is installed" >&2; return 1; }
  [ ${#bad[@]} -eq 0 ] || { echo "compilers that failed: ${bad[*]}" >&2; return 1; }
}

# --- 3. ASan + UBSan -------------------------------------------------------
# The archive, the unit tests and (through XRAY_TEST_SANITIZE, read by
# test/integration/lib.sh) every instrumented test program are built with the
# same flags. UBSan findings abort, so they fail the test.
# Not here: package.* check the install layout (their consumer programs link
# without sanitizer flags).
ASAN_EXCLUDE=${XRAY_ASAN_EXCLUDE-'^(package\..*)$'}
SAN_ASAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
phase_asan() {
  configure asan -DCMAKE_C_COMPILER=clang \
    "-DCMAKE_C_FLAGS=$SAN_ASAN -g" \
    "-DCMAKE_EXE_LINKER_FLAGS=$SAN_ASAN" \
    "-DXRAY_TEST_SANITIZE=$SAN_ASAN"
  build asan
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_ctest asan -LE "^fuzz$" -E "$ASAN_EXCLUDE"
}

# --- 4. TSan (concurrent parts) -------------------------------------------
SAN_TSAN="-fsanitize=thread -fno-omit-frame-pointer"
phase_tsan() {
  configure tsan -DCMAKE_C_COMPILER=clang \
    "-DCMAKE_C_FLAGS=$SAN_TSAN -g" \
    "-DCMAKE_EXE_LINKER_FLAGS=$SAN_TSAN" \
    "-DXRAY_TEST_SANITIZE=$SAN_TSAN"
  build tsan
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/test/tsan.supp"
  local tests=$TSAN_TESTS
  # Patching writes code; an instrumented store to text faults in TSan's
  # shadow. Until lib/arch/x86_64/patch_x86_64.c writes code bytes in asm (known
  # bug, docs/reliability.md), programs that patch cannot run under TSan.
  if ! run_ctest tsan -R '^stress\.wx$' >"$BUILD_ROOT/tsan.probe.log" 2>&1; then
    if grep -q '__tsan_.*\|xr_patch_sled' "$BUILD_ROOT/tsan.probe.log" &&
       grep -q 'patch_x86_64.c' "$BUILD_ROOT/tsan.probe.log"; then
      echo "KNOWN BUG (core-patch): patching faults under TSan (instrumented stores to code);" \
           "TSan runs the unit tests only" >&2
      tests='^unit\.(fdr_queue|fdr_prefault|core_control_registry|core_control_thread|basic_writer)$'
      [ "${XRAY_STRESS_STRICT:-0}" != 1 ] || return 1
    else
      cat "$BUILD_ROOT/tsan.probe.log" >&2
      return 1
    fi
  fi
  local rc=0
  run_ctest tsan -R "$tests" -LE "^fuzz$" || rc=$?
  unset TSAN_OPTIONS
  return $rc # the phase's status is the tests' (not unset's)
}

# --- 5. libFuzzer ----------------------------------------------------------
SAN_FUZZ="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link"
phase_fuzz() {
  configure fuzz -DCMAKE_C_COMPILER=clang -DXRAY_FUZZ=ON \
    "-DCMAKE_C_FLAGS=$SAN_FUZZ -g"
  build fuzz --target xray_fuzzers
  run_ctest fuzz -L "^fuzz$" -V
}

# --- 6. AArch64 under emulation -------------------------------------------
# cmake/aarch64-linux-gnu.cmake: clang --target=aarch64-linux-gnu, Debian's
# cross sysroot, qemu-aarch64 as CMAKE_CROSSCOMPILING_EMULATOR; the same test
# scripts compile their programs for AArch64 and run them under qemu
# (test/integration/cross.sh says which cannot, and why: they exit 77).
# clang 14 runs a test of every area, the install's consumers and the
# README demo; clang 19, the first to emit AArch64 event sleds, the event,
# register and reference tests and the others whose programs log events
# (docs/design.md, "The two ports side by side", says what runs where).
# compiler-rt's AArch64 runtime (libclang-rt-14-dev:arm64, installed with
# dpkg --add-architecture arm64; optional: without it aarch64.reference and
# the side-by-side parts of other tests skip) is the reference the
# comparisons use.
AARCH64_DEFAULT='^(aarch64\..*|args\..*|args_surface\..*|args_tramp\..*|basic\.(counts|args|threshold|fork|signal|unwind|naming|values)|fdr\.(counts|buffers|states|in_memory|fork_signal|reinit|sync_event|erased_message|snapshot_api|snapshot_signal|crash|crash_trace|slow_call|args)|profiling\.(calltree|report|pprof|pprof_dso|fork_pprof|longjmp|exceptions|env_start)|dso\.(modes|host|stress|limits|initfirst|abi|objects\.clang-14)|names\.api|names\.profiling|names\.select_c|names\.fn_names|core_control\.(options_env|function_coverage|registry_statuses|log_file_line|quiet|bad_options|exit_flush)|core_patch\.(threads|patch_race|matrix\.clang-14|premain|symbols|no_map|headers|protection|tail_unwind|cull)|exceptions\..*|control\.(lifecycle|record|modes|security|top|map_copy)|trace_json\.basic|trace_json\.cut|trace_json\.llvm_xray|perfetto\.basic|perfetto\.snapshot|perfetto\.exceptions|perfetto\.record|budget\.windows|budget\.phases|budget\.unmet|budget\.onoff|budget\.off|budget\.threads|budget\.control|budget\.dso|budget\.own|budget\.header|house\.deps|fuzz_corpus\.(sled_map|fn_names)|package\.install_find_package|package\.pkg_config|package\.demo)$'
AARCH64_TESTS=${XRAY_AARCH64_TESTS:-$AARCH64_DEFAULT}
AARCH64_EVENTS='^(aarch64\.(regs|reference)|core_patch\.(events|typed_handlers|exceptions|matrix\.clang-19)|fdr\.(events|v1)|dso\.(events|objects\.clang-19)|trace_json\.fdr|perfetto\.fdr)$'
phase_aarch64() {
  local pkgs=() p
  for p in qemu-user libc6-dev-arm64-cross libgcc-12-dev-arm64-cross \
           libstdc++-12-dev-arm64-cross binutils-aarch64-linux-gnu; do
    dpkg -s "$p" >/dev/null 2>&1 || pkgs+=("$p")
  done
  local ref=/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.xray-aarch64.a
  if [ "${XRAY_SKIP_INSTALL:-0}" != 1 ] && { [ ${#pkgs[@]} -gt 0 ] || [ ! -e "$ref" ]; }; then
    local SUDO=()
    [ "$(id -u)" -eq 0 ] || SUDO=(sudo -n)
    export DEBIAN_FRONTEND=noninteractive
    [ ${#pkgs[@]} -eq 0 ] || { "${SUDO[@]}" apt-get update -q &&
      "${SUDO[@]}" apt-get -y -q --no-install-recommends install "${pkgs[@]}"; } || return 1
    if [ ! -e "$ref" ]; then
      { "${SUDO[@]}" dpkg --add-architecture arm64 && "${SUDO[@]}" apt-get update -q &&
        "${SUDO[@]}" apt-get -y -q --no-install-recommends install libclang-rt-14-dev:arm64; } ||
        say "compiler-rt's AArch64 runtime not installable: the reference comparisons skip"
    fi
  fi
  command -v clang-14 >/dev/null 2>&1 || { echo "clang-14 is needed for the aarch64 phase" >&2; return 1; }
  local rc=0
  configure aarch64-clang14 -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/aarch64-linux-gnu.cmake" \
    -DXRAY_AARCH64_CLANG="$(command -v clang-14)" -DXRAY_TEST_CLANG="$(command -v clang-14)" \
    -DXRAY_TEST_CLANGXX="$(command -v clang++-14)" && build aarch64-clang14 &&
    run_ctest aarch64-clang14 -R "$AARCH64_TESTS" || rc=1
  if command -v clang-19 >/dev/null 2>&1; then
    configure aarch64-clang19 -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/aarch64-linux-gnu.cmake" \
      -DXRAY_AARCH64_CLANG="$(command -v clang-19)" -DXRAY_TEST_CLANG="$(command -v clang-19)" \
      -DXRAY_TEST_CLANGXX="$(command -v clang++-19)" && build aarch64-clang19 &&
      run_ctest aarch64-clang19 -R "$AARCH64_EVENTS" || rc=1
  else
    say "clang-19 not installed: AArch64 events not tested"
  fi
  return $rc
}

for phase in $PHASES; do
  say "phase $phase"
  if ! "phase_$phase"; then
    failed+=("$phase")
    say "phase $phase FAILED"
  fi
done

say "done in $((SECONDS - START)) s; phases: $PHASES"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED phases: ${failed[*]}" >&2
  exit 1
fi
