/* A crash snapshot's trace files (`<snapshot>.pftrace` with
 * trace_output=perfetto), written by the crash handler itself, right after
 * the snapshot and its map: the process ends next, so no helper thread can
 * convert it later, as fdr_snaptrace.c does for the other snapshots.
 *
 * Async-signal-safe throughout, as the snapshot is:
 * - only the native trace runs (CRASH_FORMATS; a crash writes no JSON),
 *   and only because its writer is flagged signal_safe, with a quiet
 *   context;
 * - the snapshot file is read back through a private read-only mapping
 *   (open, fstat, mmap, munmap) and decoded in place into the slot's
 *   scratch memory (its span list), sorted with the heap sort;
 * - names come from tables built ahead (core/names/ready_names.h; "fn<id>"
 *   for an object whose table was not ready), thread names from
 *   /proc/self/task/<tid>/comm (open, read), the program's name copied at
 *   init;
 * - each file is written as `<file>.part` and renamed when whole; one that
 *   cannot be finished (no space, the file size limit, a fault in a writer)
 *   is removed. The caller says what happened, with its raw writer. */
#include "core/base/test_points.h"
#include "core/clock/clock.h"
#include "core/names/ready_names.h"
#include "core/output/output.h"
#include "core/output/text_out.h"
#include "core/thread/thread.h"
#include "export/trace_formats.h"
#include "fdr/fdr_crash_trace.h"
#include "fdr/fdr_export.h"
#include "fdr/fdr_raw_text.h"
#include "fdr/fdr_records.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h> /* rename, async-signal-safe */
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Named test points (core/base/test_points.h). */
#ifdef XR_TEST_POINTS
void (*xr_fdr_test_crash_trace_writers)(void); /* the writers are open */
#endif

static unsigned crash_outputs; /* atomic: signal-safe formats to write */
static char program[256];      /* the process's name, copied at init */

/* Reads a whole small file (comm: a name and a newline) into buf[cap],
 * the newline dropped; NULL when it cannot. open and read only. */
static const char *read_comm(const char *path, char *buf, size_t cap) {
  int fd;
  do
    fd = open(path, O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0 || cap < 2) {
    if (fd >= 0)
      close(fd);
    return NULL;
  }
  ssize_t n;
  do
    n = read(fd, buf, cap - 1);
  while (n < 0 && errno == EINTR);
  close(fd);
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == 0))
    n--;
  if (n <= 0)
    return NULL;
  buf[n] = 0;
  return buf;
}

/* The formats a crash writes: the native trace only. The Chrome writer is
 * async-signal-safe too, but a crash's time goes to one trace of its
 * events, not two; its JSON stays out (docs/fdr-mode.md). A format runs
 * here only when its writer says it is signal-safe. */
enum { CRASH_FORMATS = XR_TRACE_OUT_PERFETTO };

void xr_fdr_crash_trace_prepare(unsigned outputs, bool on_crash) {
  unsigned safe = 0;
  for (unsigned bit = 0; on_crash && bit < XR_TRACE_FORMATS_MAX; bit++) {
    const struct xr_trace_format *f = xr_trace_outputs_format(bit);
    if (((outputs & CRASH_FORMATS) >> bit & 1) && f != NULL && f->signal_safe)
      safe |= 1u << bit;
  }
  if (safe != 0) {
    struct text t = {program, 0, sizeof program};
    put_str(&t, xr_program_name());
  }
  /* The names a crash's trace looks up, built from FDR's start on. */
  xr_ready_names_keep(safe != 0);
  __atomic_store_n(&crash_outputs, safe, __ATOMIC_RELEASE);
}

void xr_fdr_crash_trace_stop(void) {
  __atomic_store_n(&crash_outputs, 0, __ATOMIC_RELEASE);
  xr_ready_names_keep(false);
}

bool xr_fdr_crash_trace_wanted(void) {
  return __atomic_load_n(&crash_outputs, __ATOMIC_ACQUIRE) != 0;
}

/* ---- the writers' context, without a lock or an allocation ------------- */

/* One crash trace at a time (the crash slot's owner): static buffers. */
static char unknown_name[24];

