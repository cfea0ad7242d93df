/* Basic mode's readable view: `<log>.json` (Chrome trace events) read back
 * from the closed log file at flush. The file is mapped read-only and
 * walked once, so memory stays bounded by the threads' call stacks
 * (lib/export/chrome_trace.c), whatever the size of the log. */
#include "basic/basic_internal.h"
#include "core/clock.h"
#include "core/output.h"
#include "core/report.h"
#include "export/chrome_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void add_records(struct xr_chrome *w, const uint8_t *p, size_t count) {
  for (size_t i = 0; i < count; i++, p += sizeof(struct xr_basic_record)) {
    struct xr_basic_record r;
    memcpy(&r, p, sizeof r);
    if ((r.w[0] & 0xffff) != 0)
      continue; /* an argument payload: the call is its entry record */
    unsigned type = (unsigned)(r.w[0] >> 24) & 0xff;
    struct xr_tev e = {.fid = (int32_t)(r.w[0] >> 32), .tsc = r.w[1]};
    if (type == XR_BASIC_ENTRY || type == XR_BASIC_ENTRY_ARGS)
      e.kind = XR_TEV_ENTER;
    else if (type == XR_BASIC_EXIT)
      e.kind = XR_TEV_EXIT;
    else if (type == XR_BASIC_TAIL)
      e.kind = XR_TEV_TAIL_EXIT;
    else
      continue;
    xr_chrome_add(w, (int32_t)(r.w[2] >> 32), (int32_t)(uint32_t)r.w[2], &e);
  }
}

int xr_basic_write_chrome(const char *log_path) {
  int fd = open(log_path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    xr_report(XR_ERROR, "basic mode: cannot read %s back for its JSON: %s",
              log_path, strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  size_t size = (size_t)st.st_size;
  size_t header = sizeof(struct xr_file_header);
  const uint8_t *data = NULL;
  if (size > header) {
    data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
      xr_report(XR_ERROR, "basic mode: cannot map %s for its JSON: %s",
                log_path, strerror(errno));
      close(fd);
      return -1;
    }
    madvise((void *)data, size, MADV_SEQUENTIAL);
  }
  close(fd);
  void *names = xr_chrome_self_names_open();
  struct xr_chrome *w =
      xr_chrome_open(log_path, xr_clock.frequency_hz, xr_chrome_self_name,
                     names);
  int rc = -1;
  if (w != NULL) {
    if (data != NULL)
      add_records(w, data + header,
                  (size - header) / sizeof(struct xr_basic_record));
    rc = xr_chrome_close(w);
  }
  xr_chrome_self_names_close(names);
  if (data != NULL)
    munmap((void *)data, size);
  return rc;
}
