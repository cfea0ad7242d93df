/* C++ names demangled by the system's C++ runtime, found at run time:
 * xrayctl links no C++ library. __cxa_demangle from libstdc++.so.6, else
 * from libc++abi.so.1, loaded with dlopen at the first mangled name; on a
 * system with neither, names stay as the symbol table spells them. */
#ifndef XRAYCTL_DEMANGLE_H
#define XRAYCTL_DEMANGLE_H

/* The demangled name of an Itanium-mangled symbol ("_Z..."), malloc'd, or
 * NULL when it is not one, no demangler is available or the demangler
 * refuses it (the caller keeps the symbol then). */
char *ctl_demangle(const char *symbol);

#endif
