/* Run-time demangling. See demangle.h. */
#include "demangle.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>

typedef char *(*demangle_fn)(const char *mangled, char *out, size_t *length, int *status);

/* __cxa_demangle of the first C++ runtime that loads; NULL when none
 * does. Looked up once: xrayctl is single-threaded. */
static demangle_fn find_demangler(void) {
  static bool looked;
  static demangle_fn found;
  if (looked)
    return found;
  looked = true;
  static const char *const libraries[] = {"libstdc++.so.6", "libc++abi.so.1"};
  for (size_t i = 0; i < sizeof libraries / sizeof libraries[0] && found == NULL; i++) {
    void *lib = dlopen(libraries[i], RTLD_LAZY | RTLD_LOCAL);
    if (lib == NULL)
      continue;
    /* POSIX leaves function pointers from void * to the platform; glibc's
     * dlsym returns them so. */
    void *sym = dlsym(lib, "__cxa_demangle");
    if (sym != NULL)
      *(void **)&found = sym;
    else
      dlclose(lib);
    /* a library that provides it stays loaded for the process's life */
  }
  return found;
}

char *ctl_demangle(const char *symbol) {
  if (symbol[0] != '_' || symbol[1] != 'Z')
    return NULL;
  demangle_fn demangle = find_demangler();
  if (demangle == NULL)
    return NULL;
  int status = -1;
  char *out = demangle(symbol, NULL, NULL, &status);
  return status == 0 ? out : NULL;
}
