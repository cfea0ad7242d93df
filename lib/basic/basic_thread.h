/* Basic mode's per-thread state: the shadow stack's frames and the thread's
 * record buffer. Types only (no .c): the lean handlers (basic_log_lean.c)
 * keep one per thread, basic_stack.h's inline filter works on it,
 * basic_mode.c sets it up, registers it and flushes it.
 *
 * Data path: handler -> this thread's xr_basic_thread (initial-exec TLS) ->
 * its record buffer (mmap) -> when full, at thread exit, at flush: appended
 * whole to the one log file of the process (basic_writer.c). */
#ifndef XR_BASIC_THREAD_H
#define XR_BASIC_THREAD_H

#include "basic/basic_records.h"
#include "core/base/common.h"
#include "core/thread/thread_list.h"

/* One shadow-stack frame per live instrumented call of the thread. */
struct xr_basic_frame {
  int32_t fid;
  uint8_t type;     /* XR_BASIC_ENTRY or XR_BASIC_ENTRY_ARGS */
  uint8_t cpu;
  uint8_t recorded; /* its entry record(s) were written to the buffer */
  uint64_t tsc;
  uint64_t end_pos; /* stream position just after its entry record(s) */
  uintptr_t sp;     /* the sled's stack pointer (core/base/call_frames.h) */
};

struct xr_basic_thread {
  /* Hot fields first (one cache line). */
  uint32_t epoch;    /* == xr_basic_epoch while this thread may record */
  uint8_t busy;      /* set while a handler touches the buffer (flush waits) */
  uint8_t exited;    /* thread-exit hook ran: never record again */
  struct xr_basic_record *buf;
  uint32_t used;     /* records in buf */
  uint32_t capacity; /* records buf can hold */
  uint64_t spilled;  /* records handed to the writer before buf[0] */
  struct xr_basic_frame *frames;
  uint32_t depth;          /* live calls seen (may exceed frame_capacity) */
  uint32_t frame_capacity; /* frames[] length */
  uint32_t max_depth;      /* calls at depth index >= this are not written */
  uint64_t threshold_ticks;
  uint64_t ids;            /* xr_basic_ids(tid, pid) */
  /* Makes room in buf (writes it out); replaceable by unit tests. */
  void (*spill)(struct xr_basic_thread *t);
  /* Statistics, reported at verbosity >= 1. */
  uint64_t dropped_nested;  /* events dropped by the re-entrancy guard */
  uint64_t unmatched_exits; /* exits of calls entered before recording */
  uint64_t unwound;         /* calls closed by unwinding (longjmp, throw) */
  uint64_t erased;          /* calls rewound as shorter than the threshold */
  /* Registry of threads (basic_mode.c), under its lock. */
  struct xr_thread_link link;
  size_t buf_bytes, frames_bytes; /* mapping sizes */
};

#endif
