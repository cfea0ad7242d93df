/* Custom and typed events: payloads, removal, event-type ids, and the stack
 * alignment the handler sees when the event comes from a frameless leaf or
 * a framed function (-O2), through the full (user) and lean paths. */
#include "recorder.h"

#include <pthread.h>

/* The internal installer (hidden in the archive, reachable in a static
 * link) and its slot numbers. */
#include "core/dispatch/handlers.h"

static char log_buf[4096];
static int log_len;
static int misaligned;

/* The handler's frame address is rsp at its entry minus 8: 16-aligned iff
 * the trampoline called it with an aligned stack. */
NOXRAY static void check_alignment(void *frame) {
  if ((uintptr_t)frame % 16 != 0)
    misaligned++;
}

NOXRAY static void on_custom(void *p, size_t n) {
  check_alignment(__builtin_frame_address(0));
  log_len += snprintf(log_buf + log_len, sizeof log_buf - log_len, "custom %zu %.*s\n", n,
                      (int)n, (const char *)p);
}
NOXRAY static void on_typed(uint16_t type, const void *p, size_t n) {
  check_alignment(__builtin_frame_address(0));
  log_len += snprintf(log_buf + log_len, sizeof log_buf - log_len, "typed %u %zu %.*s\n",
                      (unsigned)type, n, (int)n, (const char *)p);
}
/* Lean-style handlers touch no vector register and call nothing. */
static int lean_custom_calls, lean_typed_calls;
NOXRAY static void lean_custom(void *p, size_t n) {
  check_alignment(__builtin_frame_address(0));
  lean_custom_calls += (n == 4 && ((char *)p)[0] == 'l');
}
NOXRAY static void lean_typed(uint16_t type, const void *p, size_t n) {
  check_alignment(__builtin_frame_address(0));
  lean_typed_calls += (type == 9 && n == 5 && ((const char *)p)[0] == 't');
}

volatile int sink;
/* Frameless leaves at -O2: the sled sees rsp = 8 mod 16 from the caller.
 * Literal operands only: clang 13-16 crash (X86 asm printer) on some event
 * sleds whose operands are already in the argument registers. */
#define LEAF_CUSTOM(name, text) \
  TRACED void name(void) { __xray_customevent(text, sizeof text - 1); }
#define LEAF_TYPED(name, type, text) \
  TRACED void name(void) { __xray_typedevent(type, text, sizeof text - 1); }
LEAF_CUSTOM(custom_before_patch, "before-patch")
LEAF_CUSTOM(custom_hello, "hello")
LEAF_CUSTOM(custom_removed, "removed")
LEAF_CUSTOM(custom_unpatched, "unpatched")
LEAF_CUSTOM(custom_lean, "lean")
LEAF_TYPED(typed_payload, 7, "payload")
LEAF_TYPED(typed_max, 0xFFFF, "max-type")
LEAF_TYPED(typed_still, 8, "still")
LEAF_TYPED(typed_removed, 8, "removed")
LEAF_TYPED(typed_lean, 9, "typed")
/* With a frame (a call and a local that lives across it). */
NOXRAY void opaque(volatile char *p) { sink = p[0]; }
TRACED int framed_custom(int x) {
  volatile char local[24];
  local[0] = (char)x;
  opaque(local);
  __xray_customevent("framed", 6);
  sink = local[0];
  return x + 1;
}
TRACED int framed_typed(int x) {
  volatile char local[40];
  local[0] = (char)x;
  opaque(local);
  __xray_typedevent(300, "typed-framed", 12);
  sink = local[0];
  return x + 2;
}

static const char type_a[] = "same text", type_b[] = "same text";
static char many[4000];
static uint16_t ids[4][1000];
static void *register_many(void *arg) {
  int t = (int)(intptr_t)arg;
  for (int i = 0; i < 1000; i++)
    ids[t][i] = __xray_register_event_type(&many[(i * 4 + t)]);
  return NULL;
}

NOXRAY int main(void) {
  /* Event types: keyed by pointer, in order of first registration. */
  CHECK(__xray_register_event_type(type_a) == 0);
  CHECK(__xray_register_event_type(type_b) == 1);
  CHECK(__xray_register_event_type(type_a) == 0);
  CHECK(__xray_register_event_type(NULL) == 2);
  CHECK(__xray_register_event_type(NULL) == 2);
  pthread_t th[4];
  for (int t = 0; t < 4; t++)
    CHECK(pthread_create(&th[t], NULL, register_many, (void *)(intptr_t)t) == 0);
  for (int t = 0; t < 4; t++)
    pthread_join(th[t], NULL);
  static unsigned char seen[4003];
  for (int t = 0; t < 4; t++)
    for (int i = 0; i < 1000; i++) {
      CHECK(ids[t][i] >= 3 && ids[t][i] < 4003);
      CHECK(!seen[ids[t][i]]);
      seen[ids[t][i]] = 1;
      CHECK(__xray_register_event_type(&many[i * 4 + t]) == ids[t][i]);
    }
  CHECK(__xray_register_event_type(type_b) == 1);

  CHECK(__xray_set_customevent_handler(on_custom) == 1);
  CHECK(__xray_set_typedevent_handler(on_typed) == 1);
  custom_before_patch(); /* sleds off: nothing */
  CHECK(__xray_patch() == SUCCESS);
  custom_hello();
  typed_payload();
  CHECK(framed_custom(1) == 2);
  CHECK(framed_typed(1) == 3);
  typed_max();
  CHECK(__xray_remove_customevent_handler() == 1);
  custom_removed();
  typed_still();
  CHECK(__xray_remove_typedevent_handler() == 1);
  typed_removed();
  CHECK(__xray_set_customevent_handler(on_custom) == 1);
  CHECK(__xray_unpatch() == SUCCESS);
  custom_unpatched();
  fputs(log_buf, stdout);

  /* Lean path (the built-in modes' kind of handler), same alignment rule. */
  CHECK(__xray_patch() == SUCCESS);
  xr_handler_install(XR_SLOT_CUSTOM, (void *)lean_custom, XR_HANDLER_LEAN);
  xr_handler_install(XR_SLOT_TYPED, (void *)lean_typed, XR_HANDLER_LEAN);
  custom_lean();
  typed_lean();
  framed_custom(3);
  framed_typed(3);
  CHECK(lean_custom_calls == 1 && lean_typed_calls == 1);
  printf("misaligned %d\n", misaligned);
  return 0;
}
