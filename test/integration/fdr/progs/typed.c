/* Typed events of two types with different payloads. llvm-xray refuses this
 * binary as an instrumentation map (typed-event sleds), so the trace is read
 * without -m. Usage: typed CONFIG */
#include "fdr_test.h"

static char payload_a[] = "typed-payload!";
static char payload_b[] = "0123456789abcdef0123456789abcdef-33";

NOINLINE void emit_a(void) { __xray_typedevent(7, payload_a, sizeof payload_a - 1); }
NOINLINE void emit_b(void) { __xray_typedevent(9, payload_b, sizeof payload_b - 1); }

int main(int argc, char **argv) {
  fdr_start(fdr_config(argc, argv));
  for (int i = 0; i < 4; i++) {
    emit_a();
    emit_b();
  }
  fdr_stop();
  return 0;
}
