/* The ring of created files (written_files.h). Each slot carries the
 * sequence number of its note times two, plus one while it is being
 * written (a seqlock): a reader that sees the same even value before and
 * after copying has a whole path. Writers take distinct slots by a
 * fetch-add; two writers reach the same slot only after XR_WRITTEN_RING more
 * notes, and the reader then sees a changed sequence and gives up. */
#include "core/output/written_files.h"

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct slot {
  uint64_t seq; /* 2 * (note + 1), odd while written; 0: never used */
  char path[XR_WRITTEN_PATH_MAX];
};

static struct slot ring[XR_WRITTEN_RING];
static uint64_t next_note;

void xr_written_note(const char *path) {
  uint64_t n = __atomic_fetch_add(&next_note, 1, __ATOMIC_RELAXED);
  struct slot *s = &ring[n % XR_WRITTEN_RING];
  __atomic_store_n(&s->seq, 2 * (n + 1) - 1, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  char buf[XR_WRITTEN_PATH_MAX];
  size_t at = 0, len = strlen(path);
  if (path[0] != '/') {
    /* The raw system call: glibc's getcwd may allocate, this one does not,
     * so a signal handler can note. */
    long got = syscall(SYS_getcwd, buf, sizeof buf - 1);
    if (got > 0 && buf[0] == '/') {
      at = strlen(buf);
      if (at > 1 && at < sizeof buf - 1)
        buf[at++] = '/';
    }
  }
  if (len > sizeof buf - 1 - at)
    len = sizeof buf - 1 - at;
  memcpy(buf + at, path, len);
  buf[at + len] = '\0';
  for (size_t i = 0; i <= at + len; i++) /* atomic bytes: readers race */
    __atomic_store_n(&s->path[i], buf[i], __ATOMIC_RELAXED);
  __atomic_store_n(&s->seq, 2 * (n + 1), __ATOMIC_RELEASE);
}

uint64_t xr_written_count(void) {
  return __atomic_load_n(&next_note, __ATOMIC_ACQUIRE);
}

bool xr_written_get(uint64_t seq, char *out, size_t cap) {
  if (cap == 0)
    return false;
  const struct slot *s = &ring[seq % XR_WRITTEN_RING];
  uint64_t want = 2 * (seq + 1);
  if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != want)
    return false;
  size_t i = 0;
  for (; i < cap - 1 && i < XR_WRITTEN_PATH_MAX; i++) {
    out[i] = __atomic_load_n(&s->path[i], __ATOMIC_RELAXED);
    if (out[i] == '\0')
      break;
  }
  out[i < cap ? i : cap - 1] = '\0';
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  return __atomic_load_n(&s->seq, __ATOMIC_RELAXED) == want;
}
