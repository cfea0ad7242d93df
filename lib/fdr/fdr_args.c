/* FDR's argument sink (core/modes/args_sink.h): an entry or exit of a
 * function with a SPEC, with its values, from lib/args's hook. Runs as a
 * full handler (vectors saved), so it prepares here what is plain C: the
 * dense id, the custom event's bytes; the records themselves are written
 * by the lean controller's own steps (xr_fdr_handle_values, or the plain
 * handler when there is no value), under its guard and quiesce protocol. */
#include "fdr/fdr_args.h"
#include "core/dispatch/function_ids.h"
#include "core/dispatch/hot_tables.h"
#include "core/modes/arg_values.h"
#include "fdr/fdr_controller_lean.h"
#include "fdr/fdr_slow_call.h"
#include "fdr/fdr_state.h"

/* Room for any event (xr_args_event_encode asks for the most a value may
 * take, whatever it takes). */
enum { EVENT_MAX = XR_ARGS_EVENT_MAX };

/* The slow-call trigger, as the watch handlers do after their record: the
 * argument trampolines bypass those handlers. */
static void watch(int32_t id, unsigned type) {
  uint32_t i = (uint32_t)id - 1u;
  if (i < xr_fdr_hot.watch_count && xr_fdr_hot.watch_set[i]) {
    struct xr_fdr_watch_event e = {id, type};
    xr_fdr_watch_slow(&e);
  }
}

/* The event of values v[0..n) of c into out; its size, 0 when there is
 * none to write (no value, or values no event can hold). */
static size_t event_of(const struct xr_arg_call *c, const struct xr_arg_value *v, size_t n,
                       unsigned char out[EVENT_MAX]) {
  return n == 0 ? 0 : xr_args_event_encode(c, v, n, out, EVENT_MAX);
}

/* Entry: kind 3, a CallArgument per value, and when some are strings, an
 * event with those (their status and text). Without values: the plain
 * entry, which the threshold may erase as any other. */
static void sink_entry(int32_t packed_id, const struct xr_arg_call *c, uintptr_t sp) {
  int32_t id = xr_dense_id(packed_id);
  if (id < 0)
    return;
  size_t n = c->count < XR_ARGS_MAX ? c->count : XR_ARGS_MAX;
  if (n == 0) {
    xr_fdr_handle_arg0(id, ENTRY, sp);
  } else {
    struct xr_arg_value strings[XR_ARG_STRINGS_MAX];
    size_t k = 0;
    for (size_t i = 0; i < n && k < XR_ARG_STRINGS_MAX; i++)
      if (c->v[i].format == XR_ARGF_S)
        strings[k++] = c->v[i];
    unsigned char event[EVENT_MAX];
    xr_fdr_handle_values(id, false, c->v, n, event, event_of(c, strings, k, event), sp);
  }
  watch(id, ENTRY);
}

/* Exit: the exit record, then an event with the return value. Not a
 * CallArgument: llvm-xray would take the exit before it for an entry
 * (its trace expander makes the record a CallArgument follows one of
 * kind "enter with arguments"). Without a value: the plain exit. */
static void sink_exit(int32_t packed_id, const struct xr_arg_call *c, uintptr_t sp) {
  int32_t id = xr_dense_id(packed_id);
  if (id < 0)
    return;
  size_t n = c->count < XR_ARGS_MAX ? c->count : XR_ARGS_MAX;
  unsigned char event[EVENT_MAX];
  size_t size = event_of(c, c->v, n, event);
  if (size == 0)
    xr_fdr_handle_arg0(id, EXIT, sp);
  else
    xr_fdr_handle_values(id, true, NULL, 0, event, size, sp);
  watch(id, EXIT);
}

const struct xr_args_sink xr_fdr_args_sink = {sink_entry, sink_exit};
