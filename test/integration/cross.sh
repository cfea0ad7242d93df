# Cross-built test runs (sourced by lib.sh when CMake found an emulator:
# cmake/aarch64-linux-gnu.cmake). The same test scripts then compile their
# programs for the target and run them under the emulator, unchanged:
#   - XRAY_CLANG / XRAY_CLANGXX become wrappers that add --target=<triple>.
#     A link of an executable puts the ELF in .emulated/<name> (same base
#     name: log files are named after argv[0]) and writes <name> as a script
#     that runs it under the emulator with argv[0] as given, so `./prog`,
#     `timeout 5 ./prog`, `kill -USR1 $pid` work as on the host. The ELF
#     gets an rpath of $ORIGIN/.. so the test's $ORIGIN shared objects load.
#   - LLVM_XRAY and XRAY_READELF become wrappers that read such a script's
#     ELF instead (-instr_map=./prog, readelf ./prog).
# Environment: XRAY_TEST_TARGET (triple), XRAY_TEST_EMULATOR (command and
# arguments, e.g. "qemu-aarch64 -L /usr/aarch64-linux-gnu").

xr_cross_dir="$TEST_WORK_DIR/.xr-cross"
mkdir -p "$xr_cross_dir"

# xr_cross_cc_wrapper NAME REAL: a compiler wrapper for the target.
xr_cross_cc_wrapper() {
  cat >"$xr_cross_dir/$1" <<WRAP
#!/usr/bin/env bash
set -e
real='$2' target='$XRAY_TEST_TARGET' emulator='$XRAY_TEST_EMULATOR'
WRAP
  cat >>"$xr_cross_dir/$1" <<'WRAP'
out= link=1 prev=
for a in "$@"; do
  case "$a" in
  -c | -S | -E | -shared | -fsyntax-only | -M | -MM | -print-* | --print-*) link= ;;
  esac
  [ "$prev" = -o ] && out=$a
  prev=$a
done
if [ -z "$link" ] || [ -z "$out" ] || [ "$out" = /dev/null ]; then
  exec "$real" --target="$target" "$@"
fi
dir=$(dirname "$out") base=$(basename "$out")
mkdir -p "$dir/.emulated"
args=() prev=
for a in "$@"; do
  if [ "$prev" = -o ]; then args+=("$dir/.emulated/$base"); else args+=("$a"); fi
  prev=$a
done
"$real" --target="$target" "${args[@]}" -Wl,-rpath,'$ORIGIN/..'
elf=$(cd "$dir/.emulated" && pwd)/$base
printf '#!/bin/sh\n# xray-emulated-elf: %s\nexec %s -0 "$0" %s "$@"\n' \
  "$elf" "$emulator" "$elf" >"$out"
chmod +x "$out"
WRAP
  chmod +x "$xr_cross_dir/$1"
}

# xr_cross_tool_wrapper NAME REAL: a host tool that reads ELF files.
xr_cross_tool_wrapper() {
  cat >"$xr_cross_dir/$1" <<WRAP
#!/usr/bin/env bash
real='$2'
WRAP
  cat >>"$xr_cross_dir/$1" <<'WRAP'
elf_of() { # prints the ELF behind an emulation script, else the argument
  local f=$1
  if [ -f "$f" ] && head -c 2 "$f" | grep -q '#!' &&
     sed -n 2p "$f" | grep -q '^# xray-emulated-elf: '; then
    sed -n 2p "$f" | sed 's/^# xray-emulated-elf: //'
  else
    printf '%s\n' "$f"
  fi
}
args=()
for a in "$@"; do
  case "$a" in
  -instr_map=* | --instr_map=* | -instr-map=* | --instr-map=* | -m=*)
    args+=("${a%%=*}=$(elf_of "${a#*=}")") ;;
  *) args+=("$(elf_of "$a")") ;;
  esac
done
"$real" "${args[@]}" || exit
# A target executable the tool wrote (objcopy --strip-all prog out): run
# it under the emulator too.
for a in "$@"; do
  case "$a" in *.so | *.so.*) continue ;; esac
  [ -f "$a" ] && [ -x "$a" ] && [ "$(head -c 4 "$a" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
  dir=$(cd "$(dirname "$a")" && pwd) base=$(basename "$a")
  mkdir -p "$dir/.emulated" && mv "$a" "$dir/.emulated/$base"
  printf '#!/bin/sh\n# xray-emulated-elf: %s\nexec %s -0 "$0" %s "$@"\n' \
    "$dir/.emulated/$base" "$XRAY_TEST_EMULATOR" "$dir/.emulated/$base" >"$a"
  chmod +x "$a"
done
WRAP
  chmod +x "$xr_cross_dir/$1"
}

xr_cross_cc_wrapper clang "$XRAY_CLANG"
XRAY_CLANG="$xr_cross_dir/clang"
if [ -n "${XRAY_CLANGXX:-}" ]; then
  xr_cross_cc_wrapper clang++ "$XRAY_CLANGXX"
  XRAY_CLANGXX="$xr_cross_dir/clang++"
