/* The sidecar `<log>.map` beside a basic or FDR log of a process that
 * registered shared objects: every object (id, state, load address, build
 * id, dense id base, path) and every function of every object with its
 * name under the id the log holds (packed; dense in an FDR log), so that
 * traces across objects can be read (llvm-xray's
 * -instr_map knows only the executable). Format: docs/formats.md.
 *
 * FDR snapshots need the same map from signal and crash handlers, where
 * names cannot be looked up (they allocate and lock): while a dense mode
 * records, the map's lines are rendered on the cold path (recording starts,
 * an object registers or goes) into a mapping of their own, and a snapshot
 * writes those bytes behind a header of its own with system calls only. */
#include "core/objects/objects.h"

#include "core/base/report.h"
#include "core/names/names.h"
#include "core/names/object_map.h"
#include "core/output/output.h"
#include "core/output/text_out.h"
#include "core/thread/thread.h"

#include <limits.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct out {
  int fd;
  struct xr_text_out text; /* no line is cut, however long its name */
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  xr_text_vprintf(&o->text, fmt, ap);
  va_end(ap);
}

static void put_object(struct out *o, const struct xr_object_info *info) {
  char build_id[2 * XR_BUILD_ID_MAX + 1] = "-";
  for (size_t i = 0; i < info->build_id_size; i++)
    snprintf(build_id + 2 * i, 3, "%02x", info->build_id[i]);
  char id_base[16] = "-";
  if (info->id_base != XR_NO_ID_BASE)
    snprintf(id_base, sizeof id_base, "%u", (unsigned)info->id_base);
  put(o, "object %d %s base 0x%llx functions %zu build-id %s id-base %s path %s\n",
      (int)info->id, info->loaded ? "loaded" : "unloaded", (unsigned long long)info->base,
      info->function_count, build_id, id_base, info->path[0] ? info->path : "-");
}

static const char *header_ids(bool dense) {
  return dense ? ": function <dense id = id-base + function> <object> <function> <name>\n"
               : ": function <packed id> <object> <function> <name>\n";
}
#define HEADER_START "# XRay object map of "

static void put_objects(struct out *o, size_t count) {
  struct xr_object_info info;
  for (size_t id = 0; id < count; id++)
    if (xr_object_info((int32_t)id, &info))
      put_object(o, &info);
}

/* Object id's function lines (none when it has no dense id and the log's
 * are dense: none in the log). */
static void put_functions(struct out *o, size_t id, const struct xr_object_info *info,
                          bool dense) {
  if (dense && info->id_base == XR_NO_ID_BASE)
    return;
  for (size_t f = 1; f <= info->function_count; f++) {
    int32_t packed = xr_pack_id((int32_t)f, (int32_t)id);
    int32_t log_id = dense ? (int32_t)(info->id_base + (uint32_t)f) : packed;
    put(o, "function %d %zu %zu %s\n", (int)log_id, id, f, xr_names_get_name(NULL, packed));
  }
}

int xr_object_map_write(const char *log_path, bool dense) {
  size_t count = xr_objects_count();
  if (count <= 1)
    return 0; /* the executable alone: llvm-xray -instr_map says it all */
  char path[PATH_MAX];
  static struct out o; /* 16 KiB: not on the stack; flushes are serialised */
  o.fd = xr_open_sibling_file(log_path, ".map", path, sizeof path);
  if (o.fd < 0)
    return -1; /* reported */
  xr_text_init(&o.text, xr_text_fd_sink, &o.fd);
  put(&o, HEADER_START "%s%s", log_path, header_ids(dense));
  put_objects(&o, count);
  struct xr_object_info info;
  for (size_t id = 0; id < count; id++)
    if (xr_object_info((int32_t)id, &info))
      put_functions(&o, id, &info, dense);
  int rc = xr_text_flush(&o.text);
  close(o.fd);
  if (rc != 0) {
    xr_report(XR_ERROR, "writing the object map '%s' failed: %s", path, strerror(o.text.failed));
    return -1;
  }
  xr_report(XR_INFO, "object map of %zu objects written to %s", count, path);
  return 0;
}

