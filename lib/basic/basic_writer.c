/* Basic mode's log file: a 32-byte header (version 3, type 0) followed by
 * 32-byte records, whole thread buffers appended under one lock; and the
 * recording switch (xr_basic_epoch), which a write failure turns off here
 * without calling back into basic_mode.c.
 *
 * The file is opened at the first append, so a run that records nothing
 * leaves no file, and the header is never the only thing in it (llvm-xray
 * rejects such files). Failures (unwritable directory, full disk,
 * RLIMIT_FSIZE) are reported once, the file is cut back to whole records (or
 * removed if nothing but the header would remain), and recording stops; the
 * program carries on. RLIMIT_FSIZE is checked before writing so the kernel
 * never raises SIGXFSZ on the program's behalf. */
#include "basic/basic_internal.h"
#include "core/lock.h"
#include "core/output.h"
#include "core/report.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define RECORD_SIZE sizeof(struct xr_basic_record)
#define HEADER_SIZE sizeof(struct xr_file_header)

static struct {
  xr_lock lock;
  int fd;            /* -1 until the first append */
  bool failed;       /* a write failed: drop everything until reset */
  uint64_t size;     /* bytes in the file, always header + whole records */
  uint64_t records;  /* records in the file */
  /* The appended chunk whose first record is the earliest of the file
   * (each chunk is one thread's records in time order, so its first record
   * is its earliest). */
  uint64_t earliest_tsc, earliest_offset, earliest_bytes;
  char path[1024];
} writer = {{0}, -1, false, 0, 0, 0, 0, 0, ""};

/* Bytes the file may still grow by under RLIMIT_FSIZE (UINT64_MAX: no limit). */
static uint64_t room_under_limit(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return UINT64_MAX;
  return rl.rlim_cur > writer.size ? rl.rlim_cur - writer.size : 0;
}

/* Called with the lock held: stop for good, leaving a readable file. */
volatile uint32_t xr_basic_epoch = 1;

void xr_basic_stop_recording(void) {
  __atomic_or_fetch(&xr_basic_epoch, 1u, __ATOMIC_SEQ_CST);
}

static void fail(const char *what, int err) {
  writer.failed = true;
  const char *sep = writer.path[0] ? " " : "";
  if (err != 0)
    xr_report(XR_ERROR, "basic mode: %s%s%s: %s; recording stopped", what, sep,
              writer.path, strerror(err));
  else
    xr_report(XR_ERROR, "basic mode: %s%s%s; recording stopped", what, sep,
              writer.path);
  if (writer.fd >= 0) {
    if (writer.records == 0) {
      unlink(writer.path); /* a header-only file is unreadable: remove it */
      writer.path[0] = '\0';
    } else if (ftruncate(writer.fd, (off_t)writer.size) != 0) {
      /* nothing more to do: the report above says the log is cut short */
    }
    close(writer.fd);
    writer.fd = -1;
  }
  xr_basic_stop_recording();
}

static int open_file(void) {
  int fd = xr_open_log_file(writer.path, sizeof(writer.path));
  if (fd < 0) {
    writer.path[0] = '\0';
    fail("cannot create the log file (see above)", 0);
    return -1;
  }
  writer.fd = fd;
  writer.size = 0;
  writer.records = 0;
  struct xr_file_header h;
  xr_file_header_init(&h, 3, 0);
  if (room_under_limit() < HEADER_SIZE + RECORD_SIZE) {
    fail("file size limit (RLIMIT_FSIZE) leaves no room for", 0);
    return -1;
  }
  if (xr_write_all(fd, &h, sizeof(h)) != 0) {
    fail("cannot write", errno);
    return -1;
  }
  writer.size = HEADER_SIZE;
  return 0;
}

int xr_basic_writer_append(const struct xr_basic_record *records,
                           size_t count) {
  if (count == 0)
    return 0;
  int rc = -1;
  xr_lock_take(&writer.lock);
  if (writer.failed)
    goto out;
  if (writer.fd < 0 && open_file() != 0)
    goto out;
  size_t fit = count;
  uint64_t room = room_under_limit();
  if (room / RECORD_SIZE < fit)
    fit = (size_t)(room / RECORD_SIZE);
  if (fit > 0 && xr_write_all(writer.fd, records, fit * RECORD_SIZE) != 0) {
    fail("cannot write", errno);
    goto out;
  }
  if (fit > 0 && (writer.records == 0 || records[0].w[1] < writer.earliest_tsc)) {
    writer.earliest_tsc = records[0].w[1];
    writer.earliest_offset = writer.size;
    writer.earliest_bytes = fit * RECORD_SIZE;
  }
  writer.size += fit * RECORD_SIZE;
  writer.records += fit;
  if (fit < count) {
    fail("file size limit (RLIMIT_FSIZE) reached in", 0);
    goto out;
  }
  rc = 0;
out:
  xr_lock_release(&writer.lock);
  return rc;
}

