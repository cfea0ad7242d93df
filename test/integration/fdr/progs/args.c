/* Captured argument values through FDR's argument sink, handed over as
 * lib/args's hook does (core/modes/args_sink.h): the program calls the
 * sink itself, inside real instrumented calls, with the ids of functions
 * it has but never calls (target_*) and stack pointers inside the calling
 * frame, so that the shadow stack nests them in the real calls. Started
 * by XRAY_OPTIONS (patch_premain) and XRAY_FDR_OPTIONS; finalizes and
 * flushes at its end. Prints what it handed over, as fdr_values.py prints
 * it from the file ("T<tid> F<id> enter|exit <values>"), after
 * "expect", each thread's lines together.
 *
 * Usage: args values N   two threads, N calls of outer() each: every
 *                        format, string statuses, nested calls, a return
 *                        value of each kind, calls without values, one
 *                        with a value at its entry only; then a snapshot
 *                        (its name printed after "snapshot")
 *        args big N      N calls of big(), each with two nested calls
 *                        of target_big: 16 values, 8 of them strings of
 *                        64 bytes (cut), and a return value
 *        args slow       one call of target_slow whose exit comes 20 ms
 *                        after its entry */
#define _GNU_SOURCE
#include "fdr_test.h"
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <xray/xray_fdr.h>

#include "core/modes/args_sink.h"

NOINLINE int target_ints(int x) { return x; }
NOINLINE int target_strings(int x) { return x; }
NOINLINE int target_plain(int x) { return x; }
NOINLINE int target_one(int x) { return x; }
NOINLINE int target_big(int x) { return x; }
NOINLINE int target_slow(int x) { return x; }

/* The id of an instrumented function of the program. */
NEVER static int32_t id_of(int (*fn)(int)) {
  for (size_t id = 1; id <= __xray_max_function_id(); id++)
    if (__xray_function_address((int32_t)id) == (uintptr_t)fn)
      return (int32_t)id;
  fprintf(stderr, "no id for a target function\n");
  exit(2);
}

static int32_t ints_id, strings_id, plain_id, one_id, big_id, slow_id;

/* What each thread handed over, printed by main. */
struct said {
  char *text;
  size_t len, cap;
};
static struct said said[2];

NEVER static void say(struct said *s, const char *fmt, ...) {
  va_list ap;
  if (s->cap - s->len < 4096) {
    s->cap = s->cap ? 2 * s->cap : 1 << 16;
    s->text = realloc(s->text, s->cap);
  }
  va_start(ap, fmt);
  s->len += (size_t)vsnprintf(s->text + s->len, s->cap - s->len, fmt, ap);
  va_end(ap);
}

NEVER static void add(struct xr_arg_call *c, uint8_t what, uint8_t format, uint64_t bits,
                      uint8_t status, const char *text, size_t len) {
  size_t used = 0;
  for (size_t i = 0; i < c->count; i++)
    used += c->v[i].len;
  c->v[c->count++] = (struct xr_arg_value){bits, what, format, status, (uint8_t)len,
                                           (uint16_t)used};
  memcpy(c->text + used, text, len);
  c->strings += format == XR_ARGF_S;
}

/* The sink's call, and the line fdr_values.py prints for it. */
NEVER static void hand(struct said *s, int at_exit, int32_t id, const struct xr_arg_call *c,
                       uintptr_t sp) {
  const struct xr_args_sink *sink = xr_args_sink_get();
  if (sink == NULL) {
    fprintf(stderr, "no argument sink while FDR records\n");
    exit(2);
  }
  (at_exit ? sink->exit : sink->entry)(id, c, sp);
  if (c->count == 0)
    return;
  say(s, "T%d F%d %s", (int)gettid(), (int)id, at_exit ? "exit" : "enter");
  for (size_t i = 0; i < c->count; i++) {
    const struct xr_arg_value *v = &c->v[i];
    say(s, " %02x.%u.%u=%llx", v->what, v->format, v->status, (unsigned long long)v->bits);
    if (v->format == XR_ARGF_S) {
      say(s, ":");
      for (size_t k = 0; k < v->len; k++)
        say(s, "%02x", (unsigned char)c->text[v->text + k]);
    }
  }
  say(s, "\n");
}

#define INT(n) XR_ARG_WHAT(XR_ARG_KIND_INT, n)
#define FP(n) XR_ARG_WHAT(XR_ARG_KIND_FP, n)
#define RET XR_ARG_WHAT(XR_ARG_KIND_RET, 0)

static const char sixty_four[] =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
static const struct xr_arg_call no_values;

NOINLINE int leaf(int x) { fdr_sink = x; return x + 1; }

NOINLINE int inner(struct said *s, int t, int i) {
  volatile char frame[64];
  uintptr_t sp = (uintptr_t)&frame[32];
  struct xr_arg_call c = {0}, r = {0};
  char text[32];
  int n = snprintf(text, sizeof text, "t%d i%d", t, i);
  add(&c, INT(1), XR_ARGF_S, 0x5000 + (uint64_t)i, XR_ARGS_OK, text, (size_t)n);
  add(&c, INT(2), XR_ARGF_S, 0, XR_ARGS_NULL, "", 0);
  add(&c, INT(3), XR_ARGF_S, 0xdead000, XR_ARGS_UNREADABLE, "", 0);
  add(&c, INT(4), XR_ARGF_D, (uint64_t)(int64_t)-i, 0, "", 0);
  add(&c, INT(5), XR_ARGF_S, 0x6000, XR_ARGS_CUT, sixty_four, 64);
  add(&c, INT(6), XR_ARGF_S, 0x7000, XR_ARGS_PARTIAL, "par", 3);
  hand(s, 0, strings_id, &c, sp);
  int x = leaf(i);
  hand(s, 0, plain_id, &no_values, sp - 16); /* no values: a plain call */
  hand(s, 1, plain_id, &no_values, sp - 16);
  struct xr_arg_call one = {0}; /* a value at the entry only */
  add(&one, INT(1), XR_ARGF_D, (uint64_t)i, 0, "", 0);
  hand(s, 0, one_id, &one, sp - 16);
  hand(s, 1, one_id, &no_values, sp - 16);
  add(&r, RET, XR_ARGF_S, 0x8000, XR_ARGS_OK, "ret", 3);
  hand(s, 1, strings_id, &r, sp);
  return x;
}

