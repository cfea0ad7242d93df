/* FDR mode glue: options, the init/finalize/flush state machine, handler
 * installation, the file writer and the in-memory buffer iterator.
 *
 * States (XRayLogInitStatus): UNINITIALIZED -init-> INITIALIZED
 * -finalize-> FINALIZED -flush-> UNINITIALIZED (re-init allowed). A call in
 * the wrong state returns the current state (init, finalize) or
 * XRAY_LOG_NOT_FLUSHING (flush), as compiler-rt does. */
#include "core/clock.h"
#include "core/handlers.h"
#include "core/log_registry.h"
#include "core/objects.h"
#include "core/options.h"
#include "core/output.h"
#include "core/report.h"
#include "core/thread.h"
#include "fdr/buffer_queue.h"
#include "fdr/fdr_controller.h"
#include "fdr/fdr_export.h"
#include "fdr/fdr_log.h"
#include "export/thread_names.h"
#include "fdr/fdr_records.h"
#include "fdr/fdr_snapshot.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct fdr_options {
  int32_t func_duration_threshold_us;
  int32_t grace_period_ms;
  int32_t buffer_size;
  int32_t buffer_max;
  bool no_file_flush;
  int32_t format_version;
  char snapshot_signal[32];
  bool snapshot_on_crash;
  int32_t snapshot_if_slower_than_us;
  char snapshot_function[256];
  int32_t snapshot_min_interval_ms;
  char trace_output[32];
};

