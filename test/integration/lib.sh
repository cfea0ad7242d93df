# Shared helpers for integration test scripts (sourced, bash).
# Environment from CMake: XRAY_LIB XRAY_INCLUDE XRAY_GEN_INCLUDE (the
# generated <xray/xray_version.h>) XRAY_SRC XRAY_CLANG XRAY_CLANGXX LLVM_XRAY
# XRAY_READELF TEST_SRC_DIR TEST_WORK_DIR.
set -euo pipefail

SKIP=77
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit $SKIP; }
note() { echo "--- $*" >&2; }

{ [ -n "${XRAY_CLANG:-}" ] && [ -x "$XRAY_CLANG" ]; } || skip "clang not found"
rm -rf "$TEST_WORK_DIR"
mkdir -p "$TEST_WORK_DIR"
cd "$TEST_WORK_DIR"
# A cross build (cmake/aarch64-linux-gnu.cmake): programs for the target,
# run under the emulator (cross.sh).
if [ -n "${XRAY_TEST_EMULATOR:-}" ]; then
  source "$(dirname "${BASH_SOURCE[0]}")/cross.sh"
fi
# xr_program_file PATH: the file the kernel maps for program PATH (what
# /proc/self/maps and the runtime name): PATH, or under emulation the ELF
# its script runs (cross.sh).
xr_program_file() {
  if [ -n "${XRAY_TEST_EMULATOR:-}" ]; then
    sed -n 's/^# xray-emulated-elf: //p' "$1"
  else
    echo "$1"
  fi
}
# The CPU test programs are built for, as compiler-rt names its archives
# (libclang_rt.xray-<arch>.a).
XRAY_TEST_ARCH=${XRAY_TEST_TARGET:-$(uname -m)}
XRAY_TEST_ARCH=${XRAY_TEST_ARCH%%-*}

# xr_no_link_deps_flag CLANG: the spelling of "do not link compiler-rt's XRay
# runtime" that CLANG accepts: clang 13-16 know only -fnoxray-link-deps,
# clang 19 only -fno-xray-link-deps (each rejects the other).
xr_no_link_deps_flag() {
  if "$1" -fxray-instrument -fno-xray-link-deps -x c -E /dev/null -o /dev/null 2>/dev/null; then
    echo -fno-xray-link-deps
  else
    echo -fnoxray-link-deps
  fi
}
XRAY_CFLAGS=(-fxray-instrument "$(xr_no_link_deps_flag "$XRAY_CLANG")" -fxray-instruction-threshold=1
             -I"$XRAY_INCLUDE" -I"${XRAY_GEN_INCLUDE:-$XRAY_INCLUDE}")
XRAY_LDFLAGS=("-Wl,--whole-archive" "$XRAY_LIB" "-Wl,--no-whole-archive" -lpthread)
# Sanitizer configurations (test/run-all.sh): programs get the archive's flags.
if [ -n "${XRAY_TEST_SANITIZE:-}" ]; then
  read -r -a XRAY_SANITIZE_FLAGS <<<"$XRAY_TEST_SANITIZE"
  XRAY_CFLAGS+=("${XRAY_SANITIZE_FLAGS[@]}")
  XRAY_LDFLAGS+=("${XRAY_SANITIZE_FLAGS[@]}")
fi

# xr_need_sanitizer_runtime CC: in a sanitizer configuration, skips (77)
# when CC cannot link a program with those flags: that clang's compiler-rt
# runtimes are not installed (clang 16 and later ship them apart, in
# libclang-rt-N-dev; test/run-all.sh installs them for the clangs it has).
xr_need_sanitizer_runtime() {
  [ -n "${XRAY_TEST_SANITIZE:-}" ] || return 0
  echo 'int main(void) { return 0; }' >sanitizer_probe.c
  "$1" "${XRAY_SANITIZE_FLAGS[@]}" sanitizer_probe.c -o sanitizer_probe 2>sanitizer_probe.err ||
    skip "$1 cannot link with $XRAY_TEST_SANITIZE (its sanitizer runtime is missing?): $(head -c 300 sanitizer_probe.err)"
  rm -f sanitizer_probe sanitizer_probe.c sanitizer_probe.err
}

# xr_cc OUT SRC... [-- extra flags]: instrumented C program linked with libxray.a
xr_cc() {
  local out=$1; shift
  "$XRAY_CLANG" -g -O1 "${XRAY_CFLAGS[@]}" "$@" -o "$out" "${XRAY_LDFLAGS[@]}"
}
# xr_cxx OUT SRC... : same for C++
xr_cxx() {
  local out=$1; shift
  [ -n "${XRAY_CLANGXX:-}" ] || skip "clang++ not found"
  "$XRAY_CLANGXX" -g -O1 "${XRAY_CFLAGS[@]}" "$@" -o "$out" "${XRAY_LDFLAGS[@]}"
}
need_llvm_xray() { [ -n "${LLVM_XRAY:-}" ] || skip "llvm-xray not found"; }
# xr_version: the runtime's version, as the generated <xray/xray_version.h>
# says it (XRAY_RUNTIME_VERSION).
xr_version() {
  sed -n 's/^#define XRAY_RUNTIME_VERSION "\(.*\)"$/\1/p' "$XRAY_GEN_INCLUDE/xray/xray_version.h"
}

# xr_pinned CMD...: runs CMD (and its children) on one CPU, the first this
# shell may use. Basic and FDR modes erase a short call only when it exits
# on the CPU it entered on (they do not compare two CPUs' TSCs): a check
# that short calls are erased runs its program pinned, so that a migration
# under load cannot keep one.
xr_pinned() {
  command -v taskset >/dev/null || skip "taskset (util-linux) not found"
  taskset -c "$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')" "$@"
}

# xr_poll CMD...: runs CMD every 0.1 s until it succeeds; status 1 after
# 60 s. For a state another thread or process reaches when it runs: the
# bound tells a hang from a slow machine, never a timing assumption.
xr_poll() {
  local i
  for ((i = 0; i < 600; i++)); do
    "$@" && return 0
    sleep 0.1
  done
  return 1
}

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
  [ "$2" == "$3" ] || fail "$1: expected [$2], got [$3]"
}
# xr_expected NAME: the expected-output file NAME.expected of the test's
# directory, or NAME.<cpu>.expected where the target differs (AArch64: clang
# records tail calls' sleds as function-exit).
xr_expected() {
  local f="$TEST_SRC_DIR/$1.$XRAY_TEST_ARCH.expected"
  [ -f "$f" ] || f="$TEST_SRC_DIR/$1.expected"
  echo "$f"
}
# expect_file_eq WHAT EXPECTED_FILE ACTUAL_FILE
expect_file_eq() {
  diff -u "$2" "$3" >&2 || fail "$1 differs"
}
# only_file PATTERN: prints the single file matching the glob, fails otherwise
only_file() {
  # shellcheck disable=SC2206  # $1 is a glob: expanding it is the point
  local matched=( $1 )
  { [ ${#matched[@]} -eq 1 ] && [ -e "${matched[0]}" ]; } || fail "expected one file matching $1, got: ${matched[*]}"
  echo "${matched[0]}"
}
