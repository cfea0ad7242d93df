/* Call trie: insertion, counts and times with synthetic timestamps, tail
 * calls, unmatched exits, abandoned frames, limits, merge, histograms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "profiling/call_trie.h"
#include "profiling/profile_report.h"

static struct xr_trie_config cfg(uint32_t max_depth, uint64_t global_max,
                                 uint64_t *used) {
  struct xr_trie_config c = {.chunk_bytes = 16384,
                             .stack_bytes = 1 << 20,
                             .max_depth = max_depth,
                             .global_max_bytes = global_max,
                             .global_used = used};
  return c;
}

static struct xr_trie *new_trie(void) {
  struct xr_trie_config c = cfg(1024, 0, NULL);
  struct xr_trie *t = xr_trie_create(&c);
  assert_non_null(t);
  return t;
}

/* Node at a path of fids from the root, or NULL. */
static const struct xr_trie_node *at(const struct xr_trie *t, int n, ...) {
  va_list ap;
  va_start(ap, n);
  const struct xr_trie_node *node = &t->root;
  for (int i = 0; i < n && node != NULL; i++) {
    int32_t fid = va_arg(ap, int32_t);
    const struct xr_trie_node *c = node->first_child;
    while (c != NULL && c->fid != fid)
      c = c->next_sibling;
    node = c;
  }
  va_end(ap);
  return node;
}

static size_t node_count(const struct xr_trie *t) {
  size_t n = 0;
  for (const struct xr_trie_node *x = t->root.first_child; x != NULL;
       x = xr_trie_next(x, &t->root))
    n++;
  return n;
}

static void nested_calls(void **state) {
  (void)state;
  struct xr_trie *t = new_trie();
  xr_trie_enter(t, 1, 0, 1000);
  xr_trie_enter(t, 2, 10, 900);
  xr_trie_exit(t, 2, 30, xr_trie_implied_sp(t, 2, true));
  xr_trie_enter(t, 2, 40, 900);
  xr_trie_exit(t, 2, 45, xr_trie_implied_sp(t, 2, true));
  xr_trie_enter(t, 3, 50, 900);
  xr_trie_exit(t, 3, 60, xr_trie_implied_sp(t, 3, true));
  xr_trie_exit(t, 1, 100, xr_trie_implied_sp(t, 1, true));
  assert_int_equal(t->depth, 0);
  const struct xr_trie_node *a = at(t, 1, 1), *b = at(t, 2, 1, 2),
                            *c = at(t, 2, 1, 3);
  assert_non_null(a);
  assert_non_null(b);
  assert_non_null(c);
  assert_int_equal(a->count, 1);
  assert_int_equal(a->total_time, 100);
  assert_int_equal(b->count, 2);
  assert_int_equal(b->total_time, 25);
  assert_int_equal(c->total_time, 10);
  assert_int_equal(xr_trie_local_time(a), 65);
  assert_int_equal(xr_trie_local_time(b), 25);
  /* children in first-call order */
  assert_ptr_equal(a->first_child, b);
  assert_ptr_equal(b->next_sibling, c);
  assert_int_equal(b->depth, 2);
  /* durations 20 and 5: buckets 4 and 2 */
  assert_int_equal(b->hist[4], 1);
  assert_int_equal(b->hist[2], 1);
  assert_int_equal(node_count(t), 3);
  xr_trie_destroy(t);
}

static void repeated_roots_reuse_node(void **state) {
  (void)state;
  struct xr_trie *t = new_trie();
  for (int i = 0; i < 100000; i++) {
    xr_trie_enter(t, 7, (uint64_t)i * 10, 500);
    xr_trie_exit(t, 7, (uint64_t)i * 10 + 3, xr_trie_implied_sp(t, 7, true));
  }
  assert_int_equal(node_count(t), 1);
  assert_int_equal(at(t, 1, 7)->count, 100000);
  assert_int_equal(at(t, 1, 7)->total_time, 300000);
  assert_int_equal(t->chunk_bytes_total, 16384);
  xr_trie_destroy(t);
}

