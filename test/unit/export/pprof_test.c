/* The pprof writer's exact bytes for a small call trie (field numbers of
 * google/pprof proto/profile.proto, worked out by hand below), the varint
 * encoder, and recursion folding of call tries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <unistd.h>

#include "export/pb_encode.h"
#include "export/pprof_mapping.h"
#include "export/pprof.h"
#include "profiling/call_trie.h"
#include "profiling/profile_pprof.h"
#include "profiling/trie_fold.h"

static struct xr_trie *new_trie(void) {
  struct xr_trie_config c = {.chunk_bytes = 16384, .stack_bytes = 65536,
                             .max_depth = 64};
  struct xr_trie *t = xr_trie_create(&c);
  assert_non_null(t);
  return t;
}

/* main(1) { parse(2) x2 { lex(3) once } }: local ticks 75, 17, 8 */
static struct xr_trie *sample_trie(void) {
  struct xr_trie *t = new_trie();
  xr_trie_enter(t, 1, 0, 1000);
  xr_trie_enter(t, 2, 10, 900);
  xr_trie_enter(t, 3, 12, 800);
  xr_trie_exit(t, 3, 20, xr_trie_implied_sp(t, 3, true));
  xr_trie_exit(t, 2, 30, xr_trie_implied_sp(t, 2, true));
  xr_trie_enter(t, 2, 40, 900);
  xr_trie_exit(t, 2, 45, xr_trie_implied_sp(t, 2, true));
  xr_trie_exit(t, 1, 100, xr_trie_implied_sp(t, 1, true));
  return t;
}

static const char *names(void *ctx, int32_t fid) {
  (void)ctx;
  static const char *const n[] = {"?", "main", "parse", "lex"};
  return fid >= 1 && fid <= 3 ? n[fid] : "?";
}
static uint64_t times_ten(uint64_t ticks) { return ticks * 10; }
static uintptr_t address_of(int32_t fid) { return 0x1000 + 16 * (uint32_t)fid; }
static int mapping_of(uintptr_t addr, struct xr_pprof_mapping *m,
                      struct xr_pprof_mapping_text *text) {
  (void)text;
  if (addr < 0x1000 || addr >= 0x2000)
    return -1;
  *m = (struct xr_pprof_mapping){.memory_start = 0x1000, .memory_limit = 0x2000,
                                 .file_offset = 0, .filename = "p",
                                 .build_id = "ab"};
  return 0;
}

static unsigned char got[4096];
static size_t got_len;
static int mem_sink(void *ctx, const void *data, size_t n) {
  (void)ctx;
  assert_true(got_len + n <= sizeof(got));
  memcpy(got + got_len, data, n);
  got_len += n;
  return 0;
}

static void varints(void **state) {
  (void)state;
  uint8_t b[XR_PB_VARINT_MAX];
  assert_int_equal(xr_pb_varint_encode(b, 0), 1);
  assert_int_equal(b[0], 0);
  assert_int_equal(xr_pb_varint_encode(b, 300), 2);
  assert_int_equal(b[0], 0xAC);
  assert_int_equal(b[1], 0x02);
  assert_int_equal(xr_pb_varint_encode(b, UINT64_MAX), 10);
  assert_int_equal(b[9], 0x01);
  assert_int_equal(xr_pb_varint_size(127), 1);
  assert_int_equal(xr_pb_varint_size(128), 2);
  assert_int_equal(xr_pb_varint_size(UINT64_MAX), 10);
  /* a field that does not fit leaves the buffer as it was */
  uint8_t small[3];
  struct xr_pb_buf m;
  xr_pb_init(&m, small, sizeof(small));
  xr_pb_uint(&m, 1, 5);
  xr_pb_uint(&m, 1, 300);
  assert_true(m.overflow);
  assert_int_equal(m.len, 2);
}

