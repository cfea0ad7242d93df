/* The Perfetto writer's exact bytes for a tiny stream: the trace's clock,
 * the process and thread tracks, a thread's sequence (its incremental
 * clock, cleared state and defaults), names interned once per sequence,
 * timestamp deltas, the hot begin and end packets, a call cut by
 * unwinding, one whose entry was lost (sequence 1, before the thread's
 * first time), one still open at the end, a custom event's escaped
 * payload, and what the mode dropped. Every field number and value below
 * was written by hand from protos/perfetto/trace/ (see perfetto_trace.c),
 * not read back from the writer. */
#define _GNU_SOURCE /* memfd_create */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sys/mman.h>
#include <unistd.h>

#include "export/perfetto_trace.h"
#include "xray/xray_version.h"

#define LABEL "xray runtime " XRAY_RUNTIME_VERSION

static const char *name_of(void *ctx, int32_t fid) {
  (void)ctx;
  static const char *names[] = {"?", "main", "f", "g"};
  return fid >= 0 && fid < 4 ? names[fid] : "?";
}

static const char *thread_name_of(void *ctx, int32_t pid, int32_t tid,
                                  char *buf, size_t cap) {
  (void)ctx;
  (void)pid;
  (void)tid;
  (void)buf;
  (void)cap;
  return "w";
}

static const char *process_name_of(void *ctx, int32_t pid) {
  (void)ctx;
  (void)pid;
  return "p";
}

/* 1 GHz from tick 0, BOOTTIME 1000 ns at tick 0: a tick t is 1000 + t ns. */
static size_t run(void (*feed)(struct xr_perfetto *), uint8_t *buf,
                  size_t cap) {
  int fd = memfd_create("perfetto", 0);
  assert_true(fd >= 0);
  struct xr_trace_context c = {.frequency_hz = 1000000000u,
                               .base_ticks = 0,
                               .base_boottime_ns = 1000,
                               .name = name_of,
                               .thread_name = thread_name_of,
                               .process_name = process_name_of,
                               .quiet = true};
  struct xr_perfetto *w = xr_perfetto_open_fd(fd, "mem", &c);
  assert_non_null(w);
  int dup_fd = dup(fd);
  feed(w);
  assert_int_equal(xr_perfetto_close(w), 0);
  ssize_t n = pread(dup_fd, buf, cap, 0);
  assert_true(n > 0);
  close(dup_fd);
  return (size_t)n;
}

static void ev(struct xr_perfetto *w, enum xr_tev_kind k, int32_t fid,
               uint64_t tsc) {
  struct xr_tev e = {.kind = k, .fid = fid, .tsc = tsc};
  xr_perfetto_add(w, 10, 11, &e);
}

static void feed_tiny(struct xr_perfetto *w) {
  ev(w, XR_TEV_ENTER, 1, 100);  /* main: interned as 1 */
  ev(w, XR_TEV_ENTER, 2, 150);  /* f: interned as 2 */
  ev(w, XR_TEV_EXIT, 2, 200);
  ev(w, XR_TEV_ENTER, 2, 300);  /* f again: its iid only */
  ev(w, XR_TEV_EXIT, 1, 2000);  /* f's exit was skipped: unwound */
  struct xr_tev c = {.kind = XR_TEV_CUSTOM, .tsc = 2100, .data = "a\\\xff",
                     .size = 3};
  xr_perfetto_add(w, 10, 11, &c);
  ev(w, XR_TEV_EXIT, 3, 2200);  /* g's entry was lost: no-entry */
  ev(w, XR_TEV_ENTER, 1, 2300); /* still open at the end */
  struct xr_tev d = {.kind = XR_TEV_DROPPED, .arg = 5, .data = "x"};
  xr_perfetto_add(w, 10, 0, &d);
}

static const uint8_t clock_packet[] = {
    /* packet {sequence 1, clock_snapshot {clocks {id 6 (BOOTTIME),
     * timestamp 1000}, primary_trace_clock 6}} */
    0x0a, 0x0d, 0x50, 0x01, 0x32, 0x09, 0x0a, 0x05, 0x08, 0x06, 0x10, 0xe8,
    0x07, 0x10, 0x06};