static void tail_call_pops_caller(void **state) {
  (void)state;
  struct xr_trie *t = new_trie();
  xr_trie_enter(t, 9, 0, 2000);  /* main */
  xr_trie_enter(t, 1, 10, 1000); /* f tail-calls g */
  xr_trie_exit(t, 1, 20, xr_trie_implied_sp(t, 1, true));        /* tail exit of f */
  xr_trie_enter(t, 2, 20, 1000); /* g runs in f's frame */
  xr_trie_exit(t, 2, 50, xr_trie_implied_sp(t, 2, true));
  xr_trie_exit(t, 9, 60, xr_trie_implied_sp(t, 9, true));
  assert_int_equal(at(t, 2, 9, 1)->total_time, 10);
  assert_int_equal(at(t, 2, 9, 2)->total_time, 30);
  assert_null(at(t, 3, 9, 1, 2));
  assert_int_equal(xr_trie_local_time(at(t, 1, 9)), 20);
  xr_trie_destroy(t);
}

static void unmatched_exit_pops_to_its_frame(void **state) {
  (void)state;
  struct xr_trie *t = new_trie();
  xr_trie_enter(t, 1, 0, 1000);
  xr_trie_enter(t, 2, 10, 900);
  xr_trie_enter(t, 3, 20, 800);
  xr_trie_exit(t, 1, 100, xr_trie_implied_sp(t, 1, true)); /* 3 and 2 were skipped (longjmp, exception) */
  assert_int_equal(t->depth, 0);
  assert_int_equal(at(t, 3, 1, 2, 3)->count, 1);
  assert_int_equal(at(t, 3, 1, 2, 3)->total_time, 80);
  assert_int_equal(at(t, 2, 1, 2)->total_time, 90);
  assert_int_equal(at(t, 1, 1)->total_time, 100);
  assert_int_equal(xr_trie_local_time(at(t, 1, 1)), 10);
  /* an exit nobody entered is counted and changes nothing */
  xr_trie_enter(t, 1, 200, 1000);
  xr_trie_exit(t, 5, 210, xr_trie_implied_sp(t, 5, true));
  assert_int_equal(t->depth, 1);
  assert_int_equal(t->lost.unmatched_exit, 1);
  xr_trie_exit(t, 1, 220, xr_trie_implied_sp(t, 1, true));
  assert_int_equal(at(t, 1, 1)->count, 2);
  xr_trie_destroy(t);
}

static void abandoned_frames_dropped_at_entry(void **state) {
  (void)state;
  struct xr_trie *t = new_trie();
  /* main (sp 1000) loops: f (900) -> g (800) longjmps back into main */
  xr_trie_enter(t, 1, 0, 1000);
  for (int i = 0; i < 50; i++) {
    uint64_t base = 10 + (uint64_t)i * 100;
    xr_trie_enter(t, 2, base, 900);
    xr_trie_enter(t, 3, base + 10, 800);
    /* no exits: the next f entry at sp 900 finds f and g abandoned */
  }
  xr_trie_exit(t, 1, 10000, xr_trie_implied_sp(t, 1, true));
  assert_int_equal(t->depth, 0);
  assert_int_equal(node_count(t), 3); /* main, main;f, main;f;g - no growth */
  assert_int_equal(at(t, 2, 1, 2)->count, 50);
  assert_int_equal(at(t, 3, 1, 2, 3)->count, 50);
  /* the 49 abandoned f calls each last until the next f entry (100 ticks),
   * the last one until main's exit */
  assert_int_equal(at(t, 2, 1, 2)->total_time, 49 * 100 + (10000 - 4910));
  /* a frame on a far-away stack (sigaltstack) is not taken as abandoned */
  xr_trie_enter(t, 1, 20000, 1000);
  xr_trie_enter(t, 4, 20010, 1000 + ((uintptr_t)1 << 30));
  assert_int_equal(t->depth, 2);
  xr_trie_destroy(t);
}

