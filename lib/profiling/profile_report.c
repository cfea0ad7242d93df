/* The report: a table of the functions that take the most local time. */
#include "profiling/profile_report.h"

#include <stdlib.h>
#include <sys/mman.h>

struct fn_stats {
  uint32_t fid;
  uint64_t calls;
  uint64_t total; /* outermost calls only */
  uint64_t local;
  uint64_t hist[XR_HIST_BUCKETS];
  uint32_t open; /* nodes of this function on the current walk path */
};

uint64_t xr_hist_percentile(const uint64_t *hist, unsigned pct) {
  uint64_t n = 0;
  for (int b = 0; b < XR_HIST_BUCKETS; b++)
    n += hist[b];
  if (n == 0)
    return 0;
  /* rank of the call at pct, 1-based, rounded up */
  uint64_t rank = (n * pct + 99) / 100;
  if (rank == 0)
    rank = 1;
  uint64_t seen = 0;
  for (int b = 0; b < XR_HIST_BUCKETS; b++) {
    seen += hist[b];
    if (seen >= rank)
      return (uint64_t)2 << b; /* bucket b holds [2^b, 2^(b+1)) */
  }
  return (uint64_t)2 << (XR_HIST_BUCKETS - 1);
}

static const struct fn_stats *sort_base;
static int by_local_desc(const void *a, const void *b) {
  const struct fn_stats *x = &sort_base[*(const uint32_t *)a];
  const struct fn_stats *y = &sort_base[*(const uint32_t *)b];
  if (x->local != y->local)
    return x->local < y->local ? 1 : -1;
  return x->fid < y->fid ? -1 : x->fid > y->fid;
}

static int by_value(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* Row of fid in the sorted distinct ids (it is there). */
static uint32_t slot_of(const uint32_t *ids, size_t n, uint32_t fid) {
  size_t lo = 0, hi = n;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (ids[mid] <= fid)
      lo = mid;
    else
      hi = mid;
  }
  return (uint32_t)lo;
}

static void put_us(struct xr_text_out *out, uint64_t ns, int width) {
  xr_text_printf(out, " %*llu.%03llu", width - 4,
                 (unsigned long long)(ns / 1000),
                 (unsigned long long)(ns % 1000));
}

