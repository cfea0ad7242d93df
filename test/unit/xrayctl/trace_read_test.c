/* xrayctl's reader of logs (tools/xrayctl/trace_read.c): captured argument
 * values come back with their records in both formats. FDR: an entry's
 * CallArguments and the strings of its xray-args event, an exit's return
 * value from the event after it, also where a run of plain records is
 * taken at once (and at the end of the bytes read so far); no xray-args
 * event is shown; compiler-rt's argument stays an argument. Basic: the
 * value payloads after a record, a string's text from the records after
 * it; compiler-rt's argument record as before. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "fdr/fdr_arg_records.h"
#include "fdr/fdr_records.h"
#include "xrayctl/trace_read.h"

/* ---- a file in memory ---------------------------------------------------- */

static uint8_t *file;
static size_t file_size, file_cap;

static uint8_t *room(size_t n) {
  if (file_size + n > file_cap) {
    file_cap = (file_size + n) * 2;
    file = realloc(file, file_cap);
    assert_non_null(file);
  }
  uint8_t *p = file + file_size;
  file_size += n;
  return p;
}

static void fn(unsigned kind, int32_t fid, uint32_t delta) {
  xr_fdr_function(room(XR_FDR_FN_SIZE), fid, kind, delta);
}
static void value(uint8_t what, uint8_t format, uint64_t bits) {
  xr_fdr_call_value(room(XR_FDR_META_SIZE), bits, what, format);
}
static void args_event(const struct xr_arg_call *c) {
  uint8_t data[1024];
  size_t size = xr_args_event_encode(c, c->v, c->count, data, sizeof data);
  assert_true(size > 0);
  xr_fdr_custom_event(room(XR_FDR_META_SIZE), (int32_t)size, 0);
  memcpy(room(size), data, size);
}

/* An FDR file of one block (tid 5, pid 77, from tsc 1000): the header and
 * the preamble; fdr_end patches the block's extents. */
static void fdr_begin(void) {
  file_size = 0;
  xr_fdr_file_header(room(32), 5, true, true, 1000000000, 16384);
  xr_fdr_buffer_extents(room(16), 0);
  xr_fdr_preamble(room(64), 5, 5, 77, 1, 2, 0, 1000);
}
static void fdr_end(void) { xr_fdr_buffer_extents(file + 32, file_size - 48); }

/* ---- the events read back ------------------------------------------------ */

static char got[16][256];
static size_t ngot, nall, nruns;

static void describe(char *out, size_t cap, const struct xr_tev *e) {
  char *end = out + cap;
  if (e->kind == XR_TEV_CUSTOM) {
    snprintf(out, cap, "custom %.*s", (int)e->size, (const char *)e->data);
    return;
  }
  out += snprintf(out, (size_t)(end - out), "%s %d %llu",
                  e->kind == XR_TEV_ENTER ? "enter" : "exit", e->fid,
                  (unsigned long long)e->tsc);
  if (e->has_arg)
    out += snprintf(out, (size_t)(end - out), " arg=%llx", (unsigned long long)e->arg);
  for (size_t i = 0; e->call != NULL && i < e->call->count; i++) {
    const struct xr_arg_value *v = &e->call->v[i];
    out += snprintf(out, (size_t)(end - out), "%s%02x.%u.%u=%llx'%.*s'%s", i ? " " : " [",
                    v->what, v->format, v->status, (unsigned long long)v->bits, (int)v->len,
                    e->call->text + v->text, i + 1 == e->call->count ? "]" : "");
  }
}

/* Keeps the events with values, arguments or data (and all, while few). */
static void on_event(void *ctx, int32_t pid, int32_t tid, const struct xr_tev *e) {
  (void)ctx, (void)pid, (void)tid;
  nall++;
  if (ngot < 16 && (nall <= 8 || e->call || e->has_arg || e->kind == XR_TEV_CUSTOM))
    describe(got[ngot++], sizeof got[0], e);
}

/* The report's way: plain records in runs. */
static uint64_t on_calls(void *ctx, int32_t pid, int32_t tid, const uint8_t *recs, size_t n,
                         uint64_t tsc) {
  (void)ctx, (void)pid, (void)tid;
  nruns += n;
  for (size_t i = 0; i < n; i++) {
    assert_true(((recs[8 * i] >> 1) & 7) <= XR_FDR_FN_TAIL_EXIT);
    tsc += xr_fdr_get32(recs + 8 * i + 4);
  }
  return tsc;
}