/* The thread's packets, after the process's track (built with the label). */
static const uint8_t thread_packets[] = {
    /* sequence 2's clock: {clocks {id 64, ts 1100, incremental},
     * {id 6, ts 1100}} */
    0x0a, 0x14, 0x50, 0x02, 0x32, 0x10, 0x0a, 0x07, 0x08, 0x40, 0x10, 0xcc,
    0x08, 0x18, 0x01, 0x0a, 0x05, 0x08, 0x06, 0x10, 0xcc, 0x08,
    /* {sequence 2, sequence_flags 1 (cleared), defaults {clock 64,
     * track_event_defaults {track_uuid 10<<32|11}}, track_descriptor
     * {uuid, parent_uuid 10<<32, thread {pid 10, tid 11, name "w"}}} */
    0x0a, 0x2d, 0x50, 0x02, 0x68, 0x01, 0xda, 0x03, 0x0c, 0xd0, 0x03, 0x40,
    0x5a, 0x07, 0x58, 0x8b, 0x80, 0x80, 0x80, 0xa0, 0x01, 0xe2, 0x03, 0x17,
    0x08, 0x8b, 0x80, 0x80, 0x80, 0xa0, 0x01, 0x28, 0x80, 0x80, 0x80, 0x80,
    0xa0, 0x01, 0x22, 0x07, 0x08, 0x0a, 0x10, 0x0b, 0x2a, 0x01, 0x77,
    /* main begins at +0: interned_data {event_names {iid 1, "main"}},
     * track_event {type 1, name_iid 1} */
    0x0a, 0x16, 0x40, 0x00, 0x50, 0x02, 0x62, 0x0a, 0x12, 0x08, 0x08, 0x01,
    0x12, 0x04, 'm', 'a', 'i', 'n', 0x5a, 0x04, 0x48, 0x01, 0x50, 0x01,
    /* f begins at +50, interned as 2 */
    0x0a, 0x13, 0x40, 0x32, 0x50, 0x02, 0x62, 0x07, 0x12, 0x05, 0x08, 0x02,
    0x12, 0x01, 'f', 0x5a, 0x04, 0x48, 0x01, 0x50, 0x02,
    /* f ends at +50: 10 bytes */
    0x0a, 0x08, 0x40, 0x32, 0x50, 0x02, 0x5a, 0x02, 0x48, 0x02,
    /* f begins at +100 by its iid: 12 bytes */
    0x0a, 0x0a, 0x40, 0x64, 0x50, 0x02, 0x5a, 0x04, 0x48, 0x01, 0x50, 0x02,
    /* f ends at +1700, {cut: "unwound"} */
    0x0a, 0x19, 0x40, 0xa4, 0x0d, 0x50, 0x02, 0x5a, 0x12, 0x48, 0x02, 0x22,
    0x0e, 0x52, 0x03, 'c', 'u', 't', 0x32, 0x07, 'u', 'n', 'w', 'o', 'u',
    'n', 'd',
    /* main ends at +0 */
    0x0a, 0x08, 0x40, 0x00, 0x50, 0x02, 0x5a, 0x02, 0x48, 0x02,
    /* custom event at +100: type 3, name, {data: "a\x5c\xff"} */
    0x0a, 0x2a, 0x40, 0x64, 0x50, 0x02, 0x5a, 0x24, 0x48, 0x03, 0xba, 0x01,
    0x0c, 'c', 'u', 's', 't', 'o', 'm', ' ', 'e', 'v', 'e', 'n', 't', 0x22,
    0x11, 0x52, 0x04, 'd', 'a', 't', 'a', 0x32, 0x09, 'a', '\\', 'x', '5',
    'c', '\\', 'x', 'f', 'f',
    /* g, no entry: sequence 1, BOOTTIME (clock id 6) 1099 = the thread's
     * first time less 1, begin on the thread's track, name "g",
     * {cut: "no-entry"} */
    0x0a, 0x28, 0x40, 0xcb, 0x08, 0xd0, 0x03, 0x06, 0x50, 0x01, 0x5a, 0x1e,
    0x48, 0x01, 0x58, 0x8b, 0x80, 0x80, 0x80, 0xa0, 0x01, 0xba, 0x01, 0x01,
    'g', 0x22, 0x0f, 0x52, 0x03, 'c', 'u', 't', 0x32, 0x08, 'n', 'o', '-',
    'e', 'n', 't', 'r', 'y',
    /* ... ending at 3200 */
    0x0a, 0x13, 0x40, 0x80, 0x19, 0xd0, 0x03, 0x06, 0x50, 0x01, 0x5a, 0x09,
    0x48, 0x02, 0x58, 0x8b, 0x80, 0x80, 0x80, 0xa0, 0x01,
    /* main begins at +200 (after the custom event's 3100): 13 bytes */
    0x0a, 0x0b, 0x40, 0xc8, 0x01, 0x50, 0x02, 0x5a, 0x04, 0x48, 0x01, 0x50,
    0x01,
    /* dropped: sequence 1 at 3300 (the trace's last time), instant on the
     * process's track, "xray dropped" {what: "x"} {count: 5} */
    0x0a, 0x38, 0x40, 0xe4, 0x19, 0xd0, 0x03, 0x06, 0x50, 0x01, 0x5a, 0x2e,
    0x48, 0x03, 0x58, 0x80, 0x80, 0x80, 0x80, 0xa0, 0x01, 0xba, 0x01, 0x0c,
    'x', 'r', 'a', 'y', ' ', 'd', 'r', 'o', 'p', 'p', 'e', 'd', 0x22, 0x09,
    0x52, 0x04, 'w', 'h', 'a', 't', 0x32, 0x01, 'x', 0x22, 0x09, 0x52, 0x05,
    'c', 'o', 'u', 'n', 't', 0x18, 0x05,
    /* at close, main ends at +0 {cut: "open"} */
    0x0a, 0x15, 0x40, 0x00, 0x50, 0x02, 0x5a, 0x0f, 0x48, 0x02, 0x22, 0x0b,
    0x52, 0x03, 'c', 'u', 't', 0x32, 0x04, 'o', 'p', 'e', 'n'};