static const char *crash_name(void *ctx, int32_t fid) {
  (void)ctx;
  const char *name = xr_ready_names_dense(fid);
  if (name != NULL)
    return name;
  struct text t = {unknown_name, 0, sizeof unknown_name};
  put_str(&t, "fn");
  put_i64(&t, fid);
  return unknown_name;
}

/* A live thread's comm, else for the main thread the program's name (as
 * the other snapshots' traces name them; an exited thread has none here:
 * the table of exited threads' names takes a lock). */
static const char *crash_thread_name(void *ctx, int32_t pid, int32_t tid,
                                     char *buf, size_t cap) {
  (void)ctx;
  if (tid <= 0 || pid != xr_pid())
    return NULL;
  char path[48];
  struct text t = {path, 0, sizeof path};
  put_str(&t, "/proc/self/task/");
  put_i64(&t, tid);
  put_str(&t, "/comm");
  const char *name = read_comm(path, buf, cap);
  return name != NULL ? name : tid == pid ? program : NULL;
}

static const char *crash_process_name(void *ctx, int32_t pid) {
  (void)ctx;
  (void)pid;
  return program;
}

/* ---- the files ----------------------------------------------------------- */

struct file {
  char done[PATH_MAX], part[PATH_MAX];
};

/* `<snapshot><suffix>` and its `.part`; false when a name does not fit. */
static bool names_of(struct file *f, const char *snapshot, const char *suffix) {
  struct text d = {f->done, 0, sizeof f->done};
  put_str(&d, snapshot);
  put_str(&d, suffix);
  struct text p = {f->part, 0, sizeof f->part};
  put_str(&p, f->done);
  put_str(&p, ".part");
  return p.len + 1 < p.cap;
}

static void say_file(char *files, size_t cap, const char *name, bool more) {
  struct text t = {files, 0, cap};
  t.len = __builtin_strlen(files);
  if (more)
    put_str(&t, ", ");
  put_str(&t, "'");
  put_str(&t, name);
  put_str(&t, "'");
}

/* The snapshot read back: a private read-only mapping of the whole file
 * (NULL with errno when it cannot be). */
static const uint8_t *read_back(const char *snapshot, size_t *size) {
  int fd;
  do
    fd = open(snapshot, O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    int err = errno;
    if (fd >= 0)
      close(fd);
    errno = err;
    return NULL;
  }
  *size = (size_t)st.st_size;
  void *image = *size > 0 ? mmap(NULL, *size, PROT_READ,
                                 MAP_PRIVATE | MAP_POPULATE, fd, 0)
                          : MAP_FAILED;
  int err = *size > 0 ? errno : EINVAL;
  close(fd);
  errno = err;
  return image == MAP_FAILED ? NULL : image;
}

/* The crash slot's (one crash trace at a time): the writers and their
 * files, static so that they survive a jump back from a fault. */
static struct xr_trace_writers writers;
static struct file names[XR_TRACE_FORMATS_MAX];
static sigjmp_buf fault_exit;
static XR_TLS int guarded; /* this thread is inside the writers */

/* Opens a writer per format of outputs, each on `<file>.part`; 0, or -1
 * with errno (files names the one that failed; none stays open). */
