/* The argument trampolines' hook (args_hook.h). Runs as a full handler
 * does (any register may be used: the trampoline saved them), once per
 * entry or exit of a function whose sleds go to those trampolines.
 *
 * Per event: a thread-local guard; the table loaded once (args_readers.h)
 * and the function's plan copied out of it (37 bytes); per value a load
 * from the saved registers, and for a string one system call
 * (args_copy.h); then one call to the sink or handler. A signal handler's
 * event that lands inside another's capture on the same thread takes no
 * value (the guard), and is still passed on. */
#include "args/args_hook.h"

#include "args/args_copy.h"
#include "args/args_readers.h"
#include "args/args_table.h"
#include "core/dispatch/hot_tables.h"
#include "core/modes/args_sink.h"

#include <string.h>

static XR_TLS uint8_t in_hook;

/* The plan of `packed` now, copied into *out: false when it has none (or
 * this thread may not read the tables now); *log_args: its entry is a
 * log-args sled. */
static bool plan_now(int32_t packed, struct xr_args_plan *out, bool *log_args) {
  *log_args = false;
  if (!xr_args_read_begin())
    return false;
  const struct xr_args_table *t = __atomic_load_n(&xr_args_current, __ATOMIC_ACQUIRE);
  const struct xr_args_plan *p = t != NULL ? xr_args_plan_of(t, packed, log_args) : NULL;
  if (p != NULL)
    memcpy(out, p, sizeof *out);
  xr_args_read_end();
  return p != NULL;
}

static void take(struct xr_args_value_spec v, uint64_t bits, struct xr_arg_call *c) {
  struct xr_arg_value *out = &c->v[c->count++];
  if (v.format == XR_ARGF_F32)
    bits &= 0xFFFFFFFFu; /* a float: the register's low 32 bits */
  *out = (struct xr_arg_value){bits, v.what, v.format, 0, 0, 0};
  if (v.format == XR_ARGF_S) {
    out->text = (uint16_t)(c->strings++ * XR_ARG_STRING_MAX);
    out->status = xr_args_copy_string(bits, c->text + out->text, &out->len);
  }
}

static void capture(const struct xr_args_plan *p, int type, const struct xr_arg_regs *r,
                    struct xr_arg_call *c) {
  if (type == XR_T_EXIT) {
    if (p->has_ret) {
      bool fp = p->ret.format == XR_ARGF_F || p->ret.format == XR_ARGF_F32;
      take(p->ret, fp ? r->fpr[0] : r->gpr[0], c);
    }
    return;
  }
  for (uint8_t i = 0; i < p->entries; i++) {
    struct xr_args_value_spec v = p->entry[i];
    unsigned n = XR_ARG_WHAT_N(v.what) - 1; /* 0 .. 7 (args_spec.c) */
    take(v, XR_ARG_WHAT_KIND(v.what) == XR_ARG_KIND_FP ? r->fpr[n] : r->gpr[n], c);
  }
}

/* ---- passing the event on, as the usual trampolines do ------------------- */
typedef void (*lean0_fn)(int32_t, int, uintptr_t);
typedef void (*full0_fn)(int32_t, int);
typedef void (*lean1_fn)(int32_t, int, uint64_t, uintptr_t);
typedef void (*full1_fn)(int32_t, int, uint64_t);

/* The arg0 handler: lean (dense ids when it takes them), else full. */
static void to_arg0(int32_t packed, int type, uintptr_t sp) {
  void *dense = __atomic_load_n(&xr_dense_handlers[0], __ATOMIC_ACQUIRE);
  if (dense != NULL) {
    int32_t id = xr_dense_id(packed);
    if (id >= 0)
      ((lean0_fn)dense)(id, type, sp);
    return;
  }
  void *lean = __atomic_load_n(&xr_handler_lean[XR_SLOT_ARG0], __ATOMIC_ACQUIRE);
  if (lean != NULL) {
    ((lean0_fn)lean)(packed, type, sp);
    return;
  }
  void *full = __atomic_load_n(&xr_handler_full[XR_SLOT_ARG0], __ATOMIC_ACQUIRE);
  if (full != NULL)
    ((full0_fn)full)(packed, type);
}

/* A log-args sled's event (xray_log_args): the arg1 handler with the first
 * integer argument, lean then full, else the arg0 handler. */
static void to_arg1(int32_t packed, const struct xr_arg_regs *r) {
  void *lean = __atomic_load_n(&xr_handler_lean[XR_SLOT_ARG1], __ATOMIC_ACQUIRE);
  if (lean != NULL) {
    void *dense = __atomic_load_n(&xr_dense_handlers[1], __ATOMIC_ACQUIRE);
    int32_t id = dense != NULL ? xr_dense_id(packed) : packed;
    if (id >= 0)
      ((lean1_fn)(dense != NULL ? dense : lean))(id, XR_T_ARG, r->gpr[0], r->sp);
    return;
  }
  void *full = __atomic_load_n(&xr_handler_full[XR_SLOT_ARG1], __ATOMIC_ACQUIRE);
  if (full != NULL) {
    ((full1_fn)full)(packed, XR_T_ARG, r->gpr[0]);
    return;
  }
  to_arg0(packed, XR_T_ARG, r->sp);
}

static void hook(int32_t packed, int type, const struct xr_arg_regs *r) {
  struct xr_arg_call call;
  call.count = call.strings = 0;
  bool planned = false, log_args = false;
  if (XR_LIKELY(!in_hook)) {
    in_hook = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    struct xr_args_plan plan;
    planned = plan_now(packed, &plan, &log_args);
    if (planned)
      capture(&plan, type, r, &call);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    in_hook = 0;
  }
  /* The entry trampoline serves entry and log-args sleds alike: the table
   * says which this function has. */
  if (type == XR_T_ENTRY && log_args)
    type = XR_T_ARG;
  /* A sled with no plan (one mid-change, or xray_log_args's own) goes
   * where the usual trampoline would send it. */
  if (type == XR_T_ARG && !planned) {
    to_arg1(packed, r);
    return;
  }
  const struct xr_args_sink *sink = xr_args_sink_get();
  if (sink != NULL && type == XR_T_EXIT)
    sink->exit(packed, &call, r->sp);
  else if (sink != NULL && (type == XR_T_ENTRY || type == XR_T_ARG))
    sink->entry(packed, &call, r->sp);
  else if (type == XR_T_ARG)
    to_arg1(packed, r); /* no sink: the values go nowhere */
  else
    to_arg0(packed, type, r->sp);
}

void xr_args_hook_install(void) {
  __atomic_store_n(&xr_args_hook, hook, __ATOMIC_RELEASE);
}
