/* Log files: program name, exclusive creation, complete writes, header.
 *
 * Names follow compiler-rt: `<xray_logfile_base><program>.XXXXXX`, where the
 * base is a plain prefix ("xray-log." by default, "out/run-" works too) and
 * XXXXXX are six random letters/digits, here one set per process (see
 * xr_process_suffix). Files are created with O_CREAT|O_EXCL, mode 0600,
 * retrying the next name on EEXIST. */
#include "core/output/output.h"
#include "core/output/text_out.h"
#include "core/base/report.h"
#include "core/clock/clock.h"
#include "core/options/options.h"
#include "core/output/written_files.h"
#include "core/thread/thread.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The name is copied once, at start: a program may rewrite its argv memory
 * later to set a process title ("server: worker 3"), and every file of
 * the run must carry the same name. */
static char program_name[256];
static pthread_once_t name_once = PTHREAD_ONCE_INIT;

static void set_from(const char *full) {
  const char *slash = strrchr(full, '/');
  const char *base = slash ? slash + 1 : full;
  if (!*base)
    base = "unknown";
  snprintf(program_name, sizeof program_name, "%s", base);
}

/* Without argv (a libc that does not pass it to .preinit_array): argv[0] is
 * the first NUL-terminated string of /proc/self/cmdline, read at start. */
static void from_cmdline(void) {
  if (program_name[0])
    return;
  char cmdline[sizeof program_name];
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read(fd, cmdline, sizeof cmdline - 1) : -1;
  if (fd >= 0)
    close(fd);
  cmdline[n > 0 ? n : 0] = 0;
  set_from(cmdline);
}

void xr_set_argv0(const char *a) {
  if (a && *a)
    set_from(a);
}

const char *xr_program_name(void) {
  pthread_once(&name_once, from_cmdline);
  return program_name;
}

/* One suffix per process: six letters/digits that every file of the
 * process carries (its logs, their siblings, the FDR snapshots), so they
 * sort together; a fork child gets its own. Packed with the pid it belongs
 * to in one word (36^6 < 2^32, pids < 2^31), so the first caller in a
 * process, whichever thread, publishes it once with a CAS; async-signal-
 * safe. The letters come from a splitmix64 stream seeded by the tick counter
 * and the pid: unpredictable enough for names; O_EXCL guarantees safety. */
static const char suffix_alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
enum { SUFFIX_BASE = sizeof suffix_alphabet - 1 };
static uint64_t suffix_word; /* atomic: pid << 32 | suffix number */

void xr_process_suffix(char out[7]) {
  uint64_t pid = (uint64_t)(uint32_t)getpid();
  uint64_t w = __atomic_load_n(&suffix_word, __ATOMIC_ACQUIRE);
  if (w >> 32 != pid) {
    uint64_t x = xr_arch_ticks() ^ (pid << 32);
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    uint64_t mine = pid << 32 | (x % 2176782336u); /* 36^6 */
    if (__atomic_compare_exchange_n(&suffix_word, &w, mine, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ||
        w >> 32 != pid)
      w = mine; /* ours, or a parent's word in a child racing: still ours */
  }
  uint32_t n = (uint32_t)w;
  for (int i = 0; i < 6; i++) {
    out[i] = suffix_alphabet[n % SUFFIX_BASE];
    n /= SUFFIX_BASE;
  }
  out[6] = 0;
}

enum { XR_NAME_TRIES = 100 };

/* Log files of this process so far: the first is `<suffix>`, the next
 * (a new init/flush cycle) `<suffix>-2`, and so on. */
static uint64_t logs_word; /* atomic: pid << 32 | count */

static uint32_t next_log_number(void) {
  uint64_t pid = (uint64_t)(uint32_t)getpid();
  uint64_t w = __atomic_load_n(&logs_word, __ATOMIC_RELAXED);
  for (;;) {
    uint64_t next = w >> 32 == pid ? w + 1 : (pid << 32 | 1);
    if (__atomic_compare_exchange_n(&logs_word, &w, next, false,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      return (uint32_t)next;
  }
}

int xr_open_log_file(char *path, size_t cap) {
  const char *base = xr_flags.xray_logfile_base;
  const char *program = xr_program_name();
  char suffix[7];
  xr_process_suffix(suffix);
  int n = snprintf(path, cap, "%s%s.%s-%u", base, program, suffix,
                   (unsigned)UINT32_MAX);
  if (n < 0 || (size_t)n >= cap) {
    xr_report(XR_ERROR,
              "log file name too long ('%s' + '%s' + 18 bytes, at most %zu); "
              "not logging events. Use a shorter xray_logfile_base.",
              base, program, cap ? cap - 1 : 0);
    if (cap)
      path[0] = 0;
    return -1;
  }
  for (int i = 0; i < XR_NAME_TRIES; i++) {
    uint32_t k = next_log_number();
    if (k == 1)
      snprintf(path, cap, "%s%s.%s", base, program, suffix);
    else
      snprintf(path, cap, "%s%s.%s-%u", base, program, suffix, (unsigned)k);
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

void xr_file_header_init(struct xr_file_header *h, uint16_t version,
                         uint16_t type) {
  xr_clock_init();
  memset(h, 0, sizeof *h);
  h->version = version;
  h->type = type;
  h->flags = (xr_clock.constant_tsc ? 1u : 0u) | (xr_clock.nonstop_tsc ? 2u : 0u);
  h->cycle_frequency = xr_clock.frequency_hz;
  xr_file_header_stamp(h->free_form + (XR_FILE_HEADER_STAMP_AT - 16));
}
