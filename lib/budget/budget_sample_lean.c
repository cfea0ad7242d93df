/* The sampling windows' wrapper: the only code of the overhead budget that
 * runs per event, and only while a window is open (budget_window.h). It
 * stands in the arg0 slot for the mode's lean handler, calls it, and counts
 * the event on the calling thread.
 *
 * A lean translation unit (core/base/lean.h): it runs where the mode's
 * handler would, behind a trampoline path that saved no vector register,
 * so it calls no libc but behind xr_call_preserving_vectors (a thread's
 * first window event maps its state there).
 *
 * Per event, beyond the mode's handler: two tick reads around it, one TLS
 * load, the busy byte set and cleared around a load of the open word, one
 * table probe (a multiply, a load, a compare), three adds, a frame pushed
 * or popped (xr_budget_calibrate measures it). Everything rarer (a new
 * function in the table, a call left by longjmp or an exception, a
 * thread's first event) is out of line.
 *
 * Signals: the wrapper calls the mode's handler before it touches its
 * state, and the state only with `busy` set; a signal handler's event that
 * finds `busy` set went to the mode's handler all the same and is only
 * counted as nested, so the interrupted update is never torn. Setting
 * `busy` is a load and a store: a signal between the two runs a whole
 * event of its own, which leaves `busy` clear again, before the store. */
#include "core/base/lean.h"
#include "budget/budget_sample_lean.h"

#include "core/base/call_frames.h"
#include "core/base/test_points.h"
#include "core/clock/clock_lean.h"
#include "core/thread/thread.h"

#include <sys/mman.h>

XR_TLS struct xr_budget_thread *xr_budget_tls;
struct xr_budget_thread *xr_budget_threads;
uint32_t xr_budget_open;
void *xr_budget_inner;
void *xr_budget_inner_no_sp;
uint64_t xr_budget_unmapped;
#ifdef XR_TEST_POINTS
void (*xr_budget_test_busy)(void);
#endif

typedef void (*handler_sp)(int32_t id, XRayEntryType type, uintptr_t sp);
typedef void (*handler_no_sp)(int32_t id, XRayEntryType type);

#define SLOT_BITS 12
_Static_assert(XR_BUDGET_SLOTS == 1u << SLOT_BITS, "the table's size is 2^SLOT_BITS");
_Static_assert(XR_BUDGET_SLOTS_USED < XR_BUDGET_SLOTS && XR_BUDGET_SLOTS <= 65536,
               "an empty slot always ends a probe; used_at holds 16-bit indices");

static XR_ALWAYS_INLINE uint32_t slot_of(int32_t id) {
  return ((uint32_t)id * 0x9E3779B1u) >> (32 - SLOT_BITS);
}

/* A function new to the thread's table: NULL when the table is as full as
 * it may be (the event is counted as untracked). */
static XR_NOINLINE struct xr_budget_count *insert(struct xr_budget_thread *t, uint32_t i,
                                                  int32_t id) {
  if (t->used >= XR_BUDGET_SLOTS_USED)
    return NULL;
  t->used_at[t->used++] = (uint16_t)i;
  t->table[i].id = id;
  return &t->table[i];
}

/* Function ids are positive: 0 marks an empty slot. */
static XR_ALWAYS_INLINE struct xr_budget_count *count_of(struct xr_budget_thread *t, int32_t id) {
  if (XR_UNLIKELY(id <= 0))
    return NULL;
  for (uint32_t i = slot_of(id);; i = (i + 1) & (XR_BUDGET_SLOTS - 1)) {
    struct xr_budget_count *c = &t->table[i];
    if (XR_LIKELY(c->id == id))
      return c;
    if (c->id == 0)
      return insert(t, i, id);
  }
}

/* core/base/call_frames.h's rule, for frames and events whose stack
 * pointer is known (the no-sp twin passes 0). */
static XR_ALWAYS_INLINE bool gone(uintptr_t frame_sp, uintptr_t sp, bool at_exit) {
  return frame_sp != 0 && sp != 0 && xr_frame_gone(frame_sp, sp, at_exit);
}

/* Drops the calls on top that an event at sp says were left without their
 * exit (longjmp, an exception); calls deeper than the stack holds go when
 * its deepest frame does. Returns the new depth. */
