/* The profiling mode's binary profile (docs/formats.md "Profile", ours and
 * compiler-rt's): one node of a thread's call tree at a time, as written
 * (depth first, a node after its parent). Memory: the input's buffer and
 * one call path. */
#ifndef XRAYCTL_PROFILE_READ_H
#define XRAYCTL_PROFILE_READ_H

#include "trace_input.h"

struct ctl_profile_node {
  uint64_t tid;
  const int32_t *path; /* function ids, the node's own first, root last */
  uint32_t depth;      /* ids in path, >= 1 */
  uint64_t count;      /* calls */
  uint64_t ticks;      /* their time, callees included */
};

typedef void (*ctl_node_fn)(void *ctx, const struct ctl_profile_node *n);

/* Every node of every block, in file order. 0, or -1 at the first
 * malformed byte (in's error set; nodes before it were delivered). */
int ctl_profile_nodes(struct ctl_in *in, ctl_node_fn fn, void *ctx);

#endif