static void recursion_and_depth_limit(void **state) {
  (void)state;
  struct xr_trie_config c = cfg(100, 0, NULL);
  struct xr_trie *t = xr_trie_create(&c);
  assert_non_null(t);
  for (int i = 0; i < 10000; i++)
    xr_trie_enter(t, 5, (uint64_t)i, 1000000 - (uintptr_t)i * 16);
  for (int i = 0; i < 10000; i++)
    xr_trie_exit(t, 5, 20000 + (uint64_t)i, xr_trie_implied_sp(t, 5, true));
  assert_int_equal(t->depth, 0);
  assert_int_equal(t->overflow, 0);
  assert_int_equal(t->lost.too_deep, 9900);
  assert_int_equal(node_count(t), 100);
  const struct xr_trie_node *n = at(t, 1, 5);
  for (int d = 1; d < 100; d++)
    n = n->first_child;
  assert_int_equal(n->depth, 100);
  assert_int_equal(n->count, 1);
  assert_null(n->first_child);
  xr_trie_destroy(t);
}

static void arena_limit_counts_losses(void **state) {
  (void)state;
  uint64_t used = 0;
  struct xr_trie_config c = cfg(1024, 16384, &used);
  struct xr_trie *t = xr_trie_create(&c);
  assert_non_null(t);
  assert_int_equal(used, 16384);
  size_t fits = (16384 - 16) / sizeof(struct xr_trie_node);
  for (int32_t f = 1; f <= 1000; f++) {
    xr_trie_enter(t, f, 0, 100);
    xr_trie_enter(t, 5000, 1, 90); /* child of an unrecorded call */
    xr_trie_exit(t, 5000, 2, xr_trie_implied_sp(t, 5000, true));
    xr_trie_exit(t, f, 3, xr_trie_implied_sp(t, f, true));
  }
  assert_int_equal(t->depth, 0);
  assert_int_equal(node_count(t), fits);
  assert_int_equal(t->lost.no_memory, 2000 - fits);
  assert_int_equal(t->grow_failed, 1);
  assert_int_equal(used, 16384);
  xr_trie_destroy(t);
  assert_int_equal(used, 0);
}

static void close_all_counts_open_calls(void **state) {
  (void)state;
  struct xr_trie *t = new_trie();
  xr_trie_enter(t, 1, 0, 1000);
  xr_trie_enter(t, 2, 5, 900);
  xr_trie_close_all(t, 50);
  assert_int_equal(t->depth, 0);
  assert_int_equal(at(t, 1, 1)->total_time, 50);
  assert_int_equal(at(t, 2, 1, 2)->total_time, 45);
  xr_trie_destroy(t);
}

static void merge_adds_paths(void **state) {
  (void)state;
  struct xr_trie *a = new_trie(), *b = new_trie(), *m = new_trie();
  xr_trie_enter(a, 1, 0, 1000);
  xr_trie_enter(a, 2, 0, 900);
  xr_trie_exit(a, 2, 4, xr_trie_implied_sp(a, 2, true));
  xr_trie_exit(a, 1, 10, xr_trie_implied_sp(a, 1, true));
  xr_trie_enter(b, 1, 0, 1000);
  xr_trie_enter(b, 3, 0, 900);
  xr_trie_enter(b, 2, 0, 800);
  xr_trie_exit(b, 2, 2, xr_trie_implied_sp(b, 2, true));
  xr_trie_exit(b, 3, 3, xr_trie_implied_sp(b, 3, true));
  xr_trie_enter(b, 2, 5, 900);
  xr_trie_exit(b, 2, 13, xr_trie_implied_sp(b, 2, true));
  xr_trie_exit(b, 1, 20, xr_trie_implied_sp(b, 1, true));
  xr_trie_enter(b, 4, 30, 1000);
  xr_trie_exit(b, 4, 31, xr_trie_implied_sp(b, 4, true));
  assert_int_equal(xr_trie_merge(m, a), 0);
  assert_int_equal(xr_trie_merge(m, b), 0);
  assert_int_equal(node_count(m), 5);
  assert_int_equal(at(m, 1, 1)->count, 2);
  assert_int_equal(at(m, 1, 1)->total_time, 30);
  assert_int_equal(at(m, 2, 1, 2)->count, 2);
  assert_int_equal(at(m, 2, 1, 2)->total_time, 12);
  assert_int_equal(at(m, 2, 1, 2)->hist[2], 1); /* 4 ticks */
  assert_int_equal(at(m, 2, 1, 2)->hist[3], 1); /* 8 ticks */
  assert_int_equal(at(m, 3, 1, 3, 2)->count, 1);
  assert_int_equal(at(m, 1, 4)->count, 1);
  assert_int_equal(at(m, 3, 1, 3, 2)->depth, 3);
  /* merging twice doubles */
  xr_trie_merge(m, b);
  assert_int_equal(at(m, 3, 1, 3, 2)->count, 2);
  xr_trie_destroy(a);
  xr_trie_destroy(b);
  xr_trie_destroy(m);
}

