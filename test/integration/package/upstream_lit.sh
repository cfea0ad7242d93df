# tools/upstream-lit/run.sh (docs/usage.md) on lit tests of our own written
# the way compiler-rt's are: every substitution it maps (%clang_xray,
# %clangxx_xray, %clangxx, %xraylib, %llvm_xray, %run, %{readfile:}) and a
# REQUIRES on the target triple, against our archive. Exact counts.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
[ -z "${XRAY_TEST_SANITIZE:-}" ] || skip "the tool links the plain archive"
v=$("$XRAY_CLANG" -dumpversion | cut -d. -f1)
{ command -v "clang-$v" >/dev/null && command -v "clang++-$v" >/dev/null; } ||
  skip "clang-$v / clang++-$v not found"
for tool in FileCheck split-file; do
  command -v $tool >/dev/null || ls /usr/lib/llvm-*/bin/$tool >/dev/null 2>&1 ||
    skip "$tool not found (llvm-N-tools)"
done
command -v lit >/dev/null || ls /usr/lib/llvm-*/build/utils/lit/lit.py >/dev/null 2>&1 ||
  skip "lit not found (llvm-N-tools)"

mkdir cases
cat >cases/log.cpp <<'CASE'
// RUN: %clangxx_xray -g %s -o %t
// RUN: rm -f lit-log-*
// RUN: env XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic verbosity=1 \
// RUN:     xray_logfile_base=lit-log-" XRAY_BASIC_OPTIONS=func_duration_threshold_us=0 \
// RUN:     %run %t 2>&1 | FileCheck %s
// RUN: ls lit-log-* | head -1 | tr -d '\n' > %t.name
// RUN: %llvm_xray convert --symbolize --output-format=yaml -instr_map=%t \
// RUN:     "%{readfile:%t.name}" | FileCheck %s --check-prefix=TRACE
// RUN: rm -f lit-log-*
#include <cstdio>
[[clang::xray_always_instrument]] void __attribute__((noinline)) traced() {
  printf("traced ran\n");
}
int main() { traced(); }
// CHECK: XRay: Log file in 'lit-log-{{.*}}'
// CHECK: traced ran
// TRACE: function: {{.*traced.*}}, {{.*}}kind: function-enter,
CASE
cat >cases/handler.c <<'CASE'
// RUN: %clang_xray %s -o %t
// RUN: %run %t | FileCheck %s
// REQUIRES: target={{x86_64-.*linux.*}}, built-in-llvm-tree
#include <stdio.h>
#include "xray/xray_interface.h"
__attribute__((xray_never_instrument)) static void on(int32_t id, enum XRayEntryType t) {
  printf("event %d %d\n", id, (int)t);
}
__attribute__((xray_always_instrument, noinline)) void f(void) {}
int main(void) {
  __xray_set_handler(on);
  __xray_patch();
  f();
  return 0;
}
// CHECK: event 1 0
// CHECK-NEXT: event 1 1
CASE
cat >cases/no_map.cpp <<'CASE'
// RUN: %clangxx %s -o %t %xraylib
// RUN: env XRAY_OPTIONS=verbosity=1 %run %t 2>&1 | FileCheck %s
// CHECK: XRay instrumentation map missing. Not initializing XRay.
int main() { return 0; }
CASE
cat >cases/other_arch.cpp <<'CASE'
// RUN: false
// REQUIRES: target=aarch64{{.*}}
int main() { return 0; }
CASE

BUILD="$XRAY_BUILD_DIR" CLANG_VERSION=$v \
  "$XRAY_SRC/tools/upstream-lit/run.sh" "$PWD/cases" ours -v >lit.out 2>&1 ||
  { exit_status=$?; cat lit.out >&2; fail "run.sh exited with $exit_status"; }
grep -Eq '^ *Passed *: *3$' lit.out || { cat lit.out >&2; fail "3 passed"; }
grep -Eq '^ *Unsupported *: *1$' lit.out || { cat lit.out >&2; fail "1 unsupported"; }
grep -q '^UNSUPPORTED: .* :: other_arch.cpp' lit.out || fail "other_arch unsupported"
echo "upstream_lit: ok"