#define OPT(name, type, def, min, max, help)                                   \
  {#name, type, offsetof(struct fdr_options, name), 0, def, min, max, help}
#define OPT_STRING(name, def, help)                                            \
  {#name, XR_OPT_STRING, offsetof(struct fdr_options, name),                   \
   sizeof(((struct fdr_options *)0)->name), def, 0, 0, help}
static const struct xr_option fdr_option_rows[] = {
    OPT(func_duration_threshold_us, XR_OPT_INT, "5", 0, 1000000000,
        "calls shorter than this many microseconds are erased"),
    OPT(grace_period_ms, XR_OPT_INT, "100", 0, 3600000,
        "longest wait at finalize for threads still writing an event"),
    OPT(buffer_size, XR_OPT_INT, "16384", 128, 1 << 30,
        "bytes per buffer"),
    OPT(buffer_max, XR_OPT_INT, "100", 1, 1 << 20, "number of buffers"),
    OPT(no_file_flush, XR_OPT_BOOL, "false", 0, 0,
        "flush writes no file (buffers only via __xray_log_process_buffers)"),
    OPT(format_version, XR_OPT_INT, "5", 1, 5,
        "file format: 5 (llvm-xray 7+) or 1 (the 2017 layout)"),
    OPT_STRING(trace_output, "xray",
               "files to write: xray (the log), chrome (Chrome trace events "
               "for Perfetto: <log>.json at flush, <snapshot>.json soon after "
               "each snapshot) or xray+chrome"),
    OPT_STRING(snapshot_signal, "",
               "this signal (SIGUSR2, USR2 or a number) writes a snapshot"),
    OPT(snapshot_on_crash, XR_OPT_BOOL, "false", 0, 0,
        "a crash signal writes a snapshot before the crash goes on"),
    OPT(snapshot_if_slower_than_us, XR_OPT_INT, "0", 0, 1000000000,
        "a call of snapshot_function slower than this writes a snapshot"),
    OPT_STRING(snapshot_function, "",
               "the functions the slow-call trigger watches: an id or name "
               "patterns"),
    OPT(snapshot_min_interval_ms, XR_OPT_INT, "1000", 0, 86400000,
        "at most one slow-call snapshot per this many milliseconds"),
};
XR_HIDDEN const struct xr_option_table xr_fdr_options_table = {
    "XRAY_FDR_OPTIONS", fdr_option_rows, XR_ARRAY_SIZE(fdr_option_rows)};

struct xr_fdr_hot_config xr_fdr_hot = {.fast_epoch = XR_FDR_NO_FAST};

/* Moves the epoch by `by` and the fast path's copy with it (see
 * xr_fdr_hot_config). When the epoch closes, both change before
 * xr_fdr_writers_quiesce's membarrier, so a fast-path writer either is seen
 * busy or reads the new fast_epoch and backs out. */
static void advance_epoch(uint64_t by) {
  uint64_t e = __atomic_add_fetch(&xr_fdr_hot.epoch, by, __ATOMIC_SEQ_CST);
  bool fast = (e & 1) && xr_fdr_hot.cpu_source != XR_FDR_CPU_SLOW &&
              xr_clock.using_tsc;
  __atomic_store_n(&xr_fdr_hot.fast_epoch, fast ? e : XR_FDR_NO_FAST,
                   __ATOMIC_SEQ_CST);
}
struct xr_fdr_queue xr_fdr_queue;

static int state = XRAY_LOG_UNINITIALIZED; /* atomic */
static int snapshots_inside;               /* atomic: see snapshot_enter */
static struct fdr_trigger_options triggers;
static int flushing;                       /* atomic */
static struct fdr_options options;
static unsigned outputs; /* XR_TRACE_OUT_* of options.trace_output */
static bool queue_quiescent = true; /* no writer can be inside xr_fdr_queue */
static uint8_t file_header[XR_FDR_FILE_HEADER_SIZE];
/* Written when no buffer holds data (nothing recorded): readers reject a
 * file that is only a header, so an empty run gets one buffer that is only a
 * preamble (NewCPUId last: valid), framed as the version requires. */
static uint8_t empty_buffer[XR_FDR_PREFIX + XR_FDR_PREAMBLE_V5 +
                            XR_FDR_META_SIZE];
static size_t empty_buffer_size;

enum { CONFIG_MAX = 4096 };

static int load_state(void) { return __atomic_load_n(&state, __ATOMIC_ACQUIRE); }
static void set_state(int s) { __atomic_store_n(&state, s, __ATOMIC_RELEASE); }

/* Defaults -> XRAY_FDR_OPTIONS (or, when that is unset or empty, the legacy
 * xray_fdr_log_* flags) -> the deprecated log_init sizes -> the config
 * string. Returns the number of bad values (each already reported). */
static int load_options(size_t sizes_buffer, size_t sizes_max,
                        const char *config) {
  xr_options_set_defaults(&xr_fdr_options_table, &options);
  int bad = 0;
  const char *env = xr_getenv("XRAY_FDR_OPTIONS");
  if (env && *env) {
    bad += xr_options_parse(&xr_fdr_options_table, &options, env,
                            "XRAY_FDR_OPTIONS");
  } else {
    options.func_duration_threshold_us =
        xr_flags.xray_fdr_log_func_duration_threshold_us;
    options.grace_period_ms = xr_flags.xray_fdr_log_grace_period_ms;
  }
  if (sizes_buffer || sizes_max) {
    if (sizes_buffer < 128 || sizes_buffer > (1u << 30) || sizes_max < 1 ||
        sizes_max > (1u << 20)) {
      xr_report(XR_ERROR,
                "xray-fdr: log_init sizes out of range (buffer size %zu, "
                "buffers %zu)",
                sizes_buffer, sizes_max);
      bad++;
    } else {
      options.buffer_size = (int32_t)sizes_buffer;
      options.buffer_max = (int32_t)sizes_max;
    }
  }
  if (config)
    bad += xr_options_parse(&xr_fdr_options_table, &options, config,
                            "xray-fdr config");
  triggers = (struct fdr_trigger_options){0, options.snapshot_on_crash,
                                          options.snapshot_if_slower_than_us,
                                          0, options.snapshot_min_interval_ms};
  if (options.snapshot_signal[0] &&
      (triggers.signo = xr_fdr_parse_signal(options.snapshot_signal)) == 0)
    bad++;
  if (bad == 0 &&
      xr_fdr_slow_call_prepare(&triggers, options.snapshot_function) != 0)
    bad++;
  outputs = xr_trace_outputs_parse(options.trace_output);
  if (outputs == 0) {
    xr_report(XR_ERROR,
              "xray-fdr: trace_output=%s is not a list of %s",
              options.trace_output, xr_trace_outputs_words());
    bad++;
  }
  if (options.format_version != 5 && options.format_version != 1) {
    xr_report(XR_ERROR,
              "xray-fdr: format_version=%d is not supported (use 5 or 1)",
              (int)options.format_version);
    bad++;
  }
  return bad;
}

static void install_handlers(bool on) {
  /* The slow-call trigger has handlers of its own: off, it costs nothing. */
  bool watch = xr_fdr_hot.watch_count != 0;
  xr_handler_install(XR_SLOT_ARG0,
                     !on ? NULL
                     : watch ? (void *)xr_fdr_handle_arg0_watch
                             : (void *)xr_fdr_handle_arg0,
                     XR_HANDLER_LEAN | XR_HANDLER_DENSE);
  xr_handler_install(XR_SLOT_ARG1,
                     !on ? NULL
                     : watch ? (void *)xr_fdr_handle_arg1_watch
                             : (void *)xr_fdr_handle_arg1,
                     XR_HANDLER_LEAN | XR_HANDLER_DENSE);
  xr_handler_install(XR_SLOT_CUSTOM, on ? (void *)xr_fdr_handle_custom : NULL,
                     XR_HANDLER_LEAN);
  xr_handler_install(XR_SLOT_TYPED, on ? (void *)xr_fdr_handle_typed : NULL,
                     XR_HANDLER_LEAN);
}

/* Thread exit: the JSON shows thread names, which /proc forgets. */
static void thread_exit(void) {
  if (xr_trace_outputs_streamed(outputs) && xr_fdr_thread.writer != NULL)
    xr_thread_names_remember();
  xr_fdr_thread_exit();
}

/* A snapshot counts itself in before it looks at the state, and init
 * moves the state before it looks at the count (both sequentially
 * consistent): so either init sees the snapshot and keeps the old buffers
 * mapped, or the snapshot sees that FDR is not recording and leaves. */
bool xr_fdr_snapshot_enter(void) {
  __atomic_add_fetch(&snapshots_inside, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&state, __ATOMIC_SEQ_CST) == XRAY_LOG_INITIALIZED)
    return true;
  __atomic_sub_fetch(&snapshots_inside, 1, __ATOMIC_SEQ_CST);
  return false;
}
void xr_fdr_snapshot_leave(void) {
  __atomic_sub_fetch(&snapshots_inside, 1, __ATOMIC_SEQ_CST);
}