static XR_NOINLINE uint32_t drop_gone(struct xr_budget_thread *t, uintptr_t sp, bool at_exit) {
  uint32_t d = t->depth;
  if (d > XR_BUDGET_DEPTH) {
    if (!gone(t->stack[XR_BUDGET_DEPTH - 1].sp, sp, at_exit))
      return d;
    d = XR_BUDGET_DEPTH;
  }
  while (d > 0 && gone(t->stack[d - 1].sp, sp, at_exit))
    d--;
  t->depth = d;
  return d;
}

static XR_ALWAYS_INLINE void enter(struct xr_budget_thread *t, int32_t id, uintptr_t sp,
                                   uint64_t tick) {
  uint32_t d = t->depth;
  if (XR_UNLIKELY(d != 0 && (d > XR_BUDGET_DEPTH || t->stack[d - 1].sp <= sp)))
    d = drop_gone(t, sp, false);
  t->depth = d + 1;
  if (XR_LIKELY(d < XR_BUDGET_DEPTH))
    t->stack[d] = (struct xr_budget_frame){id, tick, sp};
}

/* True, with the call's ticks, when the exit ends the call on top, whose
 * entry fell in the window; false for a call entered before the window
 * (nothing on the stack is its entry) or deeper than the stack holds. */
static XR_ALWAYS_INLINE bool leave(struct xr_budget_thread *t, int32_t id, uintptr_t sp,
                                   uint64_t tick, uint64_t *ticks) {
  uint32_t d = t->depth;
  if (XR_UNLIKELY(d == 0))
    return false;
  if (XR_UNLIKELY(d > XR_BUDGET_DEPTH || t->stack[d - 1].sp < sp)) {
    d = drop_gone(t, sp, true);
    if (d == 0)
      return false;
    if (d > XR_BUDGET_DEPTH) {
      t->depth = d - 1;
      return false;
    }
  }
  const struct xr_budget_frame *f = &t->stack[d - 1];
  if (XR_UNLIKELY(f->id != id))
    return false;
  t->depth = d - 1;
  *ticks = tick > f->tick ? tick - f->tick : 0; /* clocks of two CPUs */
  return true;
}

/* Counts one event the mode's handler took from `before` to `after`. */
static XR_ALWAYS_INLINE void account(struct xr_budget_thread *t, const uint32_t *open, int32_t id,
                                     XRayEntryType type, uintptr_t sp, uint64_t before,
                                     uint64_t after) {
  if (XR_UNLIKELY(__atomic_load_n(&t->busy, __ATOMIC_RELAXED) != 0)) {
    __atomic_fetch_add(&t->nested, 1, __ATOMIC_RELAXED);
    return;
  }
  __atomic_store_n(&t->busy, 1, __ATOMIC_RELAXED);
  /* The open word is read after this store in program order; the
   * controller's membarrier orders the two when it matters (quiesce.h). */
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (XR_LIKELY(__atomic_load_n(open, __ATOMIC_RELAXED) != 0)) {
    XR_TEST_POINT(xr_budget_test_busy, ());
    t->events++;
    t->handler_ticks += after - before;
    struct xr_budget_count *c = count_of(t, id);
    if (XR_UNLIKELY(c == NULL))
      t->untracked++;
    if (type == ENTRY || type == LOG_ARGS_ENTRY) {
      if (c != NULL)
        c->entries++;
      /* From the end of the entry's handler to the start of the exit's:
       * the call as the program runs it, the tracer's own work left out. */
      enter(t, id, sp, after);
    } else if (type == EXIT || type == TAIL) {
      uint64_t ticks;
      if (leave(t, id, sp, before, &ticks) && c != NULL) {
        c->timed++;
        c->timed_ticks += ticks;
      }
      if (c != NULL)
        c->exits++;
    }
  }
  __atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
}

/* Mapped or taken over from an exited thread; libc (mmap, the exit hook's
 * pthread key) behind the vector save. */
