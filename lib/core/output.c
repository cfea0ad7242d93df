/* Log files: program name, exclusive creation, complete writes, header.
 *
 * Names follow compiler-rt: `<xray_logfile_base><program>.XXXXXX`, where the
 * base is a plain prefix ("xray-log." by default, "out/run-" works too) and
 * XXXXXX are six random letters/digits. Files are created with
 * O_CREAT|O_EXCL, mode 0600, retrying another name on EEXIST. */
#include "output.h"
#include "clock.h"
#include "options.h"
#include "report.h"
#include "thread.h"
#include "written_files.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static const char *argv0;
static char program_name[256];
static pthread_once_t name_once = PTHREAD_ONCE_INIT;

void xr_set_argv0(const char *a) { argv0 = a; }

static void decide_program_name(void) {
  char cmdline[sizeof program_name];
  const char *full = argv0;
  if (!full || !*full) {
    /* argv[0] is the first NUL-terminated string of /proc/self/cmdline. */
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, cmdline, sizeof cmdline - 1) : -1;
    if (fd >= 0)
      close(fd);
    cmdline[n > 0 ? n : 0] = 0;
    full = cmdline;
  }
  const char *slash = strrchr(full, '/');
  const char *base = slash ? slash + 1 : full;
  if (!*base)
    base = "unknown";
  snprintf(program_name, sizeof program_name, "%s", base);
}

const char *xr_program_name(void) {
  pthread_once(&name_once, decide_program_name);
  return program_name;
}

/* Six name characters from a splitmix64 stream seeded by the TSC, the pid
 * and a counter: unpredictable enough for names; O_EXCL guarantees safety. */
static void random_suffix(char out[6]) {
  static const char alphabet[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  static uint64_t counter;
  uint64_t x = xr_arch_ticks() ^ ((uint64_t)xr_pid() << 32) ^
               __atomic_add_fetch(&counter, 0x9e3779b97f4a7c15ull,
                                  __ATOMIC_RELAXED);
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  for (int i = 0; i < 6; i++) {
    out[i] = alphabet[x % (sizeof alphabet - 1)];
    x /= sizeof alphabet - 1;
  }
}

enum { XR_NAME_TRIES = 100 };

int xr_open_log_file(char *path, size_t cap) {
  const char *base = xr_flags.xray_logfile_base;
  const char *program = xr_program_name();
  int n = snprintf(path, cap, "%s%s.XXXXXX", base, program);
  if (n < 0 || (size_t)n >= cap) {
    xr_report(XR_ERROR,
              "log file name too long ('%s' + '%s' + 7 bytes, at most %zu); "
              "not logging events. Use a shorter xray_logfile_base.",
              base, program, cap ? cap - 1 : 0);
    if (cap)
      path[0] = 0;
    return -1;
  }
  char *x = path + n - 6;
  for (int i = 0; i < XR_NAME_TRIES; i++) {
    random_suffix(x);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
      xr_written_note(path);
      xr_report(XR_INFO, "Log file in '%s'", path);
      return fd;
    }
    if (errno == EEXIST)
      continue;
    if (errno == EINTR) {
      i--; /* not a collision: try the same budget again */
      continue;
    }
    xr_report(XR_ERROR, "Failed to create log file '%s': %s; not logging "
              "events", path, strerror(errno));
    return -1;
  }
  xr_report(XR_ERROR, "Failed to create log file '%s': %d names taken; not "
            "logging events", path, XR_NAME_TRIES);
  return -1;
}

static int open_sibling(const char *path, const char *suffix, char *out,
                        size_t cap, bool announce) {
  int n = snprintf(out, cap, "%s%s", path, suffix);
  if (n < 0 || (size_t)n >= cap) {
    xr_report(XR_ERROR, "file name '%s%s' too long (at most %zu bytes)", path,
              suffix, cap ? cap - 1 : 0);
    if (cap)
      out[0] = 0;
    return -1;
  }
  int fd;
  do
    fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    xr_report(XR_ERROR, "Failed to create file '%s': %s", out,
              strerror(errno));
    return -1;
  }
  if (announce) {
    xr_written_note(out);
    xr_report(XR_INFO, "File in '%s'", out);
  }
  return fd;
}

int xr_open_sibling_file(const char *path, const char *suffix, char *out,
                         size_t cap) {
  return open_sibling(path, suffix, out, cap, true);
}

int xr_open_sibling_temp(const char *path, const char *suffix, char *out,
                         size_t cap) {
  return open_sibling(path, suffix, out, cap, false);
}

/* True when writing n more bytes at fd's offset would cross RLIMIT_FSIZE:
 * the kernel would raise SIGXFSZ, which kills the program by default. A
 * pipe or socket (no offset) has no such limit. */
static bool beyond_size_limit(int fd, size_t n) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return false;
  off_t at = lseek(fd, 0, SEEK_CUR);
  return at >= 0 && (uint64_t)at + n > (uint64_t)rl.rlim_cur;
}

int xr_write_all(int fd, const void *buf, size_t n) {
  if (beyond_size_limit(fd, n)) {
    errno = EFBIG; /* said by the caller, as for a full disk */
    return -1;
  }
  const char *p = buf;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    if (w == 0) {
      errno = EIO; /* no progress on a regular file or pipe: give up */
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

void xr_file_header_init(struct xr_file_header *h, uint16_t version,
                         uint16_t type) {
  xr_clock_init();
  memset(h, 0, sizeof *h);
  h->version = version;
  h->type = type;
  h->flags = (xr_clock.constant_tsc ? 1u : 0u) | (xr_clock.nonstop_tsc ? 2u : 0u);
  h->cycle_frequency = xr_clock.frequency_hz;
}
