/* Typed-event handlers of both header generations, from C11: LLVM 14-19's
 * void (*)(uint16_t, const void *, size_t) and LLVM 20's
 * void (*)(size_t, const void *, size_t) compile unchanged (-Werror
 * -pedantic) and get the same events; the type arrives zero-extended. */
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include <xray/xray_interface.h>

#ifdef __clang__
#define NOXRAY __attribute__((xray_never_instrument, noinline))
#define TRACED __attribute__((xray_always_instrument, noinline))
#else /* gcc checks only that the header accepts both handler types */
#define NOXRAY __attribute__((noinline))
#define TRACED __attribute__((noinline))
#define __xray_typedevent(type, p, n) ((void)(type), (void)(p), (void)(n))
#endif

static char out[1024];
static int len;

NOXRAY static void llvm14_handler(uint16_t type, const void *p, size_t n) {
  len += snprintf(out + len, sizeof out - (size_t)len, "u16 %u %.*s\n",
                  (unsigned)type, (int)n, (const char *)p);
}
NOXRAY static void llvm20_handler(size_t type, const void *p, size_t n) {
  len += snprintf(out + len, sizeof out - (size_t)len, "size_t %#zx %.*s\n",
                  type, (int)n, (const char *)p);
}

TRACED void small_type(void) { __xray_typedevent(7, "seven", 5); }
TRACED void max_type(void) { __xray_typedevent(0xFFFF, "max", 3); }

int main(void) {
  if (__xray_patch() != SUCCESS)
    return 2;
  int ok = __xray_set_typedevent_handler(llvm20_handler) == 1;
  small_type();
  max_type();
  ok &= __xray_set_typedevent_handler(llvm14_handler) == 1;
  small_type();
  max_type();
  void (*as_pointer)(size_t, const void *, size_t) = llvm20_handler;
  ok &= __xray_set_typedevent_handler(as_pointer) == 1;
  max_type();
  ok &= __xray_set_typedevent_handler(NULL) == 1; /* removes it */
  small_type();
  ok &= __xray_remove_typedevent_handler() == 1;
  fputs(out, stdout);
  return ok ? 0 : 1;
}
