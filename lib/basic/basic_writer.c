/* Basic mode's log file: a 32-byte header (version 3, type 0) followed by
 * 32-byte records, whole thread buffers appended under one lock; and the
 * recording switch (xr_basic_epoch), which a write failure turns off here
 * without calling back into basic_mode.c.
 *
 * The file is created when the mode starts (xr_basic_writer_open, from init:
 * "Log file in '<path>'" at verbosity >= 1, when compiler-rt says it), so
 * whether and when it is created never depends on how long calls take. It
 * stays empty until the first append, which writes the header before the
 * records: a process killed before it leaves an empty file, never a
 * header-only one. A run that recorded nothing ends with the file removed
 * (said at verbosity >= 1): llvm-xray rejects a file with only a header.
 *
 * fork: the child keeps the parent's descriptor and appends to the same file,
 * as compiler-rt's does; records carry their pid. The file is opened with
 * O_APPEND and every append is one write(2) of whole records, which the
 * kernel places at the end of the file as a unit, so parent and child never
 * interleave inside a record. Only the process that created the file removes
 * it, and only while it holds no record (its real size, not our count, since
 * a child may have appended); a child that finds the file removed after its
 * append (the parent ended empty just before) writes a file of its own.
 *
 * Failures (unwritable directory, full disk, RLIMIT_FSIZE) are reported
 * once, the file is cut back to whole records (or removed if nothing but the
 * header would remain), and recording stops; the program carries on.
 * RLIMIT_FSIZE is checked before writing so the kernel never raises SIGXFSZ
 * on the program's behalf. */
#include "basic/basic_writer.h"
#include "basic/basic_records.h"
#include "core/base/report.h"
#include "core/output/output.h"
#include "core/output/text_out.h"
#include "core/thread/lock.h"

#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define RECORD_SIZE sizeof(struct xr_basic_record)
#define HEADER_SIZE sizeof(struct xr_file_header)

static struct {
  xr_lock lock;
  int fd;            /* -1 until opened */
  bool failed;       /* a write failed: drop everything until reset */
  bool inherited;    /* a fork child writing to its parent's file */
  bool shared;       /* a fork happened while open: another process appends */
  bool has_header;   /* the header is in the file (ours or a fork relative's) */
  uint64_t size;     /* bytes this process put in the file (header included) */
  uint64_t records;  /* records this process wrote */
  /* The appended chunk whose first record is the earliest of the file
   * (each chunk is one thread's records in time order, so its first record
   * is its earliest). */
  uint64_t earliest_tsc, earliest_offset, earliest_bytes;
  char path[PATH_MAX];
} writer = {{0}, -1, false, false, false, false, 0, 0, 0, 0, 0, ""};

/* Every change of writer.fd, made under the lock: relaxed atomic, because
 * xr_basic_writer_before_fork reads it without the lock (a fork while
 * another thread flushes). */
static void set_fd(int fd) {
  __atomic_store_n(&writer.fd, fd, __ATOMIC_RELAXED);
}

/* The file's real size: after a fork, two processes append to it. */
static uint64_t file_size(void) {
  struct stat st;
  if (writer.fd >= 0 && fstat(writer.fd, &st) == 0)
    return (uint64_t)st.st_size;
  return writer.size;
}

/* Bytes the file may still grow by under RLIMIT_FSIZE (UINT64_MAX: no limit). */
static uint64_t room_under_limit(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return UINT64_MAX;
  uint64_t size = file_size();
  return rl.rlim_cur > size ? rl.rlim_cur - size : 0;
}

volatile uint32_t xr_basic_epoch = 1;

void xr_basic_stop_recording(void) {
  __atomic_or_fetch(&xr_basic_epoch, 1u, __ATOMIC_SEQ_CST);
}

/* Called with the lock held: stop for good, leaving a readable file. */
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
    /* Alone with the file: cut back to what we know we wrote whole. Shared
     * with a fork parent or child: cut only a torn record at the end. */
    uint64_t keep = writer.size;
    bool shared = __atomic_load_n(&writer.shared, __ATOMIC_RELAXED);
    if (shared) {
      uint64_t size = file_size();
      keep = size < HEADER_SIZE
                 ? size
                 : HEADER_SIZE + (size - HEADER_SIZE) / RECORD_SIZE * RECORD_SIZE;
    }
    bool empty = shared ? file_size() <= HEADER_SIZE : writer.records == 0;
    if (!writer.inherited && empty) {
      unlink(writer.path); /* a header-only file is unreadable: remove it */
      writer.path[0] = '\0';
    } else if (ftruncate(writer.fd, (off_t)keep) != 0) {
      /* nothing more to do: the report above says the log is cut short */
    }
    close(writer.fd);
    set_fd(-1);
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
  set_fd(fd);
  writer.inherited = false;
  writer.shared = false;
  writer.has_header = false;
  writer.size = 0;
  writer.records = 0;
  /* O_APPEND: a fork child's appends and ours each land whole at the end. */
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_APPEND) != 0) {
    fail("cannot set O_APPEND on", errno);
    return -1;
  }
  if (room_under_limit() < HEADER_SIZE + RECORD_SIZE) {
    fail("file size limit (RLIMIT_FSIZE) leaves no room for", 0);
    return -1;
  }
  return 0;
}

/* Writes the header if the file has none yet, before the first records.
 * Once per file and process. A fork parent and child may both find the
 * file empty (a fork can come at any moment, even during this), so the
 * check and the write are made under a POSIX record lock, which excludes
 * other processes (it is per process, unlike flock's, which a fork child
 * shares); if locking is not supported the check still runs unlocked.
 * Called with the writer's lock held. */
