/* Built by matrix.sh with each compiler, PIE and not, -O0..-O3 and LTO.
 * Prints, per function id: name, number of sleds (the runtime's map),
 * and the events its handlers counted for a fixed workload. */
#include "recorder.h"
#include "core/objects/sled_map.h"

volatile long sink;
TRACED long f_b(long x) { sink = x; return x + 1; }
TRACED long f_a(long x) { long r = f_b(x) + f_b(x + 1); sink = r; return r; }
TRACED long f_tail(long x) { sink = x; return f_b(x * 2); }
__attribute__((xray_always_instrument, xray_log_args(1), noinline))
long f_log(long x) { sink = x; return x - 1; }

static const struct named fns[] = {{"f_b", (void *)f_b}, {"f_a", (void *)f_a},
                                   {"f_tail", (void *)f_tail}, {"f_log", (void *)f_log}};

static unsigned long entries[16], exits[16], tails[16], arg_sum[16];
NOXRAY static void on_event(int32_t id, XRayEntryType type) {
  if (id <= 0 || id >= 16)
    return;
  if (type == EXIT)
    exits[id]++;
  else if (type == TAIL)
    tails[id]++;
  else
    entries[id]++;
}
NOXRAY static void on_arg(int32_t id, XRayEntryType type, uint64_t arg) {
  on_event(id, type);
  if (id > 0 && id < 16)
    arg_sum[id] += arg;
}

NOXRAY int main(void) {
  CHECK(__xray_set_handler(on_event) == 1);
  CHECK(__xray_set_handler_arg1(on_arg) == 1);
  CHECK(__xray_patch() == SUCCESS);
  long check = 0;
  for (long i = 0; i < 100; i++)
    check += f_a(i);
  for (long i = 0; i < 50; i++)
    check += f_tail(i);
  for (long i = 0; i < 30; i++)
    check += f_log(i);
  CHECK(__xray_unpatch() == SUCCESS);
  CHECK(check == 10200 + 2500 + 405);
  for (size_t id = 1; id <= __xray_max_function_id(); id++)
    printf("%zu %s %u %lu %lu %lu %lu\n", id, name_of(fns, 4, (int32_t)id),
           xr_self_map.functions[id - 1].sled_count, entries[id], exits[id], tails[id],
           arg_sum[id]);
  printf("fn_idx %d\n", xr_self_map.fn_idx_format);
  return 0;
}