fi
if [ -n "${LLVM_XRAY:-}" ]; then
  xr_cross_tool_wrapper llvm-xray "$LLVM_XRAY"
  LLVM_XRAY="$xr_cross_dir/llvm-xray"
fi
if [ -n "${XRAY_READELF:-}" ]; then
  xr_cross_tool_wrapper readelf "$XRAY_READELF"
  XRAY_READELF="$xr_cross_dir/readelf"
fi

# The same for the tools tests find by name (the clang-13..19 matrix,
# llvm-xray-14/19, llvm-objcopy): wrappers first on PATH.
mkdir -p "$xr_cross_dir/bin"
for xr_t in clang clang-13 clang-14 clang-16 clang-19 clang++ clang++-13 clang++-14 clang++-16 clang++-19; do
  xr_real=$(command -v "$xr_t" || true)
  [ -n "$xr_real" ] || continue
  xr_cross_cc_wrapper "bin/$xr_t" "$xr_real"
done
for xr_t in llvm-xray llvm-xray-13 llvm-xray-14 llvm-xray-16 llvm-xray-19 llvm-objcopy objcopy llvm-readelf readelf \
            llvm-nm nm llvm-objdump objdump llvm-symbolizer; do
  xr_real=$(command -v "$xr_t" || true)
  [ -n "$xr_real" ] || continue
  xr_cross_tool_wrapper "bin/$xr_t" "$xr_real"
done
PATH="$xr_cross_dir/bin:$PATH"
unset xr_t xr_real

# xrayctl, built for the target with the archive: run under the emulator
# too (control_lib.sh takes XRAYCTL as given), exec'd (signals reach it),
# and like the host tools above given the ELF behind an emulation script
# (report -m PROGRAM).
xr_ctl=$(dirname "$XRAY_LIB")/../bin/xrayctl
if [ -z "${XRAYCTL:-}" ] && [ -x "$xr_ctl" ]; then
  cat >"$xr_cross_dir/xrayctl" <<WRAP
#!/usr/bin/env bash
args=()
for a in "\$@"; do
  if [ -f "\$a" ] && [ "\$(head -c 2 "\$a" | tr -d '\\0')" = '#!' ] &&
     sed -n '2{p;q}' "\$a" | grep -q '^# xray-emulated-elf: '; then
    a=\$(sed -n '2{p;q}' "\$a" | sed 's/^# xray-emulated-elf: //')
  fi
  args+=("\$a")
done
exec $XRAY_TEST_EMULATOR $xr_ctl "\${args[@]}"
WRAP
  chmod +x "$xr_cross_dir/xrayctl"
  export XRAYCTL="$xr_cross_dir/xrayctl"
fi
unset xr_ctl

# Tests that cannot run on this target or under the emulator, and why
# (exit 77, as any skip). The name is the CTest name (the work directory's).
xr_cross_skip() {
  case "$1" in
  core_patch.avx512 | core_patch.x87 | stress.fp_args) echo "x86-64 only: AVX-512 and x87 registers" ;;
  core_patch.regs) echo "x86-64 only: its probe is x86 assembly (AArch64: aarch64.regs)" ;;
  core_patch.sled_order) echo "x86-64 only: hand-written x86 sleds" ;;
  fdr.signal_order) echo "x86-64 only: x86 inline assembly in the program" ;;
  bench.*) echo "timings under emulation mean nothing" ;;
  stress.threads) echo "qemu-user's own memory per thread grows VmHWM past the bound this test checks" ;;
  fdr.snapshot_storm) echo "too slow under emulation for its time limit" ;;
  budget.fork) echo "qemu-user cannot start a thread in a fork child whose parent runs another thread (its cpu_exec asserts)" ;;
  control.container) echo "its program starts from inside a new mount namespace whose /tmp hides the ELF the emulator's launcher script names" ;;
  package.install_find_package | package.pkg_config | package.demo) ;;
  package.*) echo "builds a consumer project with the host's CMake defaults: run in the native build" ;;
  dso.llvm20) echo "x86-64 only: its stand-in for LLVM 20's per-object trampolines is x86 assembly" ;;
  core_patch.custom_events) echo "its leaves are built -fomit-frame-pointer: clang 19's AArch64 event sled then does bl in a function that did not save x30, which returns into its own sled (a compiler bug; framed functions' events work: fdr.events, dso.events)" ;;
  core_patch.typed_handlers | core_patch.events | fdr.events | dso.events | trace_json.fdr | fdr.v1 | core_patch.exceptions)
    local major
    major=$("$XRAY_CLANG" -dM -E -x c /dev/null | sed -n 's/^#define __clang_major__ //p')
    [ "${major:-0}" -ge 19 ] || echo "clang $major emits no custom/typed event sleds for AArch64 (clang 19 does)" ;;
  esac
  return 0
}
xr_cross_reason=$(xr_cross_skip "$(basename "$TEST_WORK_DIR")")
[ -z "$xr_cross_reason" ] || skip "$XRAY_TEST_TARGET under emulation: $xr_cross_reason"
unset xr_cross_reason
