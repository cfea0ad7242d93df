/* Exact entry/exit/tail/log-args event sequences, handler removal,
 * unpatching. Expected output: events.expected. */
#include "recorder.h"

volatile int sink;

TRACED int leaf(int x) { sink = x; return x * 2; }
TRACED int middle(int x) { int r = leaf(x) + 1; sink = r; return r; }
TRACED int tail_caller(int x) { sink = x; return leaf(x + 1); } /* tail call at -O2 */
__attribute__((xray_always_instrument, xray_log_args(1), noinline))
long logged(long x) { sink = (int)x; return x + 5; }

static const struct named fns[] = {
    {"leaf", (void *)leaf}, {"middle", (void *)middle},
    {"tail_caller", (void *)tail_caller}, {"logged", (void *)logged},
    {"main", 0}};

NOXRAY int main(void) {
  CHECK(__xray_max_function_id() == 4);
  print_ids(fns, 4);
  CHECK(__xray_set_handler(record_arg0) == 1);
  middle(1); /* not patched yet: nothing */
  print_and_clear("unpatched", fns, 4);

  CHECK(__xray_patch() == SUCCESS);
  CHECK(middle(3) == 7);
  CHECK(tail_caller(4) == 10);
  CHECK(logged(12345) == 12350);
  print_and_clear("patched, arg0 handler only", fns, 4);

  CHECK(__xray_set_handler_arg1(record_arg1) == 1);
  CHECK(logged(-1L) == 4);
  CHECK(leaf(2) == 4);
  print_and_clear("arg1 handler too", fns, 4);

  CHECK(__xray_remove_handler_arg1() == 1);
  CHECK(__xray_remove_handler() == 1);
  CHECK(middle(3) == 7);
  CHECK(logged(1) == 6);
  print_and_clear("handlers removed", fns, 4);

  CHECK(__xray_set_handler(record_arg0) == 1);
  CHECK(__xray_unpatch() == SUCCESS);
  CHECK(middle(3) == 7);
  print_and_clear("unpatched again", fns, 4);

  CHECK(__xray_patch() == SUCCESS);
  CHECK(leaf(1) == 2);
  print_and_clear("patched again", fns, 4);
  CHECK(__xray_unpatch() == SUCCESS);
  return 0;
}
