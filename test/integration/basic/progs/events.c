/* Custom and typed events under basic mode: not recorded, no crash. */
#include <stdio.h>
#include "xray/xray_interface.h"
#define XI __attribute__((xray_always_instrument, noinline))
static volatile int sink;
XI void emit(int i) {
  static const char msg[] = "hello-event";
  __xray_customevent(msg, sizeof(msg) - 1);
  __xray_typedevent(1, msg, sizeof(msg) - 1);
  sink = i;
}
__attribute__((xray_never_instrument)) int main(void) {
  for (int i = 0; i < 4; i++)
    emit(i);
  printf("done\n");
  return 0;
}
