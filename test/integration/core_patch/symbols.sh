# The archive exports exactly the public API of include/xray/*.h (and of the
# generated xray_version.h) plus the six
# trampolines and the ABI shared objects use (lib/core/dispatch/dso_abi.h: register /
# deregister, and LLVM 20's four handler variables), and libc's sigaction,
# signal and __sysv_signal, which the FDR crash trigger interposes
# (lib/fdr/fdr_sigfront.c): every other global symbol is hidden (or static).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
readelf_tool=${XRAY_READELF:-readelf}
command -v "$readelf_tool" >/dev/null || skip "no readelf"
# Defined GLOBAL/WEAK symbols with DEFAULT visibility, from every member.
"$readelf_tool" -s -W "$XRAY_LIB" |
  awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" && $6 == "DEFAULT" { print $8 }' |
  sort -u >exported.txt
{
  # (minus the compiler builtins __xray_customevent/__xray_typedevent that
  # the comments mention)
  grep -ho '__xray_[A-Za-z_0-9]*[[:space:]]*(' "$XRAY_INCLUDE"/xray/*.h "$XRAY_GEN_INCLUDE"/xray/*.h |
    sed 's/[[:space:]]*($//' |
    grep -vx '__xray_customevent\|__xray_typedevent'
  printf '%s\n' __xray_FunctionEntry __xray_FunctionExit __xray_FunctionTailExit \
    __xray_ArgLoggerEntry __xray_CustomEvent __xray_TypedEvent \
    __xray_register_dso __xray_deregister_dso __xray_dso_dispatch __xray_dso_dense_dispatch __xray_dso_dense_dispatch_sp \
    _ZN6__xray19XRayPatchedFunctionE _ZN6__xray13XRayArgLoggerE \
    _ZN6__xray22XRayPatchedCustomEventE _ZN6__xray21XRayPatchedTypedEventE \
    sigaction signal __sysv_signal
} | sort -u >allowed.txt
[ -s allowed.txt ] || fail "no API found in the headers"
expect_file_eq "exported symbols (- missing, + unexpected)" allowed.txt exported.txt