#define S(...) __VA_ARGS__
static void profile_bytes_exact(void **state) {
  (void)state;
  struct xr_trie *t = sample_trie();
  struct xr_pprof_view_info info = {
      .profile = {.time_nanos = 5, .duration_nanos = 7, .comment = "hi"},
      .address_of = address_of,
      .mapping_of = mapping_of,
  };
  static struct xr_text_out out;
  xr_text_init(&out, mem_sink, NULL);
  got_len = 0;
  assert_int_equal(xr_pprof_view_write(t, &info, names, NULL, times_ten, &out), 0);
  static const unsigned char want[] = {
      /* string_table (6, length-delimited: key 0x32): 0 "", 1 calls,
       * 2 count, 3 time, 4 nanoseconds */
      0x32, 0, 0x32, 5, 'c', 'a', 'l', 'l', 's', 0x32, 5, 'c', 'o', 'u', 'n',
      't', 0x32, 4, 't', 'i', 'm', 'e', 0x32, 11, 'n', 'a', 'n', 'o', 's',
      'e', 'c', 'o', 'n', 'd', 's',
      /* sample_type (1): {type 1, unit 2}, {type 3, unit 4} */
      0x0A, 4, 0x08, 1, 0x10, 2, 0x0A, 4, 0x08, 3, 0x10, 4,
      /* default_sample_type (14) = 3, time_nanos (9) = 5,
       * duration_nanos (10) = 7 */
      0x70, 3, 0x48, 5, 0x50, 7,
      /* string 5 "hi", comment (13) = 5 */
      0x32, 2, 'h', 'i', 0x68, 5,
      /* strings 6 "p", 7 "ab"; mapping (3): id 1, start 0x1000, limit
       * 0x2000, offset 0, filename 6, build_id 7, has_functions */
      0x32, 1, 'p', 0x32, 2, 'a', 'b',
      0x1A, 16, 0x08, 1, 0x10, 0x80, 0x20, 0x18, 0x80, 0x40, 0x20, 0, 0x28, 6,
      0x30, 7, 0x38, 1,
      /* string 8 "main"; function (5) {id 1, name 8, system_name 8};
       * location (4) {id 1, mapping 1, address 0x1010, line {function 1}} */
      0x32, 4, 'm', 'a', 'i', 'n', 0x2A, 6, 0x08, 1, 0x10, 8, 0x18, 8,
      0x22, 11, 0x08, 1, 0x10, 1, 0x18, 0x90, 0x20, 0x22, 2, 0x08, 1,
      /* parse: string 9, function 2, location 2 at 0x1020 */
      0x32, 5, 'p', 'a', 'r', 's', 'e', 0x2A, 6, 0x08, 2, 0x10, 9, 0x18, 9,
      0x22, 11, 0x08, 2, 0x10, 1, 0x18, 0xA0, 0x20, 0x22, 2, 0x08, 2,
      /* lex: string 10, function 3, location 3 at 0x1030 */
      0x32, 3, 'l', 'e', 'x', 0x2A, 6, 0x08, 3, 0x10, 10, 0x18, 10,
      0x22, 11, 0x08, 3, 0x10, 1, 0x18, 0xB0, 0x20, 0x22, 2, 0x08, 3,
      /* samples (2), pre-order, location ids packed leaf first, values
       * packed {calls, local ns}: main [1] {1, 750}; parse [2,1] {2, 170};
       * lex [3,2,1] {1, 80} */
      0x12, 8, 0x0A, 1, 1, 0x12, 3, 1, 0xEE, 0x05,
      0x12, 9, 0x0A, 2, 2, 1, 0x12, 3, 2, 0xAA, 0x01,
      0x12, 9, 0x0A, 3, 3, 2, 1, 0x12, 2, 1, 80,
  };
  assert_int_equal(got_len, sizeof(want));
  assert_memory_equal(got, want, sizeof(want));
  xr_trie_destroy(t);
}

static const struct xr_trie_node *child(const struct xr_trie_node *p,
                                        int32_t fid) {
  for (const struct xr_trie_node *c = p->first_child; c != NULL;
       c = c->next_sibling)
    if (c->fid == fid)
      return c;
  return NULL;
}

static uint64_t nodes(const struct xr_trie *t) {
  uint64_t n = 0;
  for (const struct xr_trie_node *c = t->root.first_child; c != NULL;
       c = xr_trie_next(c, &t->root))
    n++;
  return n;
}