static void histogram_buckets(void **state) {
  (void)state;
  assert_int_equal(xr_hist_bucket(0), 0);
  assert_int_equal(xr_hist_bucket(1), 0);
  assert_int_equal(xr_hist_bucket(2), 1);
  assert_int_equal(xr_hist_bucket(3), 1);
  assert_int_equal(xr_hist_bucket(4), 2);
  assert_int_equal(xr_hist_bucket(1023), 9);
  assert_int_equal(xr_hist_bucket(1024), 10);
  assert_int_equal(xr_hist_bucket((uint64_t)1 << 39), 39);
  assert_int_equal(xr_hist_bucket((uint64_t)1 << 50), 39);
  assert_int_equal(xr_hist_bucket(UINT64_MAX), 39);
  uint64_t h[XR_HIST_BUCKETS] = {0};
  assert_int_equal(xr_hist_percentile(h, 50), 0);
  h[2] = 50;
  h[5] = 40;
  h[9] = 10;
  assert_int_equal(xr_hist_percentile(h, 50), 8);
  assert_int_equal(xr_hist_percentile(h, 51), 64);
  assert_int_equal(xr_hist_percentile(h, 90), 64);
  assert_int_equal(xr_hist_percentile(h, 99), 1024);
  assert_int_equal(xr_hist_percentile(h, 100), 1024);
}

/* Exits matched by the stack pointer: f at 1000 -> 900 -> 800 throws,
 * caught at 900, which returns; its exit closes 800 first. By id alone it
 * would have closed 800 as its own and left 900 to 1000's exit. */
static void recursive_exit_by_stack_pointer(void **state) {
  (void)state;
  struct xr_trie *t = new_trie();
  xr_trie_enter(t, 5, 0, 1000);
  xr_trie_enter(t, 5, 10, 900);
  xr_trie_enter(t, 5, 20, 800);
  xr_trie_exit(t, 5, 50, 900);
  assert_int_equal(t->depth, 1);
  xr_trie_exit(t, 5, 100, 1000);
  assert_int_equal(t->depth, 0);
  assert_int_equal(at(t, 3, 5, 5, 5)->count, 1);
  assert_int_equal(at(t, 3, 5, 5, 5)->total_time, 30);
  assert_int_equal(at(t, 2, 5, 5)->total_time, 40);
  assert_int_equal(at(t, 1, 5)->total_time, 100);
  /* an exit below every open call (entered before recording) pops nothing */
  xr_trie_enter(t, 6, 200, 1000);
  xr_trie_exit(t, 7, 210, 500);
  assert_int_equal(t->depth, 1);
  assert_int_equal(t->lost.unmatched_exit, 1);
  xr_trie_exit(t, 6, 220, 1000);
  assert_int_equal(at(t, 1, 6)->count, 1);
  xr_trie_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(nested_calls),
      cmocka_unit_test(repeated_roots_reuse_node),
      cmocka_unit_test(tail_call_pops_caller),
      cmocka_unit_test(unmatched_exit_pops_to_its_frame),
      cmocka_unit_test(abandoned_frames_dropped_at_entry),
      cmocka_unit_test(recursive_exit_by_stack_pointer),
      cmocka_unit_test(recursion_and_depth_limit),
      cmocka_unit_test(arena_limit_counts_losses),
      cmocka_unit_test(close_all_counts_open_calls),
      cmocka_unit_test(merge_adds_paths),
      cmocka_unit_test(histogram_buckets),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
