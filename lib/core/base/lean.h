/* Included first by every lean translation unit: code that runs on the lean
 * trampoline paths, which save general registers only (the built-in modes'
 * handlers, and what they call without a vector save). Such a file must be
 * compiled with -mgeneral-regs-only (or -mno-sse -mno-mmx -mno-80387), else
 * the compiler may keep values in vector registers the trampoline did not
 * save and corrupt the traced program's. lib/CMakeLists.txt gives those flags
 * and XR_LEAN_TU together to the files listed in XRAY_LEAN_SOURCES; a file
 * that includes this header without being listed does not build. */
#ifndef XR_LEAN_H
#define XR_LEAN_H

#ifndef XR_LEAN_TU
#error "a lean translation unit built without the lean flags: list it in XRAY_LEAN_SOURCES (lib/CMakeLists.txt)"
#endif

#endif
