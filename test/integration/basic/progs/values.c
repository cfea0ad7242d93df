/* Argument values in basic mode: real instrumented calls, and inside them
 * the calls the mode's argument sink is handed (xr_args_sink_get(), what
 * argument capture does for a function with a SPEC), with values of every
 * format and string status, nested, on two threads at once. lookup,
 * parse and compute are never called: their ids stand for the captured
 * calls, at stack pointers inside the real caller's frame (between its
 * own sled's and those of the calls it makes), as a sled's would be.
 * Prints each value handed over, one line each, for values_check.py:
 *   value TID FUNCTION entry|exit NAME FORMAT STATUS BITS TEXT
 * (BITS and TEXT in hex, TEXT "-" when empty). */
#define _GNU_SOURCE
#include "core/modes/arg_values.h"
#include "core/modes/args_sink.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <xray/xray_interface.h>

#define XRAY __attribute__((xray_always_instrument, noinline))
#define NOXRAY __attribute__((xray_never_instrument, noinline))

XRAY void lookup(void) { __asm__ volatile(""); }
XRAY void parse(void) { __asm__ volatile(""); }
XRAY void compute(void) { __asm__ volatile(""); }
/* Erased by a duration threshold: nothing follows its entry. */
XRAY void tiny(void) { __asm__ volatile(""); }

NOXRAY static int32_t id_of(void (*fn)(void)) {
  for (size_t id = 1; id <= __xray_max_function_id(); id++)
    if (__xray_function_address((int32_t)id) == (uintptr_t)fn)
      return (int32_t)id;
  fprintf(stderr, "values: no id for a function\n");
  _exit(2);
}

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

struct call {
  struct xr_arg_call c;
  uint16_t text_end;
};

NOXRAY static void add(struct call *k, uint8_t what, uint8_t format, uint64_t bits, uint8_t status,
                const char *text, size_t len) {
  struct xr_arg_value *v = &k->c.v[k->c.count++];
  *v = (struct xr_arg_value){bits, what, format, status, (uint8_t)len, k->text_end};
  memcpy(k->c.text + k->text_end, text, len);
  k->text_end = (uint16_t)(k->text_end + len);
  k->c.strings += format == XR_ARGF_S;
}

NOXRAY static void print_call(const char *fn, const char *event, const struct xr_arg_call *c) {
  pthread_mutex_lock(&print_lock);
  for (unsigned i = 0; i < c->count; i++) {
    const struct xr_arg_value *v = &c->v[i];
    char name[8];
    printf("value %ld %s %s %s %u %u %016llx ", (long)syscall(SYS_gettid), fn, event,
           xr_arg_name(v->what, name), v->format, v->status, (unsigned long long)v->bits);
    if (v->len == 0)
      printf("-");
    for (unsigned b = 0; b < v->len; b++)
      printf("%02x", (unsigned char)c->text[v->text + b]);
    printf("\n");
  }
  pthread_mutex_unlock(&print_lock);
}

/* Hands a captured entry or exit of fn to the running mode's sink. */
NOXRAY static void hand(void (*fn)(void), const char *name, bool entry,
                        const struct xr_arg_call *c, uintptr_t sp) {
  const struct xr_args_sink *sink = xr_args_sink_get();
  if (sink == NULL) {
    fprintf(stderr, "values: basic mode installed no argument sink\n");
    _exit(3);
  }
  print_call(name, entry ? "entry" : "exit", c);
  (entry ? sink->entry : sink->exit)(id_of(fn), c, sp);
}

static const char cut64[] = "0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789ABCDEF";

NOXRAY static uint64_t f32_bits(uint32_t f, uint32_t garbage) { return (uint64_t)garbage << 32 | f; }

/* The calls of thread k (0 or 1): different values each. */
static struct call entry_lookup[2], exit_lookup[2], entry_parse[2], exit_parse[2],
    entry_compute[2], exit_compute[2];

