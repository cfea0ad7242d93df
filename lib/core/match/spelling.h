/* One spelling for the two demanglers' ways of writing a C++ name.
 *
 * The name table holds what the program's own __cxa_demangle writes:
 * libstdc++'s (GNU libiberty) or libc++abi's (LLVM's demangler, the one
 * llvm-xray uses). They write some names differently, for instance
 *   GNU                              LLVM
 *   operator<< <int>                 operator<<<int>
 *   f()::{lambda(int)#2}             f()::'lambda0'(int)
 *   Outer::{unnamed type#1}          Outer::'unnamed'
 *   std::vector<std::vector<int> >   std::vector<std::vector<int>>  (LLVM 16+)
 * xr_spelling_canonical rewrites either into one canonical spelling, by rules
 * that touch only such differences (docs/names.md lists them), so that a
 * pattern or a name written in one spelling finds the function the table
 * holds in the other. It never merges two names a demangler tells apart.
 * Cold path: used when a table is built and when patterns are resolved. */
#ifndef XR_SPELLING_H
#define XR_SPELLING_H

#include "core/base/common.h"

/* Writes the canonical spelling of text[0, len) (any bytes, no NUL needed)
 * to out and a NUL after it; returns its length. It is never longer than
 * the text: out needs room for len + 1 bytes. Rewriting the canonical
 * spelling of a demangler's output again changes nothing (of arbitrary
 * bytes, a second pass may still rewrite what the first one joined). */
XR_HIDDEN size_t xr_spelling_canonical(const char *text, size_t len, char *out);

#endif
