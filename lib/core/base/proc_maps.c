/* /proc/self/maps, one mapping at a time. See proc_maps.h. Each line is
 * "start-end perms offset dev inode [path]", numbers in hex but the inode. */
#include "core/base/proc_maps.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint64_t hex(const char **s) {
  uint64_t v = 0;
  for (;; (*s)++) {
    char c = **s;
    unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                 : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                                        : 16u;
    if (d == 16)
      return v;
    v = v * 16 + d;
  }
}

static const char *skip_field(const char *s) {
  while (*s == ' ')
    s++;
  while (*s != ' ' && *s != '\0')
    s++;
  return s;
}

/* False for a line that is not a mapping. */
static bool parse(const char *s, struct xr_maps_entry *e) {
  e->start = (uintptr_t)hex(&s);
  if (*s++ != '-')
    return false;
  e->end = (uintptr_t)hex(&s);
  if (*s++ != ' ' || strlen(s) < 5)
    return false;
  e->prot = (s[0] == 'r' ? PROT_READ : 0) | (s[1] == 'w' ? PROT_WRITE : 0) |
            (s[2] == 'x' ? PROT_EXEC : 0);
  s += 4;
  if (*s++ != ' ')
    return false;
  e->offset = hex(&s);
  s = skip_field(skip_field(s)); /* dev, inode */
  while (*s == ' ')
    s++;
  e->path = s;
  return true;
}

int xr_maps_each(int (*fn)(const struct xr_maps_entry *e, void *ctx), void *ctx) {
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  char buf[PATH_MAX + 256];
  size_t have = 0;
  bool skipping = false; /* the rest of an over-long line */
  int rc = 0;
  while (rc == 0) {
    ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    have += (size_t)n;
    buf[have] = '\0';
    char *line = buf, *nl;
    while (rc == 0 && (nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
      *nl = '\0';
      struct xr_maps_entry e;
      if (!skipping && parse(line, &e))
        rc = fn(&e, ctx);
      skipping = false;
      line = nl + 1;
    }
    have -= (size_t)(line - buf);
    memmove(buf, line, have);
    if (have == sizeof buf - 1) { /* longer than Linux writes: skip it */
      have = 0;
      skipping = true;
    }
  }
  close(fd);
  return rc;
}

/* Room left free above the heap and below the stack, which grow there. */
#define GROWTH_ROOM ((uintptr_t)64 << 20)

/* The gaps between mappings, in address order: the last mapping's end and
 * whether it is the heap, carried to the next mapping. */
struct free_search {
  uintptr_t lo, hi, near, size, best, best_distance;
  uintptr_t prev_end;
  bool prev_heap;
};

static int free_gap(const struct xr_maps_entry *e, void *arg) {
  struct free_search *q = arg;
  uintptr_t a = q->prev_end + (q->prev_heap ? GROWTH_ROOM : 0);
  uintptr_t b = strcmp(e->path, "[stack]") != 0 ? e->start
                : e->start > GROWTH_ROOM      ? e->start - GROWTH_ROOM
                                              : 0;
  a = a > q->lo ? a : q->lo;
  b = b < q->hi ? b : q->hi;
  q->prev_end = e->end;
  q->prev_heap = strcmp(e->path, "[heap]") == 0;
  if (a >= b || b - a < q->size)
    return 0;
  uintptr_t at = b <= q->near ? b - q->size : a; /* the gap's end nearest to `near` */
  uintptr_t distance = at > q->near ? at - q->near : q->near - at;
  if (q->best == 0 || distance < q->best_distance) {
    q->best = at;
    q->best_distance = distance;
  }
  return 0;
}

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000 /* Linux 4.17; older libcs lack the name */
#endif

void *xr_maps_map_near(uintptr_t lo, uintptr_t hi, uintptr_t near, size_t size) {
  for (int tries = 0; tries < 4 && size != 0; tries++) {
    struct free_search q = {lo, hi, near, size, 0, 0, 0, false};
    if (xr_maps_each(free_gap, &q) != 0 || q.best == 0)
      return NULL;
    void *p = mmap((void *)q.best, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == (void *)q.best)
      return p;
    if (p != MAP_FAILED)
      munmap(p, size); /* a kernel before 4.17 took the address as a hint */
    else if (errno != EEXIST)
      return NULL;
  }
  return NULL;
}
