/* Two init/patch/finalize/flush cycles with different configurations: each
 * writes its own file with only its own events. Usage: reinit */
#include "fdr_test.h"

NOINLINE int first(int x) { fdr_sink = x; return x + 1; }
NOINLINE int second(int x) { fdr_sink = x; return x + 2; }

int main(void) {
  fdr_start("func_duration_threshold_us=0 buffer_size=4096 buffer_max=8");
  for (int i = 0; i < 3; i++)
    fdr_sink = first(i);
  fdr_stop();
  for (int i = 0; i < 7; i++) /* not traced: between cycles */
    fdr_sink = second(i);
  fdr_start("func_duration_threshold_us=0 buffer_size=8192 buffer_max=2");
  for (int i = 0; i < 5; i++)
    fdr_sink = second(i);
  fdr_stop();
  return 0;
}