/* ---- the dense map rendered ahead, for snapshots ------------------------ */

/* Rendered lines in an anonymous mapping of their own: the object lines
 * (all objects, re-rendered at every change: at most 256 lines), and each
 * object's function lines, rendered once per registration of its id, so a
 * dlopen costs its own object's names, not the executable's again. */
struct chunk {
  struct chunk *next_retired;
  size_t objects;  /* object lines: the object count they cover */
  size_t len, cap; /* cap: the mapping's size, this header included */
  char text[];
};
static struct chunk *objects_chunk;               /* atomic; NULL: no map */
static struct chunk *function_chunk[XR_MAX_OBJECTS]; /* atomic */
static uint32_t chunk_generation[XR_MAX_OBJECTS]; /* renderer only */
static struct chunk *retired;                     /* renderer only */
/* atomic: snapshots reading the chunks (a fork child may inherit a count
 * that never drops: it then keeps its retired chunks, never frees one read) */
static uint32_t readers;
static int32_t render_owner;  /* atomic: pid of the rendering process */
static uint32_t render_again; /* atomic: the objects changed meanwhile */

/* The memory sink: grows the mapping by doubling. */
static int chunk_sink(void *ctx, const void *data, size_t n) {
  struct chunk **cp = ctx, *c = *cp;
  size_t need = (c ? c->len : 0) + n + sizeof *c;
  if (c == NULL || need > c->cap) {
    size_t cap = c ? c->cap : 65536;
    while (cap < need)
      cap *= 2;
    struct chunk *m = mmap(NULL, cap, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
      errno = ENOMEM;
      return -1;
    }
    *m = (struct chunk){NULL, 0, 0, cap};
    if (c != NULL) {
      memcpy(m->text, c->text, c->len);
      m->len = c->len;
      munmap(c, c->cap);
    }
    *cp = c = m;
  }
  memcpy(c->text + c->len, data, n);
  c->len += n;
  return 0;
}

/* Replaces *slot with c. What it held may be read by a snapshot now, so it
 * is unmapped only by sweep(). */
static void replace(struct chunk **slot, struct chunk *c) {
  struct chunk *old = __atomic_exchange_n(slot, c, __ATOMIC_SEQ_CST);
  if (old != NULL) {
    old->next_retired = retired;
    retired = old;
  }
}

/* A snapshot counts itself in `readers` before it loads a chunk (both
 * sequentially consistent): with the new ones stored, readers at 0 means
 * nobody holds a retired one. Otherwise they wait for a later render. */
static void sweep(void) {
  if (__atomic_load_n(&readers, __ATOMIC_SEQ_CST) != 0)
    return;
  while (retired != NULL) {
    struct chunk *c = retired;
    retired = c->next_retired;
    munmap(c, c->cap);
  }
}

/* The lines of one rendering into *c (NULL at first); 0, or -1 said. */
static int render_chunk(struct chunk **c, size_t count, size_t id,
                        const struct xr_object_info *info) {
  static struct out o; /* one renderer at a time (render_owner) */
  xr_text_init(&o.text, chunk_sink, c);
  if (info == NULL)
    put_objects(&o, count);
  else
    put_functions(&o, id, info, true);
  if (xr_text_flush(&o.text) == 0)
    return 0;
  xr_report(XR_ERROR, "the object map for snapshots could not be rendered (%s): "
            "snapshots get none until an object registers or goes", strerror(o.text.failed));
  if (*c != NULL)
    munmap(*c, (*c)->cap);
  *c = NULL;
  return -1;
}