NOXRAY static void make_calls(void) {
  for (int k = 0; k < 2; k++) {
    struct call *a = &entry_lookup[k];
    add(a, XR_ARG_WHAT(XR_ARG_KIND_INT, 1), XR_ARGF_D, k ? (uint64_t)-5 : 0x8000000000000000ull,
        0, "", 0);
    add(a, XR_ARG_WHAT(XR_ARG_KIND_INT, 2), XR_ARGF_U, k ? 7 : UINT64_MAX, 0, "", 0);
    add(a, XR_ARG_WHAT(XR_ARG_KIND_INT, 3), XR_ARGF_X, k ? 0 : 0x1f, 0, "", 0);
    add(a, XR_ARG_WHAT(XR_ARG_KIND_INT, 4), XR_ARGF_P, 0x7ffd12345678ull + k, 0, "", 0);
    const char *hello = k ? "tab\there" : "say \"hi\"\\ \n\xc3\xa9!";
    add(a, XR_ARG_WHAT(XR_ARG_KIND_INT, 5), XR_ARGF_S, 0x5000 + k, XR_ARGS_OK, hello,
        strlen(hello));
    add(a, XR_ARG_WHAT(XR_ARG_KIND_INT, 6), XR_ARGF_S, 0, XR_ARGS_NULL, "", 0);
    add(a, XR_ARG_WHAT(XR_ARG_KIND_FP, 1), XR_ARGF_F, 0x7ff8dead0000beefull, 0, "", 0);
    add(a, XR_ARG_WHAT(XR_ARG_KIND_FP, 2), XR_ARGF_F, 0x8000000000000000ull, 0, "", 0);
    add(a, XR_ARG_WHAT(XR_ARG_KIND_FP, 3), XR_ARGF_F, k ? 0x4004000000000000ull /* 2.5 */
                                                        : 0x3ff199999999999aull /* 1.1 */,
        0, "", 0);
    add(a, XR_ARG_WHAT(XR_ARG_KIND_FP, 4), XR_ARGF_F32, f32_bits(0x7fa00123u, 0xdeadbeef), 0,
        "", 0); /* a signalling NaN with a payload, the register's high half not zero */
    add(a, XR_ARG_WHAT(XR_ARG_KIND_FP, 5), XR_ARGF_F32, f32_bits(0x3fc00000u /* 1.5 */, 0), 0,
        "", 0);
    add(a, XR_ARG_WHAT(XR_ARG_KIND_FP, 6), XR_ARGF_F32, f32_bits(0x3dcccccdu /* 0.1f */, 1), 0,
        "", 0);
    add(&exit_lookup[k], XR_ARG_WHAT(XR_ARG_KIND_RET, 0), XR_ARGF_X, 0xabc0 + k, 0, "", 0);

    struct call *b = &entry_parse[k];
    add(b, XR_ARG_WHAT(XR_ARG_KIND_INT, 1), XR_ARGF_S, 0x6000, XR_ARGS_CUT, cut64, 64);
    add(b, XR_ARG_WHAT(XR_ARG_KIND_INT, 2), XR_ARGF_S, 0x7000, XR_ARGS_PARTIAL,
        "partial read of 20b!", 20);
    add(b, XR_ARG_WHAT(XR_ARG_KIND_INT, 3), XR_ARGF_S, 0x10, XR_ARGS_UNREADABLE, "", 0);
    add(b, XR_ARG_WHAT(XR_ARG_KIND_INT, 4), XR_ARGF_S, 0x8000, XR_ARGS_OK, "", 0);
    add(b, XR_ARG_WHAT(XR_ARG_KIND_INT, 8), 0, (uint64_t)-1 - k, 0, "", 0);
    add(b, XR_ARG_WHAT(XR_ARG_KIND_FP, 1), XR_ARGF_F, 0x7ff0000000000000ull, 0, "", 0);
    add(b, XR_ARG_WHAT(XR_ARG_KIND_FP, 2), XR_ARGF_F, 0xfff0000000000000ull, 0, "", 0);
    add(b, XR_ARG_WHAT(XR_ARG_KIND_FP, 3), XR_ARGF_F, 1 /* 5e-324 */, 0, "", 0);
    add(b, XR_ARG_WHAT(XR_ARG_KIND_FP, 8), XR_ARGF_F, 0x7e37e43c8800759cull /* 1e300 */, 0,
        "", 0);
    add(&exit_parse[k], XR_ARG_WHAT(XR_ARG_KIND_RET, 0), XR_ARGF_S, 0x9000, XR_ARGS_OK,
        k ? "done, thread 2" : "done", k ? 14 : 4);

    /* compute: no argument, a return value only (the entry has none) */
    add(&exit_compute[k], XR_ARG_WHAT(XR_ARG_KIND_RET, 0), XR_ARGF_F, 0xbff0000000000000ull - k,
        0, "", 0);
  }
}

NOXRAY static int which(void) { return syscall(SYS_gettid) == getpid() ? 0 : 1; }

/* A stack pointer inside the caller's frame: above every sled of the
 * calls it makes, below its own. */
#define HERE(mark) ((uintptr_t)&(mark)[8])

XRAY void middle(void) {
  volatile char mark[16];
  int k = which();
  hand(parse, "parse", true, &entry_parse[k].c, HERE(mark));
  tiny();
  hand(parse, "parse", false, &exit_parse[k].c, HERE(mark));
}

XRAY void outer(void) {
  volatile char mark[16];
  int k = which();
  tiny();
  hand(lookup, "lookup", true, &entry_lookup[k].c, HERE(mark));
  middle();
  tiny();
  hand(lookup, "lookup", false, &exit_lookup[k].c, HERE(mark));
  static const struct xr_arg_call none;
  hand(compute, "compute", true, &none, HERE(mark));
  tiny();
  hand(compute, "compute", false, &exit_compute[k].c, HERE(mark));
}

NOXRAY static void *second(void *arg) {
  (void)arg;
  outer();
  return NULL;
}

NOXRAY int main(void) {
  make_calls();
  pthread_t t;
  if (pthread_create(&t, NULL, second, NULL) != 0)
    return 1;
  outer();
  pthread_join(t, NULL);
  return 0;
}
