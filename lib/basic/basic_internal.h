/* Basic mode ("xray-basic") internals shared by the rooms of lib/basic/:
 *   basic_options.c   option table and loading (XRAY_BASIC_OPTIONS, legacy)
 *   basic_log_lean.c  the lean per-event handlers
 *   basic_stack.h     their shadow stack and duration filter (inline, pure)
 *   basic_writer.c    the log file (header version 3, type 0 + records) and
 *                     the recording switch (xr_basic_epoch)
 *   basic_mode.c      XRayLogImpl glue: transitions, hooks, flushing
 *
 * Data path: handler -> this thread's xr_basic_thread (initial-exec TLS) ->
 * its record buffer (mmap) -> when full, at thread exit, at flush: appended
 * whole to the one log file of the process. */
#ifndef XR_BASIC_INTERNAL_H
#define XR_BASIC_INTERNAL_H

#include "core/base/common.h"
#include "core/options/options.h"
#include "core/thread/thread_list.h"
#include "xray/xray_interface.h"

/* ---- options ---------------------------------------------------------- */

struct xr_basic_options {
  int32_t func_duration_threshold_us; /* calls shorter than this are erased */
  int32_t max_stack_depth;            /* deeper calls are not written */
  int32_t thread_buffer_size;         /* records (32 bytes) per thread buffer */
  char trace_output[32];              /* xray, chrome, xray+chrome */
};

XR_HIDDEN extern const struct xr_option_table xr_basic_options_table;

/* Defaults, then XRAY_BASIC_OPTIONS (or, when that is unset or empty, the
 * legacy xray_naive_log_* values of XRAY_OPTIONS), then `config` (may be
 * NULL; when config_size > 0 at most that many bytes are read). Returns
 * the number of bad values, each reported (an over-long config is one):
 * the mode then refuses to start, as every mode does. */
XR_HIDDEN int xr_basic_options_load(struct xr_basic_options *out,
                                     const char *config, size_t config_size);

/* ---- records (compiler-rt's xray_records.h), four little-endian u64 -- */

struct xr_basic_record {
  uint64_t w[4];
};
_Static_assert(sizeof(struct xr_basic_record) == 32, "records are 32 bytes");

#define XR_BASIC_ENTRY 0u
#define XR_BASIC_EXIT 1u
#define XR_BASIC_TAIL 2u
#define XR_BASIC_ENTRY_ARGS 3u

/* Byte 24 of a normal record (the low byte of w[3]), padding to llvm-xray
 * and always 0 from compiler-rt: bit 0 marks an exit the runtime wrote
 * while unwinding (the call's own exit was skipped by longjmp or an
 * exception; docs/formats.md). */
#define XR_BASIC_FLAGS_OFFSET 24
#define XR_BASIC_FLAG_UNWOUND 1u

/* tid in the low half, pid in the high half: the order both record kinds
 * store them in. */
static XR_ALWAYS_INLINE uint64_t xr_basic_ids(int32_t tid, int32_t pid) {
  return (uint64_t)(uint32_t)tid | ((uint64_t)(uint32_t)pid << 32);
}

/* Normal record: u16 RecordType 0, u8 CPU, u8 Type, i32 FuncId, u64 TSC,
 * u32 TId, u32 PId, 8 zero bytes (byte 24, the first of them, is our
 * flags byte: XR_BASIC_FLAG_*, set only on some exits). */
static XR_ALWAYS_INLINE void xr_basic_put_normal(struct xr_basic_record *r,
                                                 int32_t fid, unsigned type,
                                                 uint8_t cpu, uint64_t tsc,
                                                 uint64_t ids) {
  r->w[0] = ((uint64_t)cpu << 16) | ((uint64_t)(type & 0xff) << 24) |
            ((uint64_t)(uint32_t)fid << 32);
  r->w[1] = tsc;
  r->w[2] = ids;
  r->w[3] = 0;
}

/* Argument payload: u16 RecordType 1, 2 zero bytes, i32 FuncId, u32 TId,
 * u32 PId, u64 argument, 8 zero bytes. */
static XR_ALWAYS_INLINE void xr_basic_put_arg(struct xr_basic_record *r,
                                              int32_t fid, uint64_t ids,
                                              uint64_t arg) {
  r->w[0] = 1u | ((uint64_t)(uint32_t)fid << 32);
  r->w[1] = ids;
  r->w[2] = arg;
  r->w[3] = 0;
}

/* ---- per-thread state --------------------------------------------------- */