/* Reads the file (parts > 0: split, with the calls function). */
static void read_file(bool runs) {
  int fd = memfd_create("trace", MFD_CLOEXEC);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, file, file_size), (ssize_t)file_size);
  struct ctl_in in;
  assert_int_equal(ctl_in_open(&in, fd, "trace"), 0);
  struct ctl_trace_info info;
  assert_int_equal(ctl_trace_identify(&in, &info), 0);
  ngot = nall = nruns = 0;
  void *ctxs[1] = {NULL};
  int rc = runs ? ctl_trace_events_split(&in, &info, 1, on_event, on_calls, ctxs)
                : ctl_trace_events(&in, &info, on_event, NULL);
  if (rc != 0)
    fail_msg("%s", in.err);
  ctl_in_close(&in);
  close(fd);
}

static void expect(const char *const *want, size_t n) {
  for (size_t i = 0; i < n && i < ngot; i++)
    assert_string_equal(got[i], want[i]);
  assert_int_equal(ngot, n);
}

/* ---- FDR ------------------------------------------------------------------ */

static void fdr_values(void **state) {
  (void)state;
  struct xr_arg_call strings = {.count = 2};
  strings.v[0] = (struct xr_arg_value){0x1234, 0x12, XR_ARGF_S, XR_ARGS_OK, 2, 0};
  strings.v[1] = (struct xr_arg_value){0xdead, 0x13, XR_ARGF_S, XR_ARGS_UNREADABLE, 0, 2};
  memcpy(strings.text, "hi", 2);
  struct xr_arg_call ret = {.count = 1};
  ret.v[0] = (struct xr_arg_value){0x7ff8dead0000beefull, 0x30, XR_ARGF_F, 0, 0, 0};
  fdr_begin();
  args_event(&ret); /* belongs to no record: not shown */
  fn(XR_FDR_FN_ENTER_ARG, 2, 5);
  value(0x11, XR_ARGF_D, 0x8000000000000000ull);
  value(0x12, XR_ARGF_S, 0x1234);
  value(0x13, XR_ARGF_S, 0xdead);
  value(0x21, XR_ARGF_F32, 0x80000000);
  args_event(&strings);
  fn(XR_FDR_FN_ENTER, 3, 1);
  fn(XR_FDR_FN_EXIT, 3, 1);
  fn(XR_FDR_FN_EXIT, 2, 1); /* last of a run of plain records */
  args_event(&ret);
  fn(XR_FDR_FN_ENTER_ARG, 4, 2);
  xr_fdr_call_argument(room(16), 0xabc);
  fn(XR_FDR_FN_EXIT, 4, 1);
  fdr_end();
#define ENTER_2 "enter 2 1005 [11.1.0=8000000000000000'' 12.5.0=1234'hi' 13.5.2=dead'' " \
                "21.7.0=80000000'']"
#define EXIT_2 "exit 2 1008 [30.6.0=7ff8dead0000beef'']"
  static const char *const want[] = {ENTER_2,        "enter 3 1006", "exit 3 1007",
                                     EXIT_2,         "enter 4 1010 arg=abc",
                                     "exit 4 1011"};
  read_file(false);
  expect(want, 6);
  read_file(true); /* plain records in runs: enter 3, exit 3, exit 4 */
  static const char *const by_runs[] = {ENTER_2, EXIT_2, "enter 4 1010 arg=abc"};
  expect(by_runs, 3);
  assert_int_equal(nruns, 3);
}

/* An exit with a value whose record ends exactly where the bytes read so
 * far end (the reader's 1 MiB chunk): its event comes with it. */
