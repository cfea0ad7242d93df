/* Basic mode's argument sink: an entry or exit of a function whose values
 * argument capture took (lib/args, through core/modes/args_sink.h) is
 * written as the lean handlers write any event (the same guard, clock,
 * shadow stack, filter and buffer: basic_guard.h, basic_stack.h), with the
 * values' payloads right after its record (basic_values.h). It runs as a
 * full handler (its caller saved every register), so it is an ordinary
 * translation unit; the lean object does not change for it.
 *
 * Cost per event with values: the lean handler's, plus one 32-byte
 * payload per value and per 16 bytes of a string's text. */
#include "basic/basic_args.h"
#include "basic/basic_guard.h"
#include "basic/basic_log_lean.h"
#include "basic/basic_stack.h"
#include "basic/basic_thread.h"
#include "core/clock/clock_lean.h"
#include "core/modes/args_sink.h"
#include "xray/xray_interface.h"

/* Sets the thread up for recording generation `epoch` (the lean
 * handlers' prepare_slow, without the vector save: the caller saved
 * everything). */
static XR_NOINLINE bool prepare(struct xr_basic_thread *t, uint32_t epoch) {
  if ((epoch & 1) || t->exited)
    return false; /* stopped, or this thread already said goodbye */
  struct xr_basic_prepare p = {t, epoch, false};
  xr_basic_prepare_slow(&p);
  return p.ok;
}

/* An entry or an exit (`exit`) with its values, as the lean handlers take
 * an event: the guard, the generation, the clock, the stack's rules. */
static void on_event(int32_t fid, const struct xr_arg_call *c, uintptr_t sp, bool exit) {
  struct xr_basic_thread *t = &xr_basic_tls;
  if (!xr_basic_event_begin(t))
    return;
  uint32_t epoch = xr_basic_epoch_now();
  if (XR_LIKELY(epoch == t->epoch) || prepare(t, epoch)) {
    uint64_t tsc = xr_now();
    uint8_t cpu = (uint8_t)xr_cpu_id();
    if (sp == 0) /* a caller without it: what the rules assume */
      sp = xr_basic_implied_sp(t, fid, exit);
    if (exit)
      xr_basic_on_exit_values(t, fid, XR_BASIC_EXIT, tsc, cpu, sp, c);
    else
      xr_basic_on_entry_values(t, fid, tsc, cpu, sp, c);
  }
  xr_basic_event_end(t);
}

static void on_entry(int32_t fid, const struct xr_arg_call *c, uintptr_t sp) {
  on_event(fid, c, sp, false);
}

static void on_exit(int32_t fid, const struct xr_arg_call *c, uintptr_t sp) {
  on_event(fid, c, sp, true);
}

static const struct xr_args_sink sink = {on_entry, on_exit};

void xr_basic_args_start(void) { xr_args_sink_set(&sink); }

void xr_basic_args_stop(void) {
  if (xr_args_sink_get() == &sink)
    xr_args_sink_set(NULL);
}