/* f(1) -> f -> f -> g(2): direct recursion, one f node with g under it.
 * h(3) -> k(4) -> h -> k -> g: mutual recursion, h;k;g. */
static void fold_direct_and_mutual(void **state) {
  (void)state;
  struct xr_trie *t = new_trie();
  uint64_t now = 0;
  uintptr_t sp = 100000;
  xr_trie_enter(t, 1, now += 1, sp -= 100);
  xr_trie_enter(t, 1, now += 2, sp -= 100);
  xr_trie_enter(t, 1, now += 3, sp -= 100);
  xr_trie_enter(t, 2, now += 4, sp -= 100);
  xr_trie_exit(t, 2, now += 5, xr_trie_implied_sp(t, 2, true));
  xr_trie_exit(t, 1, now += 6, xr_trie_implied_sp(t, 1, true));
  xr_trie_exit(t, 1, now += 7, xr_trie_implied_sp(t, 1, true));
  xr_trie_exit(t, 1, now += 8, xr_trie_implied_sp(t, 1, true));
  sp = 100000;
  xr_trie_enter(t, 3, now += 1, sp -= 100);
  xr_trie_enter(t, 4, now += 1, sp -= 100);
  xr_trie_enter(t, 3, now += 1, sp -= 100);
  xr_trie_enter(t, 4, now += 1, sp -= 100);
  xr_trie_enter(t, 2, now += 1, sp -= 100);
  xr_trie_exit(t, 2, now += 10, xr_trie_implied_sp(t, 2, true));
  xr_trie_exit(t, 4, now += 1, xr_trie_implied_sp(t, 4, true));
  xr_trie_exit(t, 3, now += 1, xr_trie_implied_sp(t, 3, true));
  xr_trie_exit(t, 4, now += 1, xr_trie_implied_sp(t, 4, true));
  xr_trie_exit(t, 3, now += 1, xr_trie_implied_sp(t, 3, true));
  assert_int_equal(nodes(t), 9);

  struct xr_trie *m = new_trie();
  assert_int_equal(xr_trie_fold_merge(m, t), 0);
  assert_int_equal(nodes(m), 5); /* f, f;g, h, h;k, h;k;g */
  const struct xr_trie_node *f = child(&m->root, 1);
  assert_non_null(f);
  assert_int_equal(f->count, 3);
  const struct xr_trie_node *fg = child(f, 2);
  assert_non_null(fg);
  assert_int_equal(fg->count, 1);
  assert_null(child(f, 1));
  /* f's calls lasted 35, 25 and 15 ticks, g's 5: f's local time is 30 */
  assert_int_equal(xr_trie_local_time(f), 30);
  assert_int_equal(xr_trie_local_time(fg), 5);
  assert_int_equal(f->total_time, 35);
  assert_int_equal(f->hist[xr_hist_bucket(35)], 1);
  assert_int_equal(f->hist[xr_hist_bucket(25)], 1);
  assert_int_equal(f->hist[xr_hist_bucket(15)], 1);
  const struct xr_trie_node *h = child(&m->root, 3);
  const struct xr_trie_node *hk = h != NULL ? child(h, 4) : NULL;
  assert_non_null(hk);
  assert_int_equal(h->count, 2);
  assert_int_equal(hk->count, 2);
  assert_null(child(hk, 3));
  const struct xr_trie_node *hkg = child(hk, 2);
  assert_non_null(hkg);
  assert_int_equal(hkg->count, 1);
  assert_int_equal(xr_trie_local_time(hkg), 10);
  /* local time is kept: the folded roots' totals are the original's */
  assert_int_equal(f->total_time + h->total_time,
                   child(&t->root, 1)->total_time + child(&t->root, 3)->total_time);
  /* folding again changes nothing but adds the counts */
  assert_int_equal(xr_trie_fold_merge(m, t), 0);
  assert_int_equal(nodes(m), 5);
  assert_int_equal(f->count, 6);
  xr_trie_destroy(m);
  xr_trie_destroy(t);
}

/* Random call sequences over 5 functions (lots of direct and mutual
 * recursion, up to 40 deep): folding keeps every function's calls and local
 * time and the overall total, and no function is twice on a folded path. */
