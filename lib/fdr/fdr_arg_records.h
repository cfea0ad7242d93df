/* Argument values in FDR records (docs/formats.md, "Argument values in FDR
 * logs"): the CallArgument record of one value, and how the readers (the
 * in-process export, the log writer, xrayctl) take an entry's values and an
 * exit's return value back from the records. Inline and without libc: the
 * lean writer (fdr_controller_lean.c) and the async-signal-safe readers use
 * them. */
#ifndef XR_FDR_ARG_RECORDS_H
#define XR_FDR_ARG_RECORDS_H

#include "core/base/common.h"
#include "core/modes/arg_values.h"
#include "fdr/fdr_records.h"

/* One value as a CallArgument: its u64 bits at byte 1 (all llvm-xray
 * reads), `what` at byte 9, `format` at byte 10, bytes 11-15 zero.
 * compiler-rt's argument has zeros at 9 and 10, what no value of ours has
 * (`what` is never 0). */
static XR_ALWAYS_INLINE uint8_t *xr_fdr_call_value(uint8_t *p, uint64_t bits,
                                                   uint8_t what, uint8_t format) {
  return xr_fdr_meta(p, XR_FDR_CALL_ARGUMENT,
                     (unsigned __int128)bits | ((unsigned __int128)what << 64) |
                         ((unsigned __int128)format << 72));
}

/* The CallArgument at p (16 bytes) into *v; false when it is compiler-rt's
 * first argument (bytes 9 and 10 zero: *v holds its bits all the same). A
 * string's text comes later, in the entry's event: until then its status
 * says unreadable, so that an event that never came shows as null. */
static inline bool xr_fdr_call_value_read(const uint8_t *p, struct xr_arg_value *v) {
  v->bits = xr_fdr_get64(p + 1);
  v->what = p[9];
  v->format = p[10];
  v->status = p[10] == XR_ARGF_S ? XR_ARGS_UNREADABLE : XR_ARGS_OK;
  v->len = 0;
  v->text = 0;
  return p[9] != 0 || p[10] != 0;
}

/* One CallArgument (at p) of the run after an entry of kind 3; `first`
 * for the run's first, which empties c. compiler-rt's argument, when the
 * run begins with it, goes to *has_arg and *arg; otherwise the captured
 * values go into c, at most XR_ARGS_MAX. True when c took this one (the
 * reader then hands c with the entry). */
static inline bool xr_fdr_call_argument_take(const uint8_t *p, bool first, bool *has_arg,
                                             uint64_t *arg, struct xr_arg_call *c) {
  struct xr_arg_value v;
  bool ours = xr_fdr_call_value_read(p, &v);
  if (first)
    c->count = c->strings = 0;
  if (first && !ours) {
    *has_arg = true;
    *arg = v.bits;
    return false;
  }
  if (!ours || *has_arg || c->count >= XR_ARGS_MAX)
    return false;
  c->strings += v.format == XR_ARGF_S;
  c->v[c->count++] = v;
  return true;
}

/* Whether a custom event's payload is an "xray-args" event (its tag, then
 * the end or a space): the runtime's, consumed by the readers, never shown
 * as a custom event. */
static inline bool xr_fdr_is_args_event(const uint8_t *data, size_t size) {
  if (size < XR_ARGS_EVENT_TAG_LEN)
    return false;
  for (size_t i = 0; i < XR_ARGS_EVENT_TAG_LEN; i++)
    if (data[i] != (uint8_t)XR_ARGS_EVENT_TAG[i])
      return false;
  return size == XR_ARGS_EVENT_TAG_LEN || data[XR_ARGS_EVENT_TAG_LEN] == ' ';
}

/* An entry's event: its values are the entry's string values in order
 * (xr_args_event_encode of the /s values). Gives the k-th string value of
 * c (as the CallArguments left it: bits, what, format) the status and text
 * of the event's k-th value, when their `what` agree. False, c unchanged,
 * when data is not a well-formed xray-args event. About 1 KiB of stack. */
static inline bool xr_fdr_args_add_strings(struct xr_arg_call *c, const uint8_t *data,
                                           size_t size) {
  struct xr_arg_call e;
  e.count = e.strings = 0;
  if (!xr_args_event_decode(data, size, &e))
    return false;
  size_t used = 0, j = 0;
  for (size_t i = 0; i < e.count; i++) {
    const struct xr_arg_value *ev = &e.v[i];
    while (j < c->count && c->v[j].format != XR_ARGF_S)
      j++;
    if (j == c->count)
      break;
    struct xr_arg_value *v = &c->v[j++];
    if (ev->what != v->what || ev->format != XR_ARGF_S || used + ev->len > sizeof c->text)
      continue;
    v->status = ev->status;
    v->len = ev->len;
    v->text = (uint16_t)used;
    for (size_t k = 0; k < ev->len; k++)
      c->text[used + k] = e.text[ev->text + k];
    used += ev->len;
  }
  return true;
}

/* The "xray-args" event (data, size bytes) right after an entry (`entry`)
 * or an exit, into that record's call c: an entry's strings' text, or an
 * exit's return value (c emptied first). True when c now holds an exit's
 * value (the reader then hands c with the exit). */
static inline bool xr_fdr_args_event_take(bool entry, struct xr_arg_call *c,
                                          const uint8_t *data, size_t size) {
  if (entry) {
    xr_fdr_args_add_strings(c, data, size);
    return false;
  }
  c->count = c->strings = 0;
  return xr_args_event_decode(data, size, c);
}

#endif