static int ensure_header(void) {
  if (writer.has_header)
    return 0;
  struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 1};
  int rc;
  while ((rc = fcntl(writer.fd, F_SETLKW, &fl)) != 0 && errno == EINTR) {
  }
  bool locked = rc == 0;
  const char *what = NULL;
  int err = 0;
  if (file_size() == 0) {
    struct xr_file_header h;
    xr_file_header_init(&h, 3, 0);
    if (room_under_limit() < HEADER_SIZE + RECORD_SIZE)
      what = "file size limit (RLIMIT_FSIZE) leaves no room for";
    else if (xr_write_all(writer.fd, &h, sizeof(h)) != 0)
      what = "cannot write", err = errno;
    else
      writer.size += HEADER_SIZE;
  }
  if (locked) {
    fl.l_type = F_UNLCK;
    fcntl(writer.fd, F_SETLK, &fl);
  }
  if (what != NULL) {
    fail(what, err);
    return -1;
  }
  writer.has_header = true;
  return 0;
}

int xr_basic_writer_open(void) {
  xr_lock_take(&writer.lock);
  int rc = writer.failed ? -1 : writer.fd >= 0 ? 0 : open_file();
  xr_lock_release(&writer.lock);
  return rc;
}

/* A fork child whose parent removed the (then header-only) file: it was
 * unlinked before or while we appended. Returns true when fd's file has no
 * name left. */
static bool file_was_removed(void) {
  struct stat st;
  return writer.inherited && fstat(writer.fd, &st) == 0 && st.st_nlink == 0;
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
  for (int attempt = 0;; attempt++) {
    if (ensure_header() != 0)
      goto out;
    size_t fit = count;
    uint64_t room = room_under_limit();
    if (room / RECORD_SIZE < fit)
      fit = (size_t)(room / RECORD_SIZE);
    if (fit > 0 && xr_write_all(writer.fd, records, fit * RECORD_SIZE) != 0) {
      fail("cannot write", errno);
      goto out;
    }
    if (attempt == 0 && fit > 0 && file_was_removed()) {
      /* Our records went to a removed file: write them to a new one. */
      close(writer.fd);
      set_fd(-1);
      if (open_file() != 0)
        goto out;
      continue;
    }
    if (fit > 0 &&
        (writer.records == 0 || records[0].w[1] < writer.earliest_tsc)) {
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
    break;
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
  /* Shared with a fork parent or child: the other appends to this inode
   * (a rename would lose its later records) and our offsets do not count
   * its records. Left in append order. */
  if (__atomic_load_n(&writer.shared, __ATOMIC_RELAXED))
    return;
  int in = open(writer.path, O_RDONLY | O_CLOEXEC);
  if (in < 0) {
    xr_report(XR_ERROR, "basic mode: cannot read %s back (%s); llvm-xray "
              "account may reject the log", writer.path, strerror(errno));
    return;
  }
  char tmp[1024 + 8];
  int out = xr_open_sibling_temp(writer.path, ".order", tmp, sizeof tmp);
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
  if (writer.fd >= 0 && !writer.failed && file_size() > HEADER_SIZE)
    put_earliest_first();
  if (writer.fd >= 0) {
    /* Created here and still without a record (ours or a fork child's):
     * remove it, llvm-xray cannot read a header-only file. */
    if (!writer.inherited && !writer.failed && file_size() <= HEADER_SIZE) {
      if (unlink(writer.path) == 0)
        xr_report(XR_INFO, "basic mode: removed '%s': no record was written "
                  "(llvm-xray cannot read a log without records)",
                  writer.path);
      writer.path[0] = '\0';
    }
    if (close(writer.fd) != 0 && !writer.failed)
      xr_report(XR_ERROR, "basic mode: cannot close %s: %s", writer.path,
                strerror(errno));
    set_fd(-1);
  }
  xr_lock_release(&writer.lock);
}

void xr_basic_writer_reset(void) {
  xr_lock_take(&writer.lock);
  writer.failed = false;
  writer.inherited = false;
  writer.shared = false;
  writer.path[0] = '\0';
  writer.records = 0;
  writer.size = 0;
  xr_lock_release(&writer.lock);
}

void xr_basic_writer_before_fork(void) {
  if (__atomic_load_n(&writer.fd, __ATOMIC_RELAXED) >= 0)
    __atomic_store_n(&writer.shared, true, __ATOMIC_RELAXED); /* lock-free: */
  /* the forking thread may hold nothing, or be a signal handler */
}

void xr_basic_writer_after_fork(void) {
  xr_lock_after_fork(&writer.lock); /* its holder does not exist here */
  /* Keep the parent's descriptor: the child appends to the same file. */
  writer.inherited = writer.fd >= 0;
  writer.shared = writer.fd >= 0;
  writer.size = 0;
  writer.records = 0;
}

void xr_basic_writer_forget(void) {
  if (writer.fd >= 0)
    close(writer.fd); /* our copy only: the file stays the parent's */
  set_fd(-1);
  writer.path[0] = '\0';
  writer.size = 0;
  writer.records = 0;
}

uint64_t xr_basic_writer_records(void) { return writer.records; }

uint64_t xr_basic_writer_records_locked(void) {
  xr_lock_take(&writer.lock);
  uint64_t n = writer.records;
  xr_lock_release(&writer.lock);
  return n;
}
const char *xr_basic_writer_path(void) { return writer.path; }
