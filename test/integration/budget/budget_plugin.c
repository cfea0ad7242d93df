/* The shared object of budget.dso: one hot tiny function. */
#define TRACED __attribute__((xray_always_instrument, noinline))

static volatile unsigned sink;

TRACED void plugin_hot(unsigned x) { sink += x; }
TRACED void plugin_cold(void) { sink++; }