static void fdr_value_at_the_end_of_a_chunk(void **state) {
  (void)state;
  struct xr_arg_call ret = {.count = 1};
  ret.v[0] = (struct xr_arg_value){42, 0x30, XR_ARGF_D, 0, 0, 0};
  fdr_begin();
  size_t records = (CTL_IN_CHUNK - file_size) / XR_FDR_FN_SIZE;
  assert_int_equal(records % 2, 0);
  for (size_t i = 0; i < records; i += 2) {
    fn(XR_FDR_FN_ENTER, 1, 1);
    fn(XR_FDR_FN_EXIT, 1, 1);
  }
  assert_int_equal(file_size, CTL_IN_CHUNK);
  args_event(&ret);
  fn(XR_FDR_FN_ENTER, 6, 1);
  fn(XR_FDR_FN_EXIT, 6, 1);
  fdr_end();
  char want[64];
  snprintf(want, sizeof want, "exit 1 %llu [30.1.0=2a'']",
           (unsigned long long)(1000 + records));
  for (int runs = 0; runs < 2; runs++) {
    read_file(runs);
    assert_string_equal(got[ngot - 1], want);
    assert_int_equal(nall + nruns, records + 2);
  }
}

/* ---- basic ---------------------------------------------------------------- */

static void basic_begin(void) {
  file_size = 0;
  uint8_t *h = room(32);
  memset(h, 0, 32);
  h[0] = 3;                              /* version 3, type 0 */
  xr_fdr_put64(h + 8, 1000000000);       /* frequency */
}
/* A function record (event 0 entry, 1 exit, 3 entry with argument). */
static void basic_fn(unsigned event, int32_t fid, uint64_t tsc) {
  uint8_t *r = room(32);
  memset(r, 0, 32);
  r[3] = (uint8_t)event;
  memcpy(r + 4, &fid, 4);
  xr_fdr_put64(r + 8, tsc);
  int32_t tid = 5, pid = 77;
  memcpy(r + 16, &tid, 4);
  memcpy(r + 20, &pid, 4);
}
/* An argument record of fid (what 0, format 0: compiler-rt's). */
static uint8_t *basic_arg(int32_t fid, uint8_t what, uint8_t format, uint64_t bits) {
  uint8_t *r = room(32);
  memset(r, 0, 32);
  r[0] = 1;
  r[2] = what;
  r[3] = format;
  memcpy(r + 4, &fid, 4);
  int32_t tid = 5, pid = 77;
  memcpy(r + 8, &tid, 4);
  memcpy(r + 12, &pid, 4);
  xr_fdr_put64(r + 16, bits);
  return r;
}
/* A string value and the records of its text, 16 bytes each. */
static void basic_string(int32_t fid, uint8_t what, uint64_t bits, uint8_t status,
                         const char *text) {
  size_t len = strlen(text);
  uint8_t *r = basic_arg(fid, what, XR_ARGF_S, bits);
  r[24] = status;
  r[25] = (uint8_t)len;
  for (size_t at = 0; at < len; at += 16) {
    size_t n = len - at < 16 ? len - at : 16;
    r = basic_arg(fid, XR_ARG_WHAT_TEXT, (uint8_t)n, 0);
    memcpy(r + 16, text + at, n);
  }
}

static void basic_values(void **state) {
  (void)state;
  static const char cut[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  basic_begin();
  basic_fn(3, 2, 100);
  basic_arg(2, 0x11, XR_ARGF_U, UINT64_MAX);
  basic_string(2, 0x12, 0x5000, XR_ARGS_CUT, cut);
  basic_string(2, 0x13, 0x6000, XR_ARGS_OK, "short");
  basic_arg(2, 0x21, XR_ARGF_F, 0x7ff8dead0000beefull);
  basic_fn(1, 2, 110);
  basic_arg(2, 0x30, XR_ARGF_P, 0x1000);
  basic_fn(3, 4, 120);
  basic_arg(4, 0, 0, 0xabc); /* compiler-rt's */
  basic_fn(1, 4, 130);
  basic_arg(9, 0x30, XR_ARGF_D, 1); /* not the record's function: dropped */
  read_file(false);
  char first[256];
  snprintf(first, sizeof first,
           "enter 2 100 [11.2.0=ffffffffffffffff'' 12.5.3=5000'%s' 13.5.0=6000'short' "
           "21.6.0=7ff8dead0000beef'']", cut);
  static const char *const rest[] = {"exit 2 110 [30.4.0=1000'']", "enter 4 120 arg=abc",
                                     "exit 4 130"};
  assert_int_equal(ngot, 4);
  assert_string_equal(got[0], first);
  for (size_t i = 0; i < 3; i++)
    assert_string_equal(got[i + 1], rest[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fdr_values),
      cmocka_unit_test(fdr_value_at_the_end_of_a_chunk),
      cmocka_unit_test(basic_values),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  free(file);
  return rc;
}