static void claim_behind_save(void *out) {
  struct xr_budget_thread *t = __atomic_load_n(&xr_budget_threads, __ATOMIC_ACQUIRE);
  for (; t != NULL; t = t->next) {
    uint8_t free_state = 0;
    /* Acquire: the exit hook's last writes (release) come with it. */
    if (__atomic_load_n(&t->owned, __ATOMIC_RELAXED) == 0 &&
        __atomic_compare_exchange_n(&t->owned, &free_state, 1, false, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED))
      break;
  }
  if (t == NULL) {
    void *m = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
      return;
    t = m;
    t->owned = 1;
    struct xr_budget_thread *head = __atomic_load_n(&xr_budget_threads, __ATOMIC_RELAXED);
    do
      t->next = head;
    while (!__atomic_compare_exchange_n(&xr_budget_threads, &head, t, true, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED));
  }
  xr_thread_arm(); /* the exit hook gives the state back */
  *(struct xr_budget_thread **)out = t;
}

/* A thread's first event in a window (while it is open: a wrapper still
 * running after one maps nothing). */
static XR_NOINLINE struct xr_budget_thread *claim(void) {
  if (xr_budget_tls != NULL || __atomic_load_n(&xr_budget_open, __ATOMIC_RELAXED) == 0)
    return NULL;
  xr_budget_tls = XR_BUDGET_CLAIMING;
  xr_compiler_barrier();
  struct xr_budget_thread *t = NULL;
  xr_call_preserving_vectors(claim_behind_save, &t);
  if (t == NULL)
    __atomic_fetch_add(&xr_budget_unmapped, 1, __ATOMIC_RELAXED);
  xr_compiler_barrier();
  xr_budget_tls = t != NULL ? t : XR_BUDGET_GONE;
  return t;
}

/* The wrapper's body: `given` is the calibration's state, NULL for the
 * calling thread's (a constant in each caller, so no branch is left). */
static XR_ALWAYS_INLINE void wrap(handler_sp h, struct xr_budget_thread *given, const uint32_t *open,
                                  int32_t id, XRayEntryType type, uintptr_t sp) {
  uint64_t before = xr_now();
  if (XR_LIKELY(h != NULL))
    h(id, type, sp);
  uint64_t after = xr_now();
  struct xr_budget_thread *t = given != NULL ? given : xr_budget_tls;
  if (XR_UNLIKELY((uintptr_t)t <= (uintptr_t)XR_BUDGET_GONE) && (t = claim()) == NULL)
    return;
  account(t, open, id, type, sp, before, after);
}

void xr_budget_sample(int32_t id, XRayEntryType type, uintptr_t sp) {
  wrap((handler_sp)__atomic_load_n(&xr_budget_inner, __ATOMIC_ACQUIRE), NULL, &xr_budget_open,
       id, type, sp);
}

void xr_budget_sample_no_sp(int32_t id, XRayEntryType type) {
  handler_no_sp h = (handler_no_sp)__atomic_load_n(&xr_budget_inner_no_sp, __ATOMIC_ACQUIRE);
  uint64_t before = xr_now();
  if (XR_LIKELY(h != NULL))
    h(id, type);
  uint64_t after = xr_now();
  struct xr_budget_thread *t = xr_budget_tls;
  if (XR_UNLIKELY((uintptr_t)t <= (uintptr_t)XR_BUDGET_GONE) && (t = claim()) == NULL)
    return;
  account(t, &xr_budget_open, id, type, 0, before, after);
}

/* ---- calibration: the same body on a private state and open word ---- */
static uint32_t calibration_open = 1;
static struct xr_budget_thread *calibration_state;

static XR_NOINLINE void returns_at_once(int32_t id, XRayEntryType type, uintptr_t sp) {
  (void)id;
  (void)type;
  (void)sp;
  xr_compiler_barrier();
}
static handler_sp volatile calibration_inner = returns_at_once;

static XR_NOINLINE void calibration_wrapper(int32_t id, XRayEntryType type, uintptr_t sp) {
  wrap(calibration_inner, calibration_state, &calibration_open, id, type, sp);
}

uint64_t xr_budget_sample_loop(struct xr_budget_thread *t, uint64_t n, bool wrapped) {
  calibration_state = t;
  /* Loaded at every call, as a trampoline loads its slot. */
  handler_sp volatile h = wrapped ? calibration_wrapper : returns_at_once;
  uintptr_t sp = (uintptr_t)__builtin_frame_address(0) - 64;
  uint64_t start = xr_now();
  for (uint64_t i = 0; i < n; i++)
    h((int32_t)(1 + ((i >> 1) & 15)), (i & 1) ? EXIT : ENTRY, sp);
  return xr_now() - start;
}
