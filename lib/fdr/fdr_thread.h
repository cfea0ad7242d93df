/* FDR's per-thread state and hot configuration: the types the lean
 * handlers (fdr_controller_lean.c), their slow paths (fdr_controller_slow.c)
 * and the rest of the mode share, and the inline code over them (the
 * cursor, the short-call rewind). Types, constants and inline functions
 * only: the data of these types is fdr_state.c's (fdr_state.h). */
#ifndef XR_FDR_THREAD_H
#define XR_FDR_THREAD_H

#include "core/base/common.h"
#include "fdr/buffer_queue.h"
#include "fdr/fdr_records.h"

/* Per thread, in initial-exec TLS. Valid only while `epoch` equals
 * xr_fdr_hot.epoch; pointers into a buffer are never followed otherwise. */
struct xr_fdr_thread {
  /* The cursor (next record goes here) is in writer->state. */
  uint8_t *end;       /* records must end at or before this */
  /* The run start (see erasure) is in writer->run_start. */
  uint8_t *begin;     /* first byte of the buffer's data */
  uint64_t last_tsc;  /* TSC of the last record written (reader's base) */
  uint64_t epoch;     /* xr_fdr_hot.epoch this state belongs to; 0 none */
  struct xr_fdr_writer *writer; /* slot while the thread is known */
  struct xr_fdr_buffer *buffer; /* held buffer, NULL when none */
  uint32_t cpu;       /* CPU of the last NewCPUId */
  uint64_t nested_pending; /* nested drops before the thread had a slot */
  /* The shadow stack, set with the writer: the top open call (the
   * sentinel when none) and the last frame there is room for. */
  struct xr_fdr_frame *top;
  struct xr_fdr_frame *frames_last;
  uint32_t untracked; /* open calls deeper than frames_last */
};

/* Read on every event, written only by the control path. */
struct xr_fdr_hot_config {
  /* Odd: events of generation epoch/2 are accepted. Even: finalizing or
   * uninitialised, events are dropped. Changes only under the mode's
   * state machine. */
  uint64_t epoch;
  /* The fast path's copy of epoch: equal to it while the fast path may run
   * (the CPU id is one register-only read and the clock is the tick
   * counter), else XR_FDR_NO_FAST,
   * which no thread's epoch equals. One compare then covers all three. */
  uint64_t fast_epoch;
  uint64_t threshold_ticks;  /* calls shorter than this are erased */
  intptr_t rseq_cpu_offset;  /* thread-pointer offset of rseq cpu_id; 0 none */
  int cpu_source;            /* enum xr_fdr_cpu_source */
  int version;               /* 5, or 1 for the 2017 layout */
  uint32_t max_event_size;   /* largest custom/typed payload that fits */
  /* Slow-call trigger: watch_set[id - 1] != 0 for the watched functions of
   * the executable (ids 1..watch_count); read only by the watch handlers,
   * installed instead of the plain ones when the trigger is on. */
  uint32_t watch_count;
  const uint8_t *watch_set;
} __attribute__((aligned(64)));
#define XR_FDR_NO_FAST UINT64_MAX

/* Where the handlers read the CPU id (NewCPUId records), best first (core's
 * enum xr_cpu_id_method, clock.h). The first three are single
 * instructions, safe in lean handlers and on the fast path; the third also
 * gives the timestamp, in place of the plain tick read. glibc before 2.35
 * registers no rseq area (RHEL 9, Debian 11, Ubuntu 20.04): the fast path
 * then uses the port's CPU-id instruction, or its tick-and-CPU read on CPUs
 * without one (on x86-64: rdpid, rdtscp). */
enum xr_fdr_cpu_source {
  XR_FDR_CPU_RSEQ,       /* a load from the rseq area (glibc >= 2.35) */
  XR_FDR_CPU_INSN,       /* the port's CPU-id instruction */
  XR_FDR_CPU_WITH_TICKS, /* read together with the tick counter */
  XR_FDR_CPU_SLOW        /* sched_getcpu behind a vector save: full path only */
};

/* The calling thread's cursor, NULL without a buffer. */
static XR_ALWAYS_INLINE uint8_t *xr_fdr_cursor(const struct xr_fdr_thread *t) {
  return t->writer ? xr_fdr_state_cursor(__atomic_load_n(&t->writer->state,
                                                         __ATOMIC_RELAXED))
                   : NULL;
}

/* Short-call erasure. [run_start, cur) holds only plain enter records (8
 * bytes each, nothing else was written since). An exit or tail exit of `id`
 * at `tsc` looks for the newest enter of `id` among the last
 * XR_FDR_REWIND_SCAN of them: the newest is the top of the stack; one deeper
 * down means the frames above it were left without exits (longjmp, C++
 * exception), and their enters go too. If the call lasted less than
 * `threshold` ticks, returns the enter's position (the new cursor) and sets
 * *last_tsc to the TSC of the record before it; else returns NULL and the
 * exit must be written. Pure: reads the records, writes nothing. */
enum { XR_FDR_REWIND_SCAN = 32 };
static XR_ALWAYS_INLINE uint8_t *xr_fdr_rewind(uint8_t *run_start,
                                               uint8_t *cur, int32_t id,
                                               uint64_t tsc,
                                               uint64_t threshold,
                                               uint64_t *last_tsc) {
  uint32_t want = (uint32_t)id & 0x0FFFFFFFu;
  uint64_t record_tsc = *last_tsc; /* TSC of the record at r */
  uint8_t *r = cur;
  for (int n = 0; n < XR_FDR_REWIND_SCAN && r - run_start >= 8; n++) {
    r -= 8;
    uint64_t rec = xr_fdr_get64(r);
    uint32_t delta = (uint32_t)(rec >> 32);
    if (((uint32_t)rec >> 4) == want) {
      if (tsc - record_tsc >= threshold) /* also when tsc went back */
        return NULL;
      *last_tsc = record_tsc - delta;
      return r;
    }
    record_tsc -= delta;
  }
  return NULL;
}

#endif
