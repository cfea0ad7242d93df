/* The sidecar `<log>.map` beside a basic or FDR log of a process that
 * registered shared objects: every object (id, state, load address, build
 * id, dense id base, path) and every function of every object with its
 * name under the id the log holds (packed; dense in an FDR log), so that
 * traces across objects can be read (llvm-xray's
 * -instr_map knows only the executable). Format: docs/formats.md. */
#include "objects.h"

#include "names.h"
#include "output.h"
#include "report.h"
#include "text_out.h"

#include <limits.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
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

int xr_objects_write_map(const char *log_path, bool dense) {
  size_t count = xr_objects_count();
  if (count <= 1)
    return 0; /* the executable alone: llvm-xray -instr_map says it all */
  char path[PATH_MAX];
  static struct out o; /* 16 KiB: not on the stack; flushes are serialised */
  o.fd = xr_open_sibling_file(log_path, ".map", path, sizeof path);
  if (o.fd < 0)
    return -1; /* reported */
  xr_text_init(&o.text, xr_text_fd_sink, &o.fd);
  put(&o, "# XRay object map of %s: function <%s> <object> <function> <name>\n", log_path,
      dense ? "dense id = id-base + function" : "packed id");
  struct xr_object_info info;
  for (size_t id = 0; id < count; id++)
    if (xr_object_info((int32_t)id, &info))
      put_object(&o, &info);
  for (size_t id = 0; id < count; id++) {
    if (!xr_object_info((int32_t)id, &info) || (dense && info.id_base == XR_NO_ID_BASE))
      continue; /* no dense id: none in the log */
    for (size_t f = 1; f <= info.function_count; f++) {
      int32_t packed = xr_pack_id((int32_t)f, (int32_t)id);
      int32_t log_id = dense ? (int32_t)(info.id_base + (uint32_t)f) : packed;
      put(&o, "function %d %zu %zu %s\n", (int)log_id, id, f,
          xr_names_get_name(NULL, packed));
    }
  }
  int rc = xr_text_flush(&o.text);
  close(o.fd);
  if (rc != 0) {
    xr_report(XR_ERROR, "writing the object map '%s' failed: %s", path, strerror(o.text.failed));
    return -1;
  }
  xr_report(XR_INFO, "object map of %zu objects written to %s", count, path);
  return 0;
}