int xr_prof_report_write(struct xr_trie *const *tries, size_t ntries,
                    const struct xr_prof_report_info *info, xr_name_fn name,
                    void *name_ctx, xr_to_ns_fn to_ns, struct xr_text_out *out) {
  /* One row per distinct function id (ids may be packed with an object
   * number, so they are collected and sorted rather than used as indexes). */
  uint32_t depth = 0;
  size_t nodes = 0;
  for (size_t i = 0; i < ntries; i++) {
    const struct xr_trie *t = tries[i];
    for (const struct xr_trie_node *n = t->root.first_child; n != NULL;
         n = xr_trie_next(n, &t->root)) {
      nodes++;
      if (n->depth > depth)
        depth = n->depth;
    }
  }
  size_t ids_bytes = (nodes + 1) * sizeof(uint32_t);
  size_t path_bytes = ((size_t)depth + 1) * sizeof(uint32_t);
  size_t bytes = ids_bytes + path_bytes;
  char *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    return -1;
  uint32_t *ids = (uint32_t *)(void *)mem;
  uint32_t *path = (uint32_t *)(void *)(mem + ids_bytes);
  size_t nfn = 0;
  for (size_t i = 0; i < ntries; i++) {
    const struct xr_trie *t = tries[i];
    for (const struct xr_trie_node *n = t->root.first_child; n != NULL;
         n = xr_trie_next(n, &t->root))
      ids[nfn++] = (uint32_t)n->fid;
  }
  qsort(ids, nfn, sizeof(uint32_t), by_value);
  size_t rows = 0;
  for (size_t i = 0; i < nfn; i++)
    if (rows == 0 || ids[i] != ids[rows - 1])
      ids[rows++] = ids[i];
  nfn = rows;
  size_t stats_bytes = (nfn + 1) * sizeof(struct fn_stats);
  size_t order_bytes = (nfn + 1) * sizeof(uint32_t);
  char *rows_mem = mmap(NULL, stats_bytes + order_bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (rows_mem == MAP_FAILED) {
    munmap(mem, bytes);
    return -1;
  }
  struct fn_stats *st = (struct fn_stats *)(void *)rows_mem;
  uint32_t *order = (uint32_t *)(void *)(rows_mem + stats_bytes);
  for (size_t f = 0; f < nfn; f++) {
    st[f].fid = ids[f];
    order[f] = (uint32_t)f;
  }

  /* Each thread's trie is walked on its own (the table sums functions, so
   * no merged copy is needed): pre-order, keeping the fids of the current
   * path, so a node's total counts only when no ancestor is the same
   * function. */
  uint64_t all_local = 0;
  for (size_t i = 0; i < ntries; i++) {
    const struct xr_trie *t = tries[i];
    uint32_t on_path = 0;
    for (const struct xr_trie_node *n = t->root.first_child; n != NULL;
         n = xr_trie_next(n, &t->root)) {
      while (on_path >= n->depth)
        st[path[--on_path]].open--;
      uint32_t slot = slot_of(ids, nfn, (uint32_t)n->fid);
      struct fn_stats *s = &st[slot];
      s->calls += n->count;
      if (s->open == 0)
        s->total += n->total_time;
      uint64_t local = xr_trie_local_time(n);
      s->local += local;
      all_local += local;
      for (int b = 0; b < XR_HIST_BUCKETS; b++)
        s->hist[b] += n->hist[b];
      s->open++;
      path[on_path++] = slot;
    }
    while (on_path > 0)
      st[path[--on_path]].open--;
  }
  sort_base = st;
  qsort(order, rows, sizeof(uint32_t), by_local_desc);

  xr_text_printf(out, "# XRay profile of %s (pid %llu): %llu thread(s), %zu function(s)\n",
                 info->program, (unsigned long long)info->pid,
                 (unsigned long long)info->threads, rows);
  xr_text_printf(out, "# clock %llu Hz; times in microseconds; local = total - callees;\n",
                 (unsigned long long)info->frequency_hz);
  xr_text_str(out, "# p50/p90/p99: upper bounds of the log2 buckets of single-call durations\n");
  xr_text_str(out, "# all functions' local time:");
  put_us(out, to_ns(all_local), 4);
  xr_text_str(out, " us\n");
  xr_text_str(out, "#        local  local%          total        calls          p50          p90          p99  function\n");
  size_t shown = rows < info->top ? rows : info->top;
  for (size_t i = 0; i < shown; i++) {
    const struct fn_stats *s = &st[order[i]];
    uint64_t local_ns = to_ns(s->local);
    unsigned long long permille =
        all_local ? (unsigned long long)((s->local * 1000.0) / all_local + 0.5) : 0;
    put_us(out, local_ns, 13);
    xr_text_printf(out, " %5llu.%01llu", permille / 10, permille % 10);
    put_us(out, to_ns(s->total), 14);
    xr_text_printf(out, " %12llu", (unsigned long long)s->calls);
    /* no single call lasts longer than all outermost calls together */
    static const unsigned pcts[3] = {50, 90, 99};
    for (int k = 0; k < 3; k++) {
      uint64_t p = xr_hist_percentile(s->hist, pcts[k]);
      put_us(out, to_ns(p < s->total ? p : s->total), 12);
    }
    xr_text_str(out, "  ");
    xr_text_str(out, name(name_ctx, (int32_t)s->fid));
    xr_text_str(out, "\n");
  }
  if (rows > shown)
    xr_text_printf(out, "# %zu more function(s) not shown\n", rows - shown);
  const struct xr_trie_losses *l = &info->lost;
  xr_text_printf(out,
                 "# not recorded: %llu call(s) out of memory, %llu call(s) too deep, "
                 "%llu unmatched exit(s), %llu thread(s) not collected\n",
                 (unsigned long long)l->no_memory, (unsigned long long)l->too_deep,
                 (unsigned long long)l->unmatched_exit,
                 (unsigned long long)info->lost_threads);
  munmap(rows_mem, stats_bytes + order_bytes);
  munmap(mem, bytes);
  return xr_text_flush(out);
}