static void fork_child(void) {
  /* A snapshot being written by another thread stays the parent's. */
  __atomic_store_n(&snapshots_inside, 0, __ATOMIC_RELAXED);
  xr_fdr_snapshot_fork_child();
  xr_fdr_snapjson_fork_child();
  xr_fdr_thread_forget_after_fork();
  if (load_state() == XRAY_LOG_INITIALIZED) {
    /* The parent's events are the parent's: start empty, new epoch. */
    xr_fdr_queue_reset(&xr_fdr_queue);
    xr_fdr_writers_reset_counters();
    advance_epoch(2);
  }
}

static XRayBuffer fdr_iterator(XRayBuffer previous);

static XRayLogInitStatus fdr_init(size_t buffer_size, size_t buffer_max,
                                  void *args, size_t args_size) {
  int expected = XRAY_LOG_UNINITIALIZED;
  if (!__atomic_compare_exchange_n(&state, &expected, XRAY_LOG_INITIALIZING,
                                   false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    xr_report(XR_ERROR, "xray-fdr: cannot initialise: already initialised "
                        "(finalize and flush first)");
    return (XRayLogInitStatus)expected;
  }
  /* A deprecated call passes sizes (and an old options struct we ignore);
   * a current one passes a config string in args. */
  char config[CONFIG_MAX];
  const char *config_text = NULL;
  if (buffer_size == 0 && buffer_max == 0 && args != NULL) {
    const char *text = args;
    size_t limit = args_size ? args_size : SIZE_MAX;
    size_t n = 0;
    while (n < limit && n < CONFIG_MAX && text[n] != '\0')
      n++;
    if (n == CONFIG_MAX) {
      xr_report(XR_ERROR, "xray-fdr: config string longer than %d bytes",
                CONFIG_MAX - 1);
      set_state(XRAY_LOG_UNINITIALIZED);
      return XRAY_LOG_UNINITIALIZED;
    }
    memcpy(config, text, n);
    config[n] = '\0';
    config_text = config;
  } else if (buffer_size == 0 && buffer_max == 0) {
    xr_report(XR_ERROR, "xray-fdr: no configuration given to log_init");
    set_state(XRAY_LOG_UNINITIALIZED);
    return XRAY_LOG_UNINITIALIZED;
  }
  if (load_options(buffer_size, buffer_max, config_text) != 0) {
    xr_report(XR_ERROR, "xray-fdr: bad configuration; not initialised");
    set_state(XRAY_LOG_UNINITIALIZED);
    return XRAY_LOG_UNINITIALIZED;
  }

  /* Fresh buffers for this generation. The old ones go only if finalize saw
   * every writer leave them; otherwise they are left mapped (a straggler
   * may still be inside) and only their address is forgotten. */
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (queue_quiescent &&
      __atomic_load_n(&snapshots_inside, __ATOMIC_SEQ_CST) == 0)
    xr_fdr_queue_destroy(&xr_fdr_queue);
  if (xr_fdr_queue_init(&xr_fdr_queue, (size_t)options.buffer_size,
                        (size_t)options.buffer_max) != 0) {
    xr_report(XR_ERROR,
              "xray-fdr: cannot map %d buffers of %d bytes: %s; not "
              "initialised",
              (int)options.buffer_max, (int)options.buffer_size,
              strerror(errno));
    set_state(XRAY_LOG_UNINITIALIZED);
    return XRAY_LOG_UNINITIALIZED;
  }
  queue_quiescent = true;

  xr_clock_init();
  xr_fdr_writers_prepare();
  xr_fdr_writers_reset_counters();
  xr_fdr_detect_rseq();
  int version = options.format_version;
  size_t cap = (size_t)options.buffer_size - (version < 2 ? XR_FDR_META_SIZE : 0);
  size_t preamble = version >= 3 ? XR_FDR_PREAMBLE_V5 : XR_FDR_PREAMBLE_V1;
  xr_fdr_hot.version = version;
  xr_fdr_hot.threshold_ticks =
      xr_us_to_ticks((uint64_t)options.func_duration_threshold_us);
  xr_fdr_hot.max_event_size =
      cap > preamble + 2 * XR_FDR_META_SIZE
          ? (uint32_t)(cap - preamble - 2 * XR_FDR_META_SIZE)
          : 0;
  xr_fdr_file_header(file_header, (uint16_t)version, xr_clock.constant_tsc,
                     xr_clock.nonstop_tsc, xr_clock.frequency_hz,
                     (uint64_t)options.buffer_size);

  static bool hooks_registered;
  if (!hooks_registered) {
    hooks_registered = true;
    xr_thread_on_exit(thread_exit);
    xr_thread_on_fork_child(fork_child);
  }

  /* Open the gate (epoch becomes odd, a new value: threads holding state of
   * an older generation notice and start over), then install handlers. */
  advance_epoch(1);
  __xray_log_set_buffer_iterator(fdr_iterator);
  /* Function records keep 28 bits of id: the handlers take dense ids. */
  xr_objects_dense_recording("xray-fdr");
  install_handlers(true);
  xr_fdr_snapshot_prepare();
  if (xr_trace_outputs_streamed(outputs))
    xr_fdr_snapjson_start(outputs); /* before the first snapshot is taken */
  set_state(XRAY_LOG_INITIALIZED);
  xr_fdr_triggers_install(&triggers);
  xr_report(XR_INFO,
            "xray-fdr: initialised: %d buffers of %d bytes, threshold %d us, "
            "format version %d",
            (int)options.buffer_max, (int)options.buffer_size,
            (int)options.func_duration_threshold_us, version);
  return XRAY_LOG_INITIALIZED;
}

static void build_empty_buffer(void) {
  struct timespec wall;
  clock_gettime(CLOCK_MONOTONIC, &wall);
  int version = xr_fdr_hot.version;
  uint8_t *p = empty_buffer + (version >= 2 ? XR_FDR_PREFIX : 0);
  uint8_t *end = xr_fdr_preamble(p, version, xr_tid(), xr_pid(), wall.tv_sec,
                                 (int32_t)(wall.tv_nsec / 1000),
                                 (uint16_t)xr_cpu_id(), xr_now());
  if (version >= 2)
    xr_fdr_buffer_extents(empty_buffer, (uint64_t)(end - p));
  else
    end = xr_fdr_end_of_buffer(end);
  empty_buffer_size = (size_t)(end - empty_buffer);
}

static XRayLogInitStatus fdr_finalize(void) {
  int expected = XRAY_LOG_INITIALIZED;
  if (!__atomic_compare_exchange_n(&state, &expected, XRAY_LOG_FINALIZING,
                                   false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return (XRayLogInitStatus)expected;
  xr_fdr_triggers_remove(); /* no snapshot once recording stops */
  /* Close the gate (epoch becomes even), stop calling us, then wait only for
   * threads caught in the middle of an event. */
  advance_epoch(1);
  install_handlers(false);
  xr_objects_dense_recording(NULL);
  uint64_t bound_ms = options.grace_period_ms < 10 ? 10 : options.grace_period_ms;
  /* The caller may itself be inside a handler (a signal handler or an
   * instrumented function calling finalize): its own slot is not waited on. */
  struct xr_fdr_writer *self = xr_fdr_thread.writer;
  uintptr_t self_state =
      self ? __atomic_load_n(&self->state, __ATOMIC_RELAXED) : 0;
  if (self)
    __atomic_store_n(&self->state, self_state & ~XR_FDR_BUSY, __ATOMIC_RELAXED);
  queue_quiescent = xr_fdr_writers_quiesce(bound_ms * 1000000u);
  if (self)
    __atomic_store_n(&self->state, self_state, __ATOMIC_RELAXED);
  /* From here on no thread can take a buffer, and the file holds only
   * buffers whose writers have finished (see xr_fdr_queue_close). */
  size_t left_out = xr_fdr_queue_close(&xr_fdr_queue, self);
  if (!queue_quiescent)
    xr_report(XR_INFO, "xray-fdr: a thread was still writing after %d ms; "
                       "%zu buffer(s) left out of the log",
              (int)bound_ms, left_out);
  xr_fdr_file_header(file_header, (uint16_t)xr_fdr_hot.version,
                     xr_clock.constant_tsc, xr_clock.nonstop_tsc,
                     xr_clock.frequency_hz, (uint64_t)options.buffer_size);
  build_empty_buffer();
  set_state(XRAY_LOG_FINALIZED);
  return XRAY_LOG_FINALIZED;
}

/* The bytes that represent buffer i in a file: v5 prefixes BufferExtents
 * (in the reserved bytes before the data), v1 appends EndOfBuffer (in the
 * bytes kept free at the end). Only after finalize. */
static XRayBuffer buffer_bytes(size_t i) {
  struct xr_fdr_buffer *b = &xr_fdr_queue.buffers[i];
  uint64_t extents = b->flush_extents;
  if (xr_fdr_hot.version >= 2) {
    xr_fdr_buffer_extents(b->data - XR_FDR_PREFIX, extents);
    return (XRayBuffer){b->data - XR_FDR_PREFIX, XR_FDR_PREFIX + extents};
  }
  xr_fdr_end_of_buffer(b->data + extents);
  return (XRayBuffer){b->data, extents + XR_FDR_META_SIZE};
}

static XRayBuffer fdr_iterator(XRayBuffer previous) {
  if (load_state() != XRAY_LOG_FINALIZED)
    return (XRayBuffer){NULL, 0};
  if (previous.Data == NULL)
    return (XRayBuffer){file_header, sizeof file_header};
  bool none_used = xr_fdr_queue_next_flushed(&xr_fdr_queue, 0) >= xr_fdr_queue.count;
  if (previous.Data == file_header && none_used)
    return (XRayBuffer){empty_buffer, empty_buffer_size};
  if (previous.Data == empty_buffer)
    return (XRayBuffer){NULL, 0};
  size_t from = 0;
  if (previous.Data != file_header) {
    size_t i = xr_fdr_queue_index_of(&xr_fdr_queue, previous.Data);
    if (i >= xr_fdr_queue.count)
      return (XRayBuffer){NULL, 0};
    from = i + 1;
  }
  size_t next = xr_fdr_queue_next_flushed(&xr_fdr_queue, from);
  if (next >= xr_fdr_queue.count)
    return (XRayBuffer){NULL, 0};
  return buffer_bytes(next);
}

/* The kept buffers as spans ordered by thread then time (mmap'd; *bytes
 * to unmap), or NULL when there is none or no memory (*n = 0). */
static struct xr_fdr_span *kept_spans(size_t *n, size_t *bytes) {
  size_t count = 0;
  for (size_t i = xr_fdr_queue_next_flushed(&xr_fdr_queue, 0);
       i < xr_fdr_queue.count; i = xr_fdr_queue_next_flushed(&xr_fdr_queue, i + 1))
    count++;
  *n = 0;
  *bytes = (count ? count : 1) * sizeof(struct xr_fdr_span);
  if (count == 0)
    return NULL;
  struct xr_fdr_span *spans = mmap(NULL, *bytes, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (spans == MAP_FAILED)
    return NULL;
  for (size_t i = xr_fdr_queue_next_flushed(&xr_fdr_queue, 0);
       i < xr_fdr_queue.count; i = xr_fdr_queue_next_flushed(&xr_fdr_queue, i + 1))
    spans[(*n)++] = (struct xr_fdr_span){xr_fdr_queue.buffers[i].data,
                                         xr_fdr_queue.buffers[i].flush_extents,
                                         0, 0, 0};
  xr_fdr_spans_order(spans, *n, xr_fdr_hot.version);
  return spans;
}

/* Writes the header and every buffer the iterator hands out, as they are
 * (format_version=1, or no memory to order the buffers). Returns 0, or -1
 * on failure (errno set); *whole = bytes up to the end of the last complete
 * buffer, *buffers = how many. */
static int write_raw(int fd, uint64_t *whole, uint64_t *buffers) {
  *buffers = 0;
  *whole = 0;
  for (XRayBuffer b = fdr_iterator((XRayBuffer){NULL, 0}); b.Data;
       b = fdr_iterator(b)) {
    if (xr_write_all(fd, b.Data, b.Size) != 0)
      return -1;
    *whole += b.Size;
    if (b.Data != file_header)
      ++*buffers;
  }
  return 0;
}

/* RLIMIT_FSIZE in bytes: the log stops short of it (the kernel would raise
 * SIGXFSZ, which kills the program by default). */
static uint64_t file_limit(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return UINT64_MAX;
  return (uint64_t)rl.rlim_cur;
}

/* Writes the log: in version 5 one block per thread, ordered and nested
 * for llvm-xray (fdr_log_writer.c); else the buffers as they are. A write
 * that fails (disk full, RLIMIT_FSIZE) leaves the file cut back to the last
 * whole block, so what is there stays readable; with none it is removed.
 * Then the JSON beside it, when asked for. */
static void write_file(void) {
  char path[1024];
  int fd = xr_open_log_file(path, sizeof path);
  if (fd < 0)
    return; /* reported by xr_open_log_file */
  size_t n, bytes;
  struct xr_fdr_span *spans = kept_spans(&n, &bytes);
  uint64_t whole = 0, kept = 0;
  int rc;
  bool blocks = false;
  if (xr_fdr_hot.version >= 5 && spans != NULL) {
    struct xr_fdr_log_stats st;
    rc = xr_fdr_write_log(fd, file_header, spans, n, NULL, file_limit(), &st);
    whole = st.whole_bytes;
    kept = st.whole_blocks;
    blocks = kept > 0;
    xr_report(XR_INFO,
              "xray-fdr: %llu thread(s), %llu call(s) closed that unwinding "
              "(longjmp, exceptions) skipped, %llu exit(s) dropped whose "
              "entries the ring overwrote, %llu call(s) open at the end",
              (unsigned long long)st.blocks, (unsigned long long)st.closed,
              (unsigned long long)st.dropped_exits,
              (unsigned long long)st.open_at_end);
  } else {
    rc = write_raw(fd, &whole, &kept);
    blocks = kept > 0;
  }
  if (rc < 0) {
    int err = errno;
    if (blocks && ftruncate(fd, (off_t)whole) == 0) {
      xr_report(XR_ERROR,
                "xray-fdr: writing '%s' failed: %s; it keeps the %llu whole "
                "block(s) written before",
                path, strerror(err), (unsigned long long)kept);
    } else {
      unlink(path);
      xr_report(XR_ERROR, "xray-fdr: writing '%s' failed: %s; removed",
                path, strerror(err));
    }
  }
  close(fd);
  bool file_kept = kept > 0 && (rc == 0 || blocks);
  if ((outputs & XR_TRACE_OUT_XRAY) && file_kept)
    xr_objects_write_map(path, true); /* only when shared objects registered */
  if (xr_trace_outputs_streamed(outputs))
    xr_fdr_write_streams(path, outputs, spans, n, xr_fdr_hot.version,
                         xr_clock.frequency_hz);
  if (spans != NULL)
    munmap(spans, bytes);
  if (!(outputs & XR_TRACE_OUT_XRAY))
    unlink(path); /* the name was taken for the JSON beside it */
}

/* True when some kept buffer holds a function record (byte 0 bit 0 clear);
 * stops at the first one, so it costs a few records in a normal log. */
static bool log_has_function_record(void) {
  for (size_t i = xr_fdr_queue_next_flushed(&xr_fdr_queue, 0);
       i < xr_fdr_queue.count; i = xr_fdr_queue_next_flushed(&xr_fdr_queue, i + 1)) {
    const uint8_t *p = xr_fdr_queue.buffers[i].data;
    const uint8_t *end = p + xr_fdr_queue.buffers[i].flush_extents;
    while (p < end) {
      if ((p[0] & 1) == 0)
        return true;
      unsigned kind = p[0] >> 1;
      size_t size = XR_FDR_META_SIZE;
      if (kind == XR_FDR_CUSTOM_EVENT || kind == XR_FDR_TYPED_EVENT) {
        int32_t payload;
        memcpy(&payload, p + 1, sizeof payload);
        size += payload > 0 ? (size_t)payload : 0;
      }
      p += size;
    }
  }
  return false;
}

/* Every call was erased by the threshold: the user gets a log without a
 * single function record and may not know why. Said once per flush; at
 * verbosity 0 only to a person (stderr is a terminal): xr_hint_level. */
static void report_all_calls_erased(void) {
  uint64_t erased = xr_fdr_writers_erased();
  if (erased == 0 || log_has_function_record())
    return;
  xr_report(xr_hint_level(),
            "xray-fdr: all %llu function calls were shorter than "
            "func_duration_threshold_us=%d and were erased; the log has no "
            "function records (func_duration_threshold_us=0 keeps every "
            "call)",
            (unsigned long long)erased,
            (int)options.func_duration_threshold_us);
}

static XRayLogFlushStatus fdr_flush(void) {
  if (load_state() != XRAY_LOG_FINALIZED)
    return XRAY_LOG_NOT_FLUSHING;
  if (__atomic_exchange_n(&flushing, 1, __ATOMIC_ACQ_REL))
    return XRAY_LOG_NOT_FLUSHING;
  /* Keep our own handlers from running if a signal arrives mid-flush. */
  uint8_t guard = __atomic_load_n(&xr_in_handler, __ATOMIC_RELAXED);
  __atomic_store_n(&xr_in_handler, 1, __ATOMIC_RELAXED);
  __xray_log_remove_buffer_iterator();
  /* The snapshots' JSON helper ends (after the file it is on); what it had
   * not reached is converted here, the same way (fdr_snapjson.c). */
  xr_fdr_snapjson_stop();
  if (!options.no_file_flush)
    write_file();
  if (xr_trace_outputs_streamed(outputs))
    xr_fdr_snapjson_convert_new();
  report_all_calls_erased();
  uint64_t dropped = xr_fdr_writers_dropped();
  uint64_t nested = xr_fdr_writers_nested();
  uint64_t overwritten =
      __atomic_load_n(&xr_fdr_queue.overwritten, __ATOMIC_RELAXED);
  xr_report(XR_INFO,
            "xray-fdr: %llu events dropped (no free buffer or too large), "
            "%llu nested events dropped (inside the tracer, e.g. from a "
            "signal handler), %llu buffers overwritten (oldest data lost)",
            (unsigned long long)dropped, (unsigned long long)nested,
            (unsigned long long)overwritten);
  __atomic_store_n(&xr_in_handler, guard, __ATOMIC_RELAXED);
  set_state(XRAY_LOG_UNINITIALIZED);
  __atomic_store_n(&flushing, 0, __ATOMIC_RELEASE);
  return XRAY_LOG_FLUSHED;
}

const struct XRayLogImpl xr_fdr_impl = {fdr_init, fdr_finalize,
                                        xr_fdr_handle_arg0, fdr_flush};