static size_t append(uint8_t *to, size_t at, const void *from, size_t n) {
  memcpy(to + at, from, n);
  return at + n;
}

static void test_tiny_stream_bytes(void **state) {
  (void)state;
  uint8_t want[1024], got[1024];
  size_t n = append(want, 0, clock_packet, sizeof clock_packet);
  /* packet {sequence 1, track_descriptor {uuid 10<<32, process {pid 10,
   * process_name "p", process_labels LABEL}}}: lengths from the label's */
  const size_t label = sizeof LABEL - 1;
  const size_t pd = 2 + 3 + 2 + label, td = 7 + 2 + pd, pk = 4 + 1 + td;
  assert_true(pk < 128);
  const uint8_t process[] = {
      0x0a, (uint8_t)pk, 0x50, 0x01, 0xe2, 0x03, (uint8_t)td, 0x08, 0x80,
      0x80, 0x80, 0x80, 0xa0, 0x01, 0x1a, (uint8_t)pd, 0x08, 0x0a, 0x32, 0x01,
      'p', 0x42, (uint8_t)label};
  n = append(want, n, process, sizeof process);
  n = append(want, n, LABEL, label);
  n = append(want, n, thread_packets, sizeof thread_packets);
  size_t got_n = run(feed_tiny, got, sizeof got);
  if (got_n != n || memcmp(got, want, n) != 0) {
    for (size_t i = 0; i < got_n || i < n; i++)
      if (i >= got_n || i >= n || got[i] != want[i]) {
        fprintf(stderr, "first difference at byte %zu of %zu (want %zu):",
                i, got_n, n);
        for (size_t j = i >= 8 ? i - 8 : 0; j < i + 16 && j < got_n; j++)
          fprintf(stderr, " %02x", got[j]);
        fprintf(stderr, "\n");
        break;
      }
    fail();
  }
}

static void feed_big_payload(struct xr_perfetto *w) {
  static char payload[5000];
  memset(payload, 'z', sizeof payload);
  struct xr_tev t = {.kind = XR_TEV_TYPED, .tsc = 10, .data = payload,
                     .size = sizeof payload, .event_type = 7};
  xr_perfetto_add(w, 10, 11, &t);
}

