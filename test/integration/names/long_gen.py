#!/usr/bin/env python3
"""Writes the C++ source of names.long: `long_gen.py exe` the executable,
`long_gen.py plugin` the dlopen'd shared object. Each has, for its prefix P:
  P_c_...       an extern "C" function with a 21 004-character name;
  P_ns00_...::leaf(int)  30 namespaces of 725 characters: a 22 000-character
                mangled name (libstdc++'s demangler refuses mangled names
                past 1 024 characters: the runtime shows the symbol, whole);
  P_wrap<...>   a function template on 120 nested class templates: a
                710-character mangled name that demangles to 23 301;
  P_all         calls each of the three once.
The executable calls exe_all once and plugin_all (dlsym) once; with
"demangle" it prints each mangled name of stdin as the runtime names it."""
import sys

def unit(p):
    c_name = "%s_c_%s" % (p, "abcdefghij" * 2100)
    ns = "::".join("%s_ns%02d_%s" % (p, i, "namespace_part_" * 48) for i in range(30))
    box = "%s_box_whose_name_is_long_so_that_a_hundred_and_twenty_levels_make_twenty_thousand_characters" % p
    out = ["#define NOINLINE __attribute__((noinline))",
           "static volatile int %s_sink;" % p,
           'extern "C" NOINLINE int %s(int x) { %s_sink += x; return x + 1; }' % (c_name, p),
           "namespace %s { NOINLINE int leaf(int x) { %s_sink += x; return x + 2; } }" % (ns, p),
           "template <class T> struct %s { int v; };" % box,
           "using %s_t0 = %s<int>;" % (p, box)]
    out += ["using %s_t%d = %s<%s_t%d>;" % (p, i, box, p, i - 1) for i in range(1, 120)]
    out += ["template <class T> NOINLINE int %s_wrap(T t) { %s_sink += t.v; return t.v + 3; }" % (p, p),
            'extern "C" NOINLINE int %s_all(int x) {' % p,
            "  %s_t119 b{};" % p,
            "  b.v = x;",
            "  return %s(x) + %s::leaf(x) + %s_wrap(b);" % (c_name, ns, p),
            "}"]
    return "\n".join(out) + "\n"

MAIN = r'''
#include <cxxabi.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define NI __attribute__((xray_never_instrument))

/* Each mangled name of stdin as the runtime names it: demangled by the
 * same __cxa_demangle, else as it is. */
NI static int demangle(void) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, stdin)) > 0) {
    if (line[n - 1] == '\n')
      line[--n] = '\0';
    int status = -1;
    char *d = abi::__cxa_demangle(line, NULL, NULL, &status);
    puts(d != NULL && status == 0 ? d : line);
    free(d);
  }
  free(line);
  return 0;
}

NI int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "demangle") == 0)
    return demangle();
  void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
  int (*plugin_all)(int) = h ? (int (*)(int))dlsym(h, "plugin_all") : NULL;
  if (plugin_all == NULL) {
    fprintf(stderr, "no plugin: %s\n", dlerror());
    return 1;
  }
  if (argc > 2 && strcmp(argv[2], "delete") == 0)
    unlink(argv[1]); /* its functions get made-up names */
  exe_sink = exe_all(1) + plugin_all(2);
  return 0;
}
'''

if __name__ == "__main__":
    which = sys.argv[1]
    sys.stdout.write(unit(which) + (MAIN if which == "exe" else ""))
