/* The names of FDR snapshots (`<base><program>.<suffix>.snap<N>`): the
 * number each new one takes, and which finished ones the trace side may read
 * (fdr_snaptrace.c). Async-signal-safe but for the control-path calls said
 * so in fdr_snapshot_names.h. */
#include "core/options/options.h"
#include "core/output/output.h"
#include "fdr/fdr_raw_text.h"
#include "fdr/fdr_snapshot_names.h"

#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static char name_prefix[PATH_MAX]; /* <base><program>.<suffix>.snap */
static uint32_t name_counter;  /* atomic: the last N handed out */
/* Which files the trace side (xr_fdr_snapshot_each_new) may read. Normal
 * snapshots run one at a time (the try-lock), so they end in number order:
 * each one up to normal_done is whole. A crash snapshot may run beside
 * them and take a number in between: crash_number names it (CRASH_TAKING
 * while it takes one), so a file a crash is writing is never read. */
static uint32_t normal_done;  /* atomic */
static uint32_t crash_number; /* atomic */
enum { CRASH_TAKING = UINT32_MAX };

void xr_fdr_snapshot_prepare(void) {
  if (name_prefix[0])
    return; /* once per process: the names keep sorting across re-inits */
  char suffix[7];
  xr_process_suffix(suffix); /* the suffix of the process's logs */
  struct text t = {name_prefix, 0, sizeof name_prefix};
  put_str(&t, xr_flags.xray_logfile_base);
  put_str(&t, xr_program_name());
  put_str(&t, ".");
  put_str(&t, suffix);
  put_str(&t, ".snap");
}

/* The counter's add is sequentially consistent: a crash's CRASH_TAKING
 * store comes before its add, so a normal snapshot numbered after it (and
 * whoever reads that snapshot's normal_done) sees it. */
int xr_fdr_snapshot_open(char *name, size_t cap, uint32_t *number, bool crash) {
  for (int tries = 0; tries < 100; tries++) {
    if (crash)
      __atomic_store_n(&crash_number, CRASH_TAKING, __ATOMIC_SEQ_CST);
    uint32_t n = __atomic_add_fetch(&name_counter, 1, __ATOMIC_SEQ_CST);
    if (crash)
      __atomic_store_n(&crash_number, n, __ATOMIC_SEQ_CST);
    struct text t = {name, 0, cap};
    put_str(&t, name_prefix);
    put_u64w(&t, n, 6);
    if (t.len + 1 >= cap) {
      errno = ENAMETOOLONG;
      return -1;
    }
    int fd;
    do
      fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    while (fd < 0 && errno == EINTR);
    if (fd >= 0) {
      *number = n;
      return fd;
    }
    if (errno != EEXIST)
      return -1;
  }
  errno = EEXIST;
  return -1;
}

static uint32_t names_visited; /* xr_fdr_snapshot_each_new's last N */

void xr_fdr_snapshot_each_new(void (*fn)(const char *path)) {
  uint32_t last = __atomic_load_n(&normal_done, __ATOMIC_ACQUIRE);
  char name[PATH_MAX];
  for (uint32_t n = names_visited + 1; n <= last; n++) {
    uint32_t crash = __atomic_load_n(&crash_number, __ATOMIC_SEQ_CST);
    if (crash == CRASH_TAKING)
      break; /* maybe n, maybe not yet whole: the next call looks again */
    names_visited = n;
    if (n == crash)
      continue; /* the last crash's file: none (it may still be written) */
    struct text t = {name, 0, sizeof name};
    put_str(&t, name_prefix);
    put_u64w(&t, n, 6);
    if (t.len + 1 < sizeof name && access(name, F_OK) == 0)
      fn(name); /* numbers whose open failed have no file */
  }
}

void xr_fdr_snapshot_names_fork_child(void) {
  /* The child's snapshots get names of its own (a new suffix, from 000001):
   * the parent's trace side never reads them, nor the child's the parent's. */
  name_prefix[0] = 0;
  __atomic_store_n(&name_counter, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&normal_done, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&crash_number, 0, __ATOMIC_RELAXED);
  names_visited = 0;
  xr_fdr_snapshot_prepare();
}

void xr_fdr_snapshot_names_done(uint32_t number) {
  __atomic_store_n(&normal_done, number, __ATOMIC_RELEASE);
}
