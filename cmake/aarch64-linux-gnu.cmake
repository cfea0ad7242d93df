# Cross-building for AArch64 Linux from another Linux host:
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# Needs clang, Debian's cross sysroot (libc6-dev-arm64-cross,
# libgcc-12-dev-arm64-cross; libstdc++-12-dev-arm64-cross for C++ tests),
# binutils-aarch64-linux-gnu (the linker clang picks for this target) and
# qemu-user, which runs the tests: `ctest` in that build runs every test
# program through CMAKE_CROSSCOMPILING_EMULATOR.
#
# Overrides (cache variables or the environment):
#   XRAY_AARCH64_CLANG    the clang to use (default: clang, else clang-14)
#   XRAY_AARCH64_SYSROOT  the target's root (default: /usr/aarch64-linux-gnu)
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(_xr_triple aarch64-linux-gnu)
if(NOT XRAY_AARCH64_CLANG)
  if(DEFINED ENV{XRAY_AARCH64_CLANG})
    set(XRAY_AARCH64_CLANG $ENV{XRAY_AARCH64_CLANG})
  else()
    find_program(XRAY_AARCH64_CLANG NAMES clang clang-14 clang-19 clang-16)
  endif()
endif()
if(NOT XRAY_AARCH64_SYSROOT)
  if(DEFINED ENV{XRAY_AARCH64_SYSROOT})
    set(XRAY_AARCH64_SYSROOT $ENV{XRAY_AARCH64_SYSROOT})
  else()
    set(XRAY_AARCH64_SYSROOT /usr/${_xr_triple})
  endif()
endif()
set(XRAY_AARCH64_CLANG ${XRAY_AARCH64_CLANG} CACHE FILEPATH "clang for AArch64")
set(XRAY_AARCH64_SYSROOT ${XRAY_AARCH64_SYSROOT} CACHE PATH "AArch64 target root")

set(CMAKE_C_COMPILER ${XRAY_AARCH64_CLANG})
set(CMAKE_ASM_COMPILER ${XRAY_AARCH64_CLANG})
set(CMAKE_C_COMPILER_TARGET ${_xr_triple})
set(CMAKE_ASM_COMPILER_TARGET ${_xr_triple})

# Debian's cross packages put headers and libraries under /usr/<triple>
# (not a sysroot layout with usr/), which clang --target finds by itself
# next to its own prefix; the emulator needs the same root for the dynamic
# loader and libc.
set(CMAKE_FIND_ROOT_PATH ${XRAY_AARCH64_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# LD_LIBRARY_PATH keeps the target's loader with the sysroot's own libc:
# with arm64 packages installed beside it (dpkg --add-architecture arm64, as
# for compiler-rt's AArch64 runtime), the host's /etc/ld.so.cache points at
# /lib/aarch64-linux-gnu/libc.so.6, a different build of glibc than the
# sysroot's loader, and the two together hang in pthread_create.
find_program(XRAY_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(XRAY_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${XRAY_QEMU_AARCH64} -L ${XRAY_AARCH64_SYSROOT}
      -E LD_LIBRARY_PATH=${XRAY_AARCH64_SYSROOT}/lib)
endif()