static void render_once(void) {
  size_t count = xr_objects_count();
  if (count <= 1) {
    replace(&objects_chunk, NULL); /* the exit log's rule: none for the executable alone */
    sweep();
    return;
  }
  /* Function lines first: a snapshot that sees the new object lines sees
   * the functions of every object they count. */
  struct xr_object_info info;
  for (size_t id = 0; id < count; id++) {
    if (!xr_object_info((int32_t)id, &info) ||
        (function_chunk[id] != NULL && chunk_generation[id] == info.generation))
      continue;
    struct chunk *c = NULL;
    if (render_chunk(&c, count, id, &info) != 0) {
      replace(&objects_chunk, NULL); /* no map rather than one short of names */
      sweep();
      return;
    }
    replace(&function_chunk[id], c);
    chunk_generation[id] = info.generation;
  }
  struct chunk *c = NULL;
  if (render_chunk(&c, count, 0, NULL) == 0)
    c->objects = count;
  replace(&objects_chunk, c);
  sweep();
}

/* Takes the renderer's flag: free, or left by a process forked away. */
static bool take_render(int32_t me) {
  int32_t owner = __atomic_load_n(&render_owner, __ATOMIC_SEQ_CST);
  while (owner != me)
    if (__atomic_compare_exchange_n(&render_owner, &owner, me, false,
                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
      return true;
  return false; /* a thread of ours renders, and will see render_again */
}

static void render(void) {
  int32_t me = xr_pid();
  __atomic_store_n(&render_again, 1, __ATOMIC_SEQ_CST);
  if (!take_render(me))
    return;
  do {
    __atomic_store_n(&render_again, 0, __ATOMIC_SEQ_CST);
    render_once();
    __atomic_store_n(&render_owner, 0, __ATOMIC_SEQ_CST);
  } while (__atomic_load_n(&render_again, __ATOMIC_SEQ_CST) && take_render(me));
}

/* The header, the object lines, every object's function lines. */
static int write_chunks(int fd, const char *log_path, const struct chunk *objects) {
  const char *ids = header_ids(true);
  if (xr_write_all(fd, HEADER_START, sizeof HEADER_START - 1) != 0 ||
      xr_write_all(fd, log_path, strlen(log_path)) != 0 ||
      xr_write_all(fd, ids, strlen(ids)) != 0 ||
      xr_write_all(fd, objects->text, objects->len) != 0)
    return -1;
  for (size_t id = 0; id < objects->objects; id++) {
    const struct chunk *c = __atomic_load_n(&function_chunk[id], __ATOMIC_SEQ_CST);
    if (c != NULL && xr_write_all(fd, c->text, c->len) != 0)
      return -1;
  }
  return 0;
}

const struct xr_object_events xr_object_map_events = {.dense_changed = render};

int xr_object_map_write_ready(const char *log_path, char *map_path, size_t cap) {
  map_path[0] = 0;
  __atomic_add_fetch(&readers, 1, __ATOMIC_SEQ_CST);
  const struct chunk *objects = __atomic_load_n(&objects_chunk, __ATOMIC_SEQ_CST);
  int rc = 0; /* no shared object: no map */
  size_t n = strlen(log_path);
  if (objects != NULL && n + sizeof ".map" > cap) {
    errno = ENAMETOOLONG;
    rc = -1;
  } else if (objects != NULL) {
    memcpy(map_path, log_path, n);
    memcpy(map_path + n, ".map", sizeof ".map");
    int fd;
    do
      fd = open(map_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    while (fd < 0 && errno == EINTR);
    rc = fd < 0 ? -1 : write_chunks(fd, log_path, objects);
    if (rc != 0 && fd >= 0) {
      int err = errno;
      close(fd);
      unlink(map_path); /* a map cut short would name too few ids */
      errno = err;
    } else if (rc == 0) {
      close(fd);
      rc = 1;
    }
  }
  __atomic_sub_fetch(&readers, 1, __ATOMIC_SEQ_CST);
  return rc;
}
