/* The event workload: loops calling a function whose body is one custom or
 * one typed event sled. The loop function's own entry and exit fire once
 * per call, n events inside, so per event they cost nothing; the event
 * functions have no entry or exit sled (xray_never_instrument; run.sh
 * compiles this file with -fxray-always-emit-customevents and
 * -fxray-always-emit-typedevents, which keep their event sleds). Kept apart
 * from bench_fn.c: llvm-xray reads no instrumentation map of a binary with
 * typed-event sleds, and the other scenarios' logs are checked with theirs.
 * SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <stdint.h>

#define BENCH_FN                                                               \
  __attribute__((noinline, xray_always_instrument, disable_tail_calls,         \
                 aligned(64)))

#define EVENT_FN                                                               \
  __attribute__((noinline, xray_never_instrument, aligned(64)))

/* 16 bytes: a small structured event. */
char bench_event_payload[16] = "bench-event-16b";
char *volatile bench_event_at = bench_event_payload; /* not specialised on */

/* Each event from a function of its own, its operands already where the
 * sled wants them (the arguments in order, the size a constant): with the
 * payload in rsi and the size in rdi, clang 14's custom-event sled moves
 * rsi to rdi before reading rdi, and the handler gets the address as the
 * size. */
EVENT_FN void bench_custom(char *data) { __xray_customevent(data, 16); }
EVENT_FN void bench_typed(unsigned short type, char *data) {
  __xray_typedevent(type, data, 16);
}

BENCH_FN long bench_custom_loop(long n) {
  char *data = bench_event_at;
  for (long i = 0; i < n; i++)
    bench_custom(data);
  return n;
}
BENCH_FN long bench_typed_loop(long n) {
  char *data = bench_event_at;
  for (long i = 0; i < n; i++)
    bench_typed(7, data);
  return n;
}
