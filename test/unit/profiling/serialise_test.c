/* Profile blocks (exact bytes), folded lines and the report table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "profiling/call_trie.h"
#include "profiling/profile_blocks.h"
#include "profiling/profile_folded.h"
#include "profiling/profile_report.h"

static struct xr_trie *sample_trie(int32_t tid) {
  struct xr_trie_config c = {.chunk_bytes = 16384, .stack_bytes = 65536,
                             .max_depth = 64};
  struct xr_trie *t = xr_trie_create(&c);
  assert_non_null(t);
  t->tid = tid;
  /* main(1) { parse(2) x2 { lex(3) } } */
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

static void block_bytes_exact(void **state) {
  (void)state;
  struct xr_trie *t = sample_trie(0x2047);
  struct xr_profile_header_info info = {.timestamp_ns = 0x1122334455667788ull,
                                        .pid = 4242};
  size_t size = xr_profile_size(&t, 1, XR_PROFILE_DEFAULT_MAX_BLOCK);
  /* records: [1] 24 B, [2,1] 28 B, [3,2,1] 32 B */
  assert_int_equal(size, 32 + 16 + 24 + 28 + 32);
  unsigned char buf[200];
  memset(buf, 0xEE, sizeof(buf));
  assert_int_equal(xr_profile_write(buf, size, &t, 1,
                                    XR_PROFILE_DEFAULT_MAX_BLOCK, &info),
                   size);
  static const unsigned char want[] = {
      0x66, 0x6F, 0x72, 0x70, 0x79, 0x61, 0x72, 0x78, /* magic */
      0x24, 0x04, 0x18, 0x20, 0, 0, 0, 0,             /* version */
      0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* timestamp */
      0x92, 0x10, 0, 0, 0, 0, 0, 0,                   /* pid 4242 */
      100, 0, 0, 0, 0, 0, 0, 0,                       /* size 100, block 0 */
      0x47, 0x20, 0, 0, 0, 0, 0, 0,                   /* tid */
      1, 0, 0, 0, 0, 0, 0, 0,                         /* [1] 0 */
      1, 0, 0, 0, 0, 0, 0, 0,                         /* count 1 */
      100, 0, 0, 0, 0, 0, 0, 0,                       /* time 100 */
      2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,             /* [2,1] 0 */
      2, 0, 0, 0, 0, 0, 0, 0,                         /* count 2 */
      25, 0, 0, 0, 0, 0, 0, 0,                        /* time 25 */
      3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, /* [3,2,1] 0 */
      1, 0, 0, 0, 0, 0, 0, 0,                         /* count 1 */
      8, 0, 0, 0, 0, 0, 0, 0,                         /* time 8 */
  };
  assert_int_equal(sizeof(want), size);
  assert_memory_equal(buf, want, sizeof(want));
  assert_int_equal(buf[size], 0xEE);
  xr_trie_destroy(t);
}

static void blocks_split_and_numbered(void **state) {
  (void)state;
  struct xr_trie *t[2] = {sample_trie(5), sample_trie(6)};
  struct xr_profile_header_info info = {0, 1};
  /* 60-byte blocks: 44 bytes of records each -> one record per block for
   * the 3 records of each trie */
  size_t size = xr_profile_size(t, 2, 60);
  assert_int_equal(size, 32 + 2 * (3 * 16 + 24 + 28 + 32));
  unsigned char buf[400];
  assert_int_equal(xr_profile_write(buf, size, t, 2, 60, &info), size);
  size_t off = 32;
  uint32_t expect_sizes[] = {40, 44, 48, 40, 44, 48};
  for (uint32_t i = 0; i < 6; i++) {
    uint32_t bsize, number;
    uint64_t tid;
    memcpy(&bsize, buf + off, 4);
    memcpy(&number, buf + off + 4, 4);
    memcpy(&tid, buf + off + 8, 8);
    assert_int_equal(bsize, expect_sizes[i]);
    assert_int_equal(number, i);
    assert_int_equal(tid, i < 3 ? 5 : 6);
    off += bsize;
  }
  assert_int_equal(off, size);
  /* empty tries give no block */
  struct xr_trie_config c = {.chunk_bytes = 4096, .stack_bytes = 4096,
                             .max_depth = 4};
  struct xr_trie *e = xr_trie_create(&c);
  assert_int_equal(xr_profile_size(&e, 1, 60), 32);
  xr_trie_destroy(e);
  xr_trie_destroy(t[0]);
  xr_trie_destroy(t[1]);
}

