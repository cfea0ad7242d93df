/* `xrayctl top`: one interval of the profiling mode, read in memory. The
 * session is started with no_flush=true, so the mode writes no file; its
 * profile (compiler-rt's block layout, docs/formats.md "Profile") is read
 * through __xray_log_process_buffers between finalize and flush.
 *
 * Each record is one call path, leaf first, with its call count and its
 * cumulative time (callees included). Records come depth-first, so a
 * stack of the open paths gives each node's local time: its cumulative
 * time minus its children's. A function's total counts only its outermost
 * paths (not under itself), so recursion is not counted twice. */
#include "control/control_top.h"
#include "control/control_reply.h"
#include "core/clock/clock.h"
#include "xray/xray_log_interface.h"
#include "xray/xray_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fn_row {
  int32_t id; /* 0: empty slot (function ids start at 1) */
  uint64_t calls, local, total;
};

static struct fn_row *rows;
static size_t rows_cap, rows_used;
static bool out_of_memory;

static struct fn_row *row_of(int32_t id) {
  if (rows_used * 2 >= rows_cap) {
    size_t cap = rows_cap ? rows_cap * 2 : 1024;
    struct fn_row *grown = calloc(cap, sizeof *grown);
    if (grown == NULL) {
      out_of_memory = true;
      return NULL;
    }
    for (size_t i = 0; i < rows_cap; i++)
      if (rows[i].id != 0) {
        size_t h = ((uint32_t)rows[i].id * 2654435761u) & (cap - 1);
        while (grown[h].id != 0)
          h = (h + 1) & (cap - 1);
        grown[h] = rows[i];
      }
    free(rows);
    rows = grown;
    rows_cap = cap;
  }
  size_t h = ((uint32_t)id * 2654435761u) & (rows_cap - 1);
  while (rows[h].id != 0 && rows[h].id != id)
    h = (h + 1) & (rows_cap - 1);
  if (rows[h].id == 0) {
    rows[h].id = id;
    rows_used++;
  }
  return &rows[h];
}

enum { MAX_DEPTH = 1024 };
struct open_node {
  int32_t id;
  uint64_t local; /* cumulative so far minus the children seen */
};

static uint64_t read_u64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static void close_node(const struct open_node *n) {
  struct fn_row *row = row_of(n->id);
  if (row)
    row->local += n->local;
}

/* One thread's block: a 16-byte header, then records. Malformed bytes end
 * the block (the runtime wrote them; this only guards the reader). */
static void read_block(const uint8_t *p, size_t size) {
  static struct open_node stack[MAX_DEPTH];
  size_t depth_open = 0, at = 16;
  while (at + 4 <= size) {
    const uint8_t *rec = p + at;
    size_t depth = 0;
    int32_t path[MAX_DEPTH];
    for (;;) {
      if (at + 4 * (depth + 1) > size || depth == MAX_DEPTH)
        return;
      int32_t id;
      memcpy(&id, rec + 4 * depth, 4);
      if (id == 0)
        break;
      path[depth++] = id;
    }
    at += 4 * (depth + 1);
    if (depth == 0 || at + 16 > size)
      return;
    uint64_t calls = read_u64(p + at), cumulative = read_u64(p + at + 8);
    at += 16;
    while (depth_open >= depth)
      close_node(&stack[--depth_open]);
    if (depth_open > 0)
      stack[depth_open - 1].local -= cumulative <= stack[depth_open - 1].local
                                         ? cumulative
                                         : stack[depth_open - 1].local;
    stack[depth_open++] = (struct open_node){path[0], cumulative};
    struct fn_row *row = row_of(path[0]);
    if (row == NULL)
      return;
    row->calls += calls;
    bool outermost = true;
    for (size_t i = 1; i < depth && outermost; i++)
      outermost = path[i] != path[0];
    if (outermost)
      row->total += cumulative;
  }
  while (depth_open > 0)
    close_node(&stack[--depth_open]);
}

static bool header_seen;

static void take_buffer(const char *mode, XRayBuffer b) {
  (void)mode;
  if (!header_seen) { /* the file header comes first */
    header_seen = true;
    return;
  }
  if (b.Size >= 16)
    read_block(b.Data, b.Size);
}

static int by_local_desc(const void *a, const void *b) {
  const struct fn_row *x = a, *y = b;
  if (x->local != y->local)
    return x->local < y->local ? 1 : -1;
  return x->calls < y->calls ? 1 : x->calls > y->calls ? -1 : 0;
}

void xr_ctl_top_rows(uint32_t want, struct xr_ctl_reply *r) {
  rows_used = 0;
  out_of_memory = false;
  header_seen = false;
  if (rows)
    memset(rows, 0, rows_cap * sizeof *rows);
  __xray_log_process_buffers(take_buffer);
  if (out_of_memory) {
    xr_ctl_fail(r, "no memory for the function table");
    return;
  }
  size_t n = 0;
  for (size_t i = 0; i < rows_cap; i++)
    if (rows[i].id != 0)
      rows[n++] = rows[i]; /* compacts in place: n <= i */
  qsort(rows, n, sizeof *rows, by_local_desc);
  xr_ctl_say(r, "# calls local_ns total_ns function\n");
  for (size_t i = 0; i < n && i < want; i++) {
    char name[256];
    if (__xray_function_name(rows[i].id, name, sizeof name) < 0)
      snprintf(name, sizeof name, "fn%d", (int)rows[i].id);
    xr_ctl_say(r, "%llu %llu %llu %s\n", (unsigned long long)rows[i].calls,
               (unsigned long long)xr_ticks_to_ns(rows[i].local),
               (unsigned long long)xr_ticks_to_ns(rows[i].total), name);
  }
  memset(rows, 0, rows_cap * sizeof *rows);
}