/* A payload is cut after 4 KiB and says so, with its size. */
static void test_payload_cut(void **state) {
  (void)state;
  static uint8_t got[8192];
  size_t n = run(feed_big_payload, got, sizeof got);
  /* the instant's track_event ends with {type: 7} {cut: "payload"}
   * {size: 5000} */
  static const uint8_t tail[] = {
      0x22, 0x08, 0x52, 0x04, 't', 'y', 'p', 'e', 0x18, 0x07,
      0x22, 0x0e, 0x52, 0x03, 'c', 'u', 't', 0x32, 0x07, 'p', 'a', 'y', 'l',
      'o', 'a', 'd',
      0x22, 0x09, 0x52, 0x04, 's', 'i', 'z', 'e', 0x18, 0x88, 0x27};
  assert_true(n > sizeof tail);
  assert_memory_equal(got + n - sizeof tail, tail, sizeof tail);
  /* exactly 4096 'z' before it: {data} is 0x32 0x80 0x20 then the bytes */
  const uint8_t *data = got + n - sizeof tail - 4096;
  assert_memory_equal(data - 3, "\x32\x80\x20", 3);
  for (size_t i = 0; i < 4096; i++)
    assert_int_equal(data[i], 'z');
}

static void feed_arg(struct xr_perfetto *w) {
  struct xr_tev e = {.kind = XR_TEV_ENTER, .fid = 2, .tsc = 100,
                     .has_arg = true, .arg = 42};
  xr_perfetto_add(w, 10, 11, &e);
  ev(w, XR_TEV_EXIT, 2, 110);
}

/* A logged first argument is a debug annotation "arg1" of the begin. */
static void test_arg1(void **state) {
  (void)state;
  uint8_t got[1024];
  size_t n = run(feed_arg, got, sizeof got);
  static const uint8_t tail[] = {
      /* f begins at +0: interned_data {event_names {iid 1, "f"}},
       * track_event {type 1, name_iid 1, {name "arg1", uint_value 42}} */
      0x0a, 0x1d, 0x40, 0x00, 0x50, 0x02, 0x62, 0x07, 0x12, 0x05, 0x08, 0x01,
      0x12, 0x01, 'f', 0x5a, 0x0e, 0x48, 0x01, 0x50, 0x01, 0x22, 0x08, 0x52,
      0x04, 'a', 'r', 'g', '1', 0x18, 0x2a,
      /* f ends at +10 */
      0x0a, 0x08, 0x40, 0x0a, 0x50, 0x02, 0x5a, 0x02, 0x48, 0x02};
  assert_true(n > sizeof tail);
  assert_memory_equal(got + n - sizeof tail, tail, sizeof tail);
}

static void feed_nothing(struct xr_perfetto *w) { (void)w; }

/* No event: the clock packet alone, a valid Trace. */
static void test_empty(void **state) {
  (void)state;
  uint8_t got[256];
  size_t n = run(feed_nothing, got, sizeof got);
  assert_int_equal(n, sizeof clock_packet);
  assert_memory_equal(got, clock_packet, n);
}

/* A write that fails is returned, not printed, with errno. */
static void test_failure_returned(void **state) {
  (void)state;
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  close(fds[0]); /* writes fail with EPIPE (SIGPIPE ignored below) */
  signal(SIGPIPE, SIG_IGN);
  struct xr_trace_context c = {.frequency_hz = 1000000000u, .name = name_of,
                               .quiet = true};
  struct xr_perfetto *w = xr_perfetto_open_fd(fds[1], "pipe", &c);
  assert_non_null(w);
  errno = 0;
  assert_int_equal(xr_perfetto_close(w), -1);
  assert_int_equal(errno, EPIPE);
}

/* Ticks become ns as floor(ticks * 1e9 / f), whatever f and however large
 * the count (the writer computes it without a division where it can): the
 * deltas of a thread's packets, read back, are those of that formula, over
 * frequencies with and without a fast form, at powers of two and at
 * multiples of f, where an estimate one short would show. */
static uint64_t xs = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void) {
  xs ^= xs << 13;
  xs ^= xs >> 7;
  xs ^= xs << 17;
  return xs;
}