NOINLINE int outer(struct said *s, int t, int i) {
  volatile char frame[64];
  uintptr_t sp = (uintptr_t)&frame[32];
  struct xr_arg_call c = {0}, r = {0};
  add(&c, INT(1), XR_ARGF_D, (uint64_t)(t * 1000000 + i), 0, "", 0);
  add(&c, INT(2), XR_ARGF_D, (uint64_t)INT64_MIN, 0, "", 0);
  add(&c, INT(3), XR_ARGF_U, UINT64_MAX, 0, "", 0);
  add(&c, INT(4), XR_ARGF_X, 0x1000 + (uint64_t)i, 0, "", 0);
  add(&c, INT(5), XR_ARGF_P, 0x7fff00000000 + 8 * (uint64_t)i, 0, "", 0);
  add(&c, FP(1), XR_ARGF_F, 0x7ff8dead0000beefull, 0, "", 0);
  add(&c, FP(2), XR_ARGF_F, 0x8000000000000000ull, 0, "", 0);
  add(&c, FP(3), XR_ARGF_F32, 0x7fc00001, 0, "", 0);
  hand(s, 0, ints_id, &c, sp);
  int x = inner(s, t, i);
  add(&r, RET, i % 2 ? XR_ARGF_X : XR_ARGF_F, 0xfeedface00000000ull + (uint64_t)i, 0, "", 0);
  hand(s, 1, ints_id, &r, sp);
  return x;
}

static int calls;

NEVER static void *worker(void *arg) {
  int t = (int)(intptr_t)arg;
  for (int i = 0; i < calls; i++)
    fdr_sink = outer(&said[t], t, i);
  return NULL;
}

/* A call of target_big numbered n: 16 values, 8 strings of `len` bytes
 * (64: cut); in between, what `within` does; then its return value. */
NEVER static void big_call(struct said *s, int n, size_t len, uintptr_t sp,
                           int (*within)(struct said *, int)) {
  struct xr_arg_call c = {0}, r = {0};
  for (int k = 0; k < 16; k++) {
    if (k % 2 == 0)
      add(&c, INT(k / 2 + 1), XR_ARGF_S, 0x10000 * (uint64_t)n + (uint64_t)k,
          len == 64 ? XR_ARGS_CUT : XR_ARGS_OK, sixty_four, len);
    else
      add(&c, FP(k / 2 + 1), XR_ARGF_F, (uint64_t)n << 32 | (uint64_t)k, 0, "", 0);
  }
  hand(s, 0, big_id, &c, sp);
  if (within)
    within(s, n);
  add(&r, RET, XR_ARGF_U, (uint64_t)n, 0, "", 0);
  hand(s, 1, big_id, &r, sp);
}

NOINLINE int big_inner(struct said *s, int i) {
  volatile char frame[64];
  big_call(s, 2 * i + 1, (size_t)(i * 7 % 64), (uintptr_t)&frame[32], NULL);
  return i;
}

/* Two nested calls of target_big, the inner one's strings of changing
 * lengths: 1.4 to 1.9 KB of records, so that buffers begin at different
 * places in a call (between an entry and its exit, too). */
NOINLINE int big(struct said *s, int i) {
  volatile char frame[64];
  big_call(s, 2 * i, 64, (uintptr_t)&frame[32], big_inner);
  return i;
}

NOINLINE int slow(struct said *s) {
  volatile char frame[64];
  uintptr_t sp = (uintptr_t)&frame[32];
  struct xr_arg_call c = {0};
  add(&c, INT(1), XR_ARGF_D, 7, 0, "", 0);
  hand(s, 0, slow_id, &c, sp);
  usleep(20000);
  hand(s, 1, slow_id, &c, sp);
  return 0;
}

int main(int argc, char **argv) {
  ints_id = id_of(target_ints);
  strings_id = id_of(target_strings);
  plain_id = id_of(target_plain);
  one_id = id_of(target_one);
  big_id = id_of(target_big);
  slow_id = id_of(target_slow);
  const char *mode = argc > 1 ? argv[1] : "values";
  calls = argc > 2 ? atoi(argv[2]) : 1;
  if (strcmp(mode, "values") == 0) {
    pthread_t th[2];
    for (int t = 0; t < 2; t++)
      pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < 2; t++)
      pthread_join(th[t], NULL);
    char snap[512];
    fdr_expect("snapshot", __xray_fdr_snapshot(snap, sizeof snap), XRAY_SNAPSHOT_OK);
    printf("snapshot %s\n", snap);
  } else if (strcmp(mode, "big") == 0) {
    for (int i = 0; i < calls; i++)
      fdr_sink = big(&said[0], i);
  } else {
    fdr_sink = slow(&said[0]);
  }
  fdr_stop();
  printf("expect\n");
  for (int t = 0; t < 2; t++)
    if (said[t].len)
      fwrite(said[t].text, 1, said[t].len, stdout);
  return 0;
}
