/* Custom events: from a function with a frame, from a frameless leaf
 * (compiler-rt 14 crashes there), a 1-byte one, an empty one (never
 * written: readers reject size 0) and one too large for any buffer
 * (dropped). Payloads are globals: clang 14 crashes compiling
 * __xray_customevent on register operands. Usage: custom CONFIG */
#include "fdr_test.h"

static char hello[] = "hello-event";
static char one[] = "!";
static char big[20000];

NOINLINE void leaf_event(void) { __xray_customevent(hello, sizeof hello - 1); }
NOINLINE void framed_event(int n) {
  volatile char local[64];
  local[0] = (char)n;
  __xray_customevent(one, 1);
  __xray_customevent(hello, 0);
  __xray_customevent(big, sizeof big);
  fdr_sink = local[0];
}

int main(int argc, char **argv) {
  fdr_start(fdr_config(argc, argv));
  for (int i = 0; i < 3; i++) {
    leaf_event();
    framed_event(i);
  }
  fdr_stop();
  return 0;
}