/* One shadow-stack frame per live instrumented call of the thread. */
struct xr_basic_frame {
  int32_t fid;
  uint8_t type;     /* XR_BASIC_ENTRY or XR_BASIC_ENTRY_ARGS */
  uint8_t cpu;
  uint8_t recorded; /* its entry record(s) were written to the buffer */
  uint64_t tsc;
  uint64_t end_pos; /* stream position just after its entry record(s) */
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

/* This thread's state (initial-exec TLS, zero at thread start). */
XR_HIDDEN extern XR_TLS struct xr_basic_thread xr_basic_tls;

/* Recording generation: even and non-zero while the mode records, odd when
 * stopped (1 before the first init). A thread records only while its own
 * epoch equals it; its epoch is 0 until set up, so an odd value or a new
 * generation sends it to the slow path (set-up or drop). */
XR_HIDDEN extern volatile uint32_t xr_basic_epoch; /* basic_writer.c */
/* Stops recording in every thread (finalize, or the writer failed). */
XR_HIDDEN void xr_basic_stop_recording(void);


/* ---- hot path (basic_log_lean.c) ----------------------------------------- */

XR_HIDDEN void xr_basic_handle_arg0(int32_t fid, XRayEntryType type);
XR_HIDDEN void xr_basic_handle_arg1(int32_t fid, XRayEntryType type,
                                    uint64_t arg);

/* Makes room in t->buf by handing it to the writer: the production value of
 * t->spill. Lean: goes through
 * xr_call_preserving_vectors(xr_basic_spill_slow). */
XR_HIDDEN void xr_basic_spill_lean(struct xr_basic_thread *t);

/* The slow paths below, as the lean file reaches them: basic_mode.c sets
 * these once, before the first recording generation begins (the epoch's
 * release store publishes them), so that the lean file calls into
 * basic_mode.c without naming it (calls between the two go one way). */
XR_HIDDEN extern void (*xr_basic_prepare_slow)(void *prepare);
XR_HIDDEN extern void (*xr_basic_spill_slow)(void *thread);

/* ---- slow paths (basic_mode.c), called through xr_call_preserving_vectors */

/* Sets up (or refuses) the calling thread for recording generation `epoch`;
 * called with xr_in_handler and t->busy set. Sets ok when t may record. */
struct xr_basic_prepare {
  struct xr_basic_thread *t;
  uint32_t epoch;
  bool ok;
};
XR_HIDDEN void xr_basic_prepare_cb(void *prepare);

/* Writes t's buffered records out and empties the buffer (even on failure). */
XR_HIDDEN void xr_basic_spill_cb(void *thread);

/* ---- the log file (basic_writer.c) -------------------------------------- */

/* Creates the log file and writes its header, if not yet open (at init, so
 * that "Log file in" comes when compiler-rt prints it). Returns 0, or -1
 * after reporting the failure and stopping recording. */
XR_HIDDEN int xr_basic_writer_open(void);
/* Appends `count` records as one O_APPEND write, opening the file first if
 * needed. Thread-safe. On failure reports it once, stops recording and
 * returns -1; later calls return -1 at once. */
XR_HIDDEN int xr_basic_writer_append(const struct xr_basic_record *records,
                                     size_t count);
/* Closes the file (if open), first removing it when this process created it
 * and it holds no record (reported at verbosity >= 1). */
XR_HIDDEN void xr_basic_writer_close(void);
/* Forgets a failure (at init). */
XR_HIDDEN void xr_basic_writer_reset(void);
/* In the forking thread, before fork: marks an open file as shared. */
XR_HIDDEN void xr_basic_writer_before_fork(void);
/* In a fork child: resets the lock; keeps the parent's descriptor, so the
 * child appends to the parent's file (and never removes it). */
XR_HIDDEN void xr_basic_writer_after_fork(void);
/* In a fork child whose mode dropped another thread's transition: closes
 * the child's copy of the descriptor (the file is left as it is, the
 * parent's), so a later init opens a file of the child's own. */
XR_HIDDEN void xr_basic_writer_forget(void);
/* Records this process wrote to the current/last file, and its path ("" if
 * none or removed). */
XR_HIDDEN uint64_t xr_basic_writer_records(void);
/* The same, read under the writer's lock (from another thread). */
XR_HIDDEN uint64_t xr_basic_writer_records_locked(void);
XR_HIDDEN const char *xr_basic_writer_path(void);

/* Writes every stream format of outputs (XR_TRACE_OUT_*: `<log_path>.json`
 * for chrome) from the closed log (basic_export.c). Returns 0 or -1
 * (reported). */
XR_HIDDEN int xr_basic_write_streams(const char *log_path, unsigned outputs);

#endif