/* memory sink */
struct mem {
  char data[4096];
  size_t len;
};
static int mem_sink(void *ctx, const void *p, size_t n) {
  struct mem *m = ctx;
  if (m->len + n >= sizeof(m->data))
    return -1;
  memcpy(m->data + m->len, p, n);
  m->len += n;
  m->data[m->len] = '\0';
  return 0;
}
static const char *names(void *ctx, int32_t fid) {
  (void)ctx;
  static const char *const n[] = {"?", "main", "parse", "lex with space;x"};
  return fid >= 1 && fid <= 3 ? n[fid] : "?";
}
static uint64_t times_ten(uint64_t ticks) { return ticks * 10; }

static void folded_lines_exact(void **state) {
  (void)state;
  struct xr_trie *t = sample_trie(1);
  static struct mem m;
  static struct xr_text_out out;
  m.len = 0;
  xr_text_init(&out, mem_sink, &m);
  assert_int_equal(xr_folded_write(t, XR_FOLDED_TIME, names, NULL, times_ten, &out), 0);
  assert_string_equal(m.data, "main 750\n"
                              "main;parse 170\n"
                              "main;parse;lex_with_space_x 80\n");
  m.len = 0;
  xr_text_init(&out, mem_sink, &m);
  assert_int_equal(xr_folded_write(t, XR_FOLDED_CALLS, names, NULL, times_ten, &out), 0);
  assert_string_equal(m.data, "main 1\n"
                              "main;parse 2\n"
                              "main;parse;lex_with_space_x 1\n");
  xr_trie_destroy(t);
}

static void report_orders_by_local_time(void **state) {
  (void)state;
  struct xr_trie *t = sample_trie(1);
  static struct mem m;
  static struct xr_text_out out;
  m.len = 0;
  xr_text_init(&out, mem_sink, &m);
  struct xr_prof_report_info info = {.program = "prog", .pid = 9, .threads = 1,
                                .frequency_hz = 1000000000, .top = 2};
  assert_int_equal(xr_prof_report_write(&t, 1, &info, names, NULL, times_ten, &out), 0);
  /* main: local 75 ticks = 750 ns (75 % of all local time), total 1000 ns;
   * parse: local 17 ticks -> 170 ns; p50 of parse's 5- and 20-tick calls */
  const char *row1 = strstr(m.data, "function\n");
  assert_non_null(row1);
  row1 += strlen("function\n");
  assert_memory_equal(row1, "         0.750    75.0          1.000            1", 49);
  const char *eol = strchr(row1, '\n');
  assert_non_null(eol);
  assert_memory_equal(eol - 6, "  main", 6);
  const char *row2 = eol + 1;
  assert_memory_equal(row2, "         0.170    17.0          0.250            2", 49);
  assert_memory_equal(row2 + 50, "        0.080        0.250        0.250  parse\n", 46);
  assert_non_null(strstr(m.data, "# 1 more function(s) not shown\n"));
  assert_non_null(strstr(m.data, "# not recorded: 0 call(s) out of memory"));
  xr_trie_destroy(t);
}

static void report_counts_recursion_once(void **state) {
  (void)state;
  struct xr_trie_config c = {.chunk_bytes = 16384, .stack_bytes = 65536,
                             .max_depth = 64};
  struct xr_trie *t = xr_trie_create(&c);
  /* f(2) calls itself 3 deep: total must be the outer call's 100 ticks */
  xr_trie_enter(t, 2, 0, 1000);
  xr_trie_enter(t, 2, 10, 900);
  xr_trie_enter(t, 2, 20, 800);
  xr_trie_exit(t, 2, 80, xr_trie_implied_sp(t, 2, true));
  xr_trie_exit(t, 2, 90, xr_trie_implied_sp(t, 2, true));
  xr_trie_exit(t, 2, 100, xr_trie_implied_sp(t, 2, true));
  static struct mem m;
  static struct xr_text_out out;
  m.len = 0;
  xr_text_init(&out, mem_sink, &m);
  struct xr_prof_report_info info = {.program = "p", .top = 10};
  assert_int_equal(xr_prof_report_write(&t, 1, &info, names, NULL, times_ten, &out), 0);
  const char *row1 = strstr(m.data, "function\n") + strlen("function\n");
  /* local 1000 ns, 100 %, total 1000 ns, 3 calls */
  assert_memory_equal(row1, "         1.000   100.0          1.000            3", 49);
  xr_trie_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(block_bytes_exact),
      cmocka_unit_test(blocks_split_and_numbered),
      cmocka_unit_test(folded_lines_exact),
      cmocka_unit_test(report_orders_by_local_time),
      cmocka_unit_test(report_counts_recursion_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