/* Copies [off, off + n) of `in` to the end of `out`. */
static int copy_range(int in, int out, uint64_t off, uint64_t n) {
  char buf[65536];
  while (n > 0) {
    size_t k = n < sizeof buf ? (size_t)n : sizeof buf;
    ssize_t got = pread(in, buf, k, (off_t)off);
    if (got <= 0) {
      if (got < 0 && errno == EINTR)
        continue;
      if (got == 0)
        errno = EIO;
      return -1;
    }
    if (xr_write_all(out, buf, (size_t)got) != 0)
      return -1;
    off += (uint64_t)got;
    n -= (uint64_t)got;
  }
  return 0;
}

/* llvm-xray account rejects every record earlier than the first it reads
 * (docs/formats.md), and reads a basic log in file order: the chunk that
 * holds the earliest record must come first. Called with the lock held and
 * the file complete. Rewrites it as header, that chunk, the chunks before
 * it, the rest, into a sibling file renamed over the log, so the log is
 * never seen half moved; on failure the log stays as it was. Each thread's
 * chunks keep their order (the moved chunk is its thread's first). */
static void put_earliest_first(void) {
  if (writer.earliest_offset <= HEADER_SIZE || writer.records == 0)
    return;
  int in = open(writer.path, O_RDONLY | O_CLOEXEC);
  if (in < 0) {
    xr_report(XR_ERROR, "basic mode: cannot read %s back (%s); llvm-xray "
              "account may reject the log", writer.path, strerror(errno));
    return;
  }
  char tmp[1024 + 8];
  int out = xr_open_sibling_file(writer.path, ".order", tmp, sizeof tmp);
  if (out < 0) {
    close(in);
    return; /* reported */
  }
  uint64_t off = writer.earliest_offset, n = writer.earliest_bytes;
  int rc = copy_range(in, out, 0, HEADER_SIZE);
  if (rc == 0)
    rc = copy_range(in, out, off, n);
  if (rc == 0)
    rc = copy_range(in, out, HEADER_SIZE, off - HEADER_SIZE);
  if (rc == 0)
    rc = copy_range(in, out, off + n, writer.size - off - n);
  int err = errno;
  if (close(out) != 0 && rc == 0) {
    rc = -1;
    err = errno;
  }
  if (rc == 0 && rename(tmp, writer.path) != 0) {
    rc = -1;
    err = errno;
  }
  if (rc != 0) {
    xr_report(XR_ERROR, "basic mode: cannot put the earliest records of %s "
              "first (%s); llvm-xray account may reject the log",
              writer.path, strerror(err));
    unlink(tmp);
  }
  close(in);
}

void xr_basic_writer_close(void) {
  xr_lock_take(&writer.lock);
  if (writer.fd >= 0 && !writer.failed)
    put_earliest_first();
  if (writer.fd >= 0) {
    if (close(writer.fd) != 0 && !writer.failed)
      xr_report(XR_ERROR, "basic mode: cannot close %s: %s", writer.path,
                strerror(errno));
    writer.fd = -1;
  }
  xr_lock_release(&writer.lock);
}

void xr_basic_writer_reset(void) {
  xr_lock_take(&writer.lock);
  writer.failed = false;
  writer.path[0] = '\0';
  writer.records = 0;
  writer.size = 0;
  xr_lock_release(&writer.lock);
}

void xr_basic_writer_after_fork(void) {
  xr_lock_after_fork(&writer.lock);
  if (writer.fd >= 0)
    close(writer.fd); /* the parent's file: the child writes its own */
  writer.fd = -1;
  writer.path[0] = '\0';
  writer.size = 0;
  writer.records = 0;
}

uint64_t xr_basic_writer_records(void) { return writer.records; }
const char *xr_basic_writer_path(void) { return writer.path; }