static int open_writers(unsigned outputs, const char *snapshot,
                        const struct xr_trace_context *c, char *files,
                        size_t cap) {
  for (unsigned bit = 0; bit < XR_TRACE_FORMATS_MAX; bit++) {
    const struct xr_trace_format *f = xr_trace_outputs_format(bit);
    if (!(outputs >> bit & 1) || f == NULL)
      continue;
    struct file *n = &names[writers.n];
    int out = -1;
    if (!names_of(n, snapshot, f->suffix))
      errno = ENAMETOOLONG;
    else
      do
        out = open(n->part, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      while (out < 0 && errno == EINTR);
    void *w = out >= 0 ? f->open(out, n->done, c) : NULL;
    if (w == NULL) {
      int err = errno;
      if (out >= 0)
        unlink(n->part);
      say_file(files, cap, n->done, false);
      errno = err;
      return -1;
    }
    writers.format[writers.n] = f;
    writers.w[writers.n++] = w;
  }
  return 0;
}

/* Closes the writers: each whole file renamed to its name, each other one
 * removed. The number renamed, or -1 with errno after the first failure
 * (files then names it). */
static int close_writers(bool whole, char *files, size_t cap) {
  int written = 0, err = 0;
  for (size_t i = 0; i < writers.n; i++) {
    int one = writers.format[i]->close(writers.w[i]);
    if (one == 0 && whole && err == 0 &&
        rename(names[i].part, names[i].done) == 0) {
      say_file(files, cap, names[i].done, written++ > 0);
      continue;
    }
    if (err == 0 && whole) {
      err = errno != 0 ? errno : EIO;
      files[0] = 0;
      say_file(files, cap, names[i].done, false);
    }
    unlink(names[i].part);
  }
  writers.n = 0;
  errno = err;
  return err != 0 ? -1 : written;
}

void xr_fdr_crash_trace_fault(void) {
  if (guarded) {
    guarded = 0;
    siglongjmp(fault_exit, 1);
  }
}

int xr_fdr_crash_trace_write(const char *snapshot, uint8_t *scratch,
                             size_t max_spans, char *files, size_t cap) {
  files[0] = 0;
  unsigned outputs = __atomic_load_n(&crash_outputs, __ATOMIC_ACQUIRE);
  if (outputs == 0)
    return 0;
  size_t size = 0;
  const uint8_t *image = read_back(snapshot, &size);
  if (image == NULL) {
    say_file(files, cap, snapshot, false);
    return -1;
  }
  if (size < XR_FDR_FILE_HEADER_SIZE || (image[0] | image[1] << 8) < 2) {
    munmap((void *)image, size);
    return 0; /* version 1: no block lengths to read it back by */
  }
  struct xr_trace_context c = {
      .frequency_hz = xr_clock.frequency_hz,
      .base_ticks = xr_clock.start_ticks,
      .base_boottime_ns = xr_trace_boottime_at(xr_clock.start_ticks,
                                               xr_clock.frequency_hz),
      .name = crash_name,
      .thread_name = crash_thread_name,
      .process_name = crash_process_name,
      .quiet = true}; /* the caller says what happened, raw */
  writers = (struct xr_trace_writers){.n = 0, .temp = true,
                                      .log_path = snapshot};

  /* A fault in the writers (a bug, or the file cut under the mapping)
   * comes back here through the crash handler, which gives up the trace:
   * the crash goes on as without it. The fault signals are unblocked for
   * that while the writers run. (The file size limit raises no SIGXFSZ:
   * the writers' output, xr_write_all, checks it before writing.) */
  sigset_t mask, faults;
  sigemptyset(&faults);
  sigaddset(&faults, SIGSEGV);
  sigaddset(&faults, SIGBUS);
  sigaddset(&faults, SIGILL);
  sigaddset(&faults, SIGFPE);
  pthread_sigmask(SIG_BLOCK, NULL, &mask);
  int rc;
  if (sigsetjmp(fault_exit, 1) != 0) { /* the mask is restored */
    for (size_t i = 0; i < writers.n; i++)
      unlink(names[i].part); /* the writers stay open: the process ends */
    writers.n = 0;
    files[0] = 0;
    say_file(files, cap, names[0].done, false);
    rc = -1;
    errno = EFAULT;
  } else {
    sigset_t during = mask;
    for (int s = 1; s < NSIG; s++)
      if (sigismember(&faults, s))
        sigdelset(&during, s);
    pthread_sigmask(SIG_SETMASK, &during, NULL);
    guarded = 1;
    rc = open_writers(outputs, snapshot, &c, files, cap);
    XR_TEST_POINT(xr_fdr_test_crash_trace_writers, ());
    if (rc == 0)
      xr_fdr_image_to_writers(&writers, image, size,
                              (struct xr_fdr_span *)scratch, max_spans);
    int closed = close_writers(rc == 0, files, cap);
    rc = rc == 0 ? closed : -1;
    guarded = 0;
    int err = errno;
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    errno = err;
  }
  int err = errno;
  munmap((void *)image, size);
  errno = err;
  return rc;
}