static uint64_t rng_state = 88172645463325252ull;
static uint32_t rnd(uint32_t n) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state % n);
}

static void per_function(const struct xr_trie *t, uint64_t calls[6],
                         uint64_t local[6]) {
  for (const struct xr_trie_node *n = t->root.first_child; n != NULL;
       n = xr_trie_next(n, &t->root)) {
    calls[n->fid] += n->count;
    local[n->fid] += xr_trie_local_time(n);
  }
}

static void fold_keeps_totals_random(void **state) {
  (void)state;
  for (int round = 0; round < 20; round++) {
    struct xr_trie *t = new_trie();
    int32_t stack[64];
    uint32_t depth = 0;
    uint64_t now = 0;
    for (int e = 0; e < 2000; e++) {
      now += 1 + rnd(9);
      if (depth < 40 && (depth == 0 || rnd(2) == 0)) {
        stack[depth] = 1 + (int32_t)rnd(5);
        xr_trie_enter(t, stack[depth], now, 100000 - 100 * (uintptr_t)depth);
        depth++;
      } else {
        int32_t fid = stack[--depth];
        xr_trie_exit(t, fid, now, xr_trie_implied_sp(t, fid, true));
      }
    }
    while (depth > 0) {
      int32_t fid = stack[--depth];
      xr_trie_exit(t, fid, now += 3, xr_trie_implied_sp(t, fid, true));
    }
    struct xr_trie *m = new_trie();
    assert_int_equal(xr_trie_fold_merge(m, t), 0);
    uint64_t calls_t[6] = {0}, local_t[6] = {0}, calls_m[6] = {0}, local_m[6] = {0};
    per_function(t, calls_t, local_t);
    per_function(m, calls_m, local_m);
    assert_memory_equal(calls_t, calls_m, sizeof(calls_t));
    assert_memory_equal(local_t, local_m, sizeof(local_t));
    uint64_t roots_t = 0, roots_m = 0;
    for (const struct xr_trie_node *n = t->root.first_child; n; n = n->next_sibling)
      roots_t += n->total_time;
    for (const struct xr_trie_node *n = m->root.first_child; n; n = n->next_sibling)
      roots_m += n->total_time;
    assert_int_equal(roots_t, roots_m);
    for (const struct xr_trie_node *n = m->root.first_child; n != NULL;
         n = xr_trie_next(n, &m->root)) {
      assert_true(n->depth <= 5);
      for (const struct xr_trie_node *a = n->parent; a != &m->root; a = a->parent)
        assert_int_not_equal(a->fid, n->fid);
    }
    xr_trie_destroy(m);
    xr_trie_destroy(t);
  }
}

/* The executable's and a shared object's (libc) code segments. */
static void mappings_of_loaded_objects(void **state) {
  (void)state;
  static struct xr_pprof_mapping_text text;
  struct xr_pprof_mapping m = {.id = 7};
  uintptr_t self = (uintptr_t)&mappings_of_loaded_objects;
  assert_int_equal(xr_pprof_mapping_of(self, &m, &text), 0);
  assert_int_equal(m.id, 7);
  assert_true(m.memory_start <= self && self < m.memory_limit);
  char exe[1024];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  assert_true(n > 0);
  exe[n] = '\0';
  assert_string_equal(m.filename, exe);
  uintptr_t libc = (uintptr_t)&getpid; /* not intercepted by sanitizers */
  assert_int_equal(xr_pprof_mapping_of(libc, &m, &text), 0);
  assert_true(m.memory_start <= libc && libc < m.memory_limit);
  assert_non_null(m.filename);
  assert_non_null(strstr(m.filename, "libc"));
  assert_false(m.memory_start <= self && self < m.memory_limit);
  /* data is not code */
  static int data;
  assert_int_equal(xr_pprof_mapping_of((uintptr_t)&data, &m, &text), -1);
  assert_int_equal(xr_pprof_mapping_of(0, &m, &text), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(varints),
      cmocka_unit_test(profile_bytes_exact),
      cmocka_unit_test(fold_direct_and_mutual),
      cmocka_unit_test(fold_keeps_totals_random),
      cmocka_unit_test(mappings_of_loaded_objects),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
