/* The shared object of cull.c's "dso" part: one function the budget may
 * cull, one the user pins by id. */
volatile int so_sink;
int so_plain(int x) { so_sink = x; return x + 1; }
int so_pinned(int x) { so_sink = x; return x + 1; }