static int by_value(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t ref_ns(uint64_t f, uint64_t t) {
  return (uint64_t)((unsigned __int128)t * 1000000000u / f);
}

/* The varint at *p (advanced past it). */
static uint64_t read_varint(const uint8_t **p) {
  uint64_t v = 0;
  for (unsigned shift = 0;; shift += 7) {
    uint8_t b = *(*p)++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (b < 0x80)
      return v;
  }
}

enum { TICK_VALUES = 3000 };
static uint8_t tick_out[TICK_VALUES * 2 * 16 + 4096];

static void check_ticks(uint64_t f) {
  /* the counts whose ns still fit in 64 bits, so the deltas are monotone */
  unsigned __int128 lim = ((unsigned __int128)f << 64) / 1000000000u;
  uint64_t limit = lim >> 64 ? UINT64_MAX : (uint64_t)lim;
  static uint64_t t[TICK_VALUES];
  size_t n = 0;
  for (unsigned k = 1; k < 64; k++)
    for (int d = -2; d <= 2; d++)
      t[n++] = ((uint64_t)1 << k) + (uint64_t)(int64_t)d;
  for (uint64_t m = 1; m < 200; m++)
    for (int d = -1; d <= 1; d++)
      t[n++] = m * f + (uint64_t)(int64_t)d;
  while (n < TICK_VALUES)
    t[n++] = next_random() >> (next_random() % 64);
  size_t kept = 0;
  for (size_t i = 0; i < n; i++)
    if (t[i] < limit)
      t[kept++] = t[i];
  qsort(t, kept, sizeof *t, by_value);
  kept &= ~(size_t)1; /* whole calls: no end written at the close */

  int fd = memfd_create("ticks", 0);
  assert_true(fd >= 0);
  struct xr_trace_context c = {.frequency_hz = f, .name = name_of,
                               .quiet = true};
  struct xr_perfetto *w = xr_perfetto_open_fd(fd, "mem", &c);
  assert_non_null(w);
  int dup_fd = dup(fd);
  for (size_t i = 0; i < kept; i++) {
    struct xr_tev e = {.kind = i % 2 ? XR_TEV_EXIT : XR_TEV_ENTER, .fid = 1,
                       .tsc = t[i]};
    xr_perfetto_add(w, 10, 11, &e);
  }
  assert_int_equal(xr_perfetto_close(w), 0);
  ssize_t len = pread(dup_fd, tick_out, sizeof tick_out, 0);
  assert_true(len > 0 && (size_t)len < sizeof tick_out);
  close(dup_fd);

  /* the thread's track events, in order: timestamp (8), sequence (10) */
  size_t seen = 0;
  const uint8_t *p = tick_out, *end = tick_out + len;
  while (p < end) {
    assert_int_equal(*p++, 0x0a);
    uint64_t size = read_varint(&p);
    const uint8_t *q = p, *packet_end = p + size;
    uint64_t ts = 0, seq = 0;
    bool event = false;
    while (q < packet_end) {
      uint64_t key = read_varint(&q);
      if ((key & 7) == 0) {
        uint64_t v = read_varint(&q);
        if (key >> 3 == 8)
          ts = v;
        else if (key >> 3 == 10)
          seq = v;
      } else {
        assert_int_equal(key & 7, 2);
        q += read_varint(&q);
        event |= key >> 3 == 11;
      }
    }
    p = packet_end;
    if (!event || seq != 2)
      continue;
    assert_true(seen < kept);
    uint64_t want = seen == 0 ? 0 : ref_ns(f, t[seen]) - ref_ns(f, t[seen - 1]);
    if (ts != want)
      fail_msg("f %llu, ticks %llu: delta %llu, want %llu",
               (unsigned long long)f, (unsigned long long)t[seen],
               (unsigned long long)ts, (unsigned long long)want);
    seen++;
  }
  assert_int_equal(seen, kept);
}

static void test_ticks_to_ns_exact(void **state) {
  (void)state;
  static const uint64_t freqs[] = {
      1, 3, 32768, 19200000, 24000000, 999999999, 1000000000, 1000000001,
      2899999999ull, 3000000000ull, 4294967297ull, (uint64_t)1 << 40,
      (uint64_t)1 << 63, ((uint64_t)1 << 63) + 1, UINT64_MAX};
  for (size_t i = 0; i < sizeof freqs / sizeof *freqs; i++)
    check_ticks(freqs[i]);
  for (int i = 0; i < 20; i++)
    check_ticks((next_random() >> (next_random() % 40)) | 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tiny_stream_bytes),
      cmocka_unit_test(test_payload_cut),
      cmocka_unit_test(test_arg1),
      cmocka_unit_test(test_empty),
      cmocka_unit_test(test_failure_returned),
      cmocka_unit_test(test_ticks_to_ns_exact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
