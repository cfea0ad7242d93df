/* libFuzzer target: xrayctl's readers of trace files (tools/xrayctl/
 * trace_read.c, profile_read.c over trace_input.c), which read whatever
 * file a user names: basic and FDR logs of any version, profiles.
 *
 * The input is the file, handed over as a memfd (the readers pread a file
 * descriptor in chunks, as they read a real file). Checks beyond "no crash,
 * no hang, no sanitizer report":
 * - a reader that fails says where: an offset within the file and a
 *   message; one that succeeds leaves no error;
 * - every event is of a known kind; a custom or typed event's payload lies
 *   in readable memory (every byte is read);
 * - every profile node has a path of at least one non-zero id;
 * - shared out between two threads (ctl_trace_events_split), a file is
 *   accepted or refused as in one. */
#define _GNU_SOURCE
#include "xrayctl/profile_read.h"
#include "xrayctl/trace_read.h"

#include <assert.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* ctx: a byte of its own per part, so the parts share nothing */
static void on_event(void *ctx, int32_t pid, int32_t tid, const struct xr_tev *e) {
  (void)pid, (void)tid;
  volatile uint8_t *sink = ctx;
  assert(e->kind <= XR_TEV_TYPED);
  if (e->kind == XR_TEV_CUSTOM || e->kind == XR_TEV_TYPED) {
    assert(e->size == 0 || e->data != NULL);
    const uint8_t *d = e->data;
    for (size_t i = 0; i < e->size; i++)
      *sink ^= d[i];
  }
}

static void on_node(void *ctx, const struct ctl_profile_node *n) {
  (void)ctx;
  assert(n->depth >= 1);
  for (uint32_t i = 0; i < n->depth; i++)
    assert(n->path[i] != 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int fd = memfd_create("trace", MFD_CLOEXEC);
  if (fd < 0)
    return 0;
  if (write(fd, data, size) != (ssize_t)size) {
    close(fd);
    return 0;
  }
  struct ctl_in in;
  struct ctl_trace_info info;
  uint8_t sinks[2] = {0, 0};
  int rc = ctl_in_open(&in, fd, "fuzz");
  if (rc == 0)
    rc = ctl_trace_identify(&in, &info);
  if (rc == 0)
    rc = info.kind == CTL_TRACE_PROFILE ? ctl_profile_nodes(&in, on_node, NULL)
                                        : ctl_trace_events(&in, &info, on_event, &sinks[0]);
  assert((rc != 0) == in.failed);
  if (rc != 0)
    assert(in.err[0] != '\0' && in.err_offset <= size);
  ctl_in_close(&in);
  /* the same shared out between two threads: the same verdict */
  struct ctl_in again;
  if (rc == 0 || info.kind != CTL_TRACE_PROFILE) {
    int again_rc = ctl_in_open(&again, fd, "fuzz");
    if (again_rc == 0)
      again_rc = ctl_trace_identify(&again, &info);
    void *ctxs[2] = {&sinks[0], &sinks[1]};
    if (again_rc == 0 && info.kind != CTL_TRACE_PROFILE)
      again_rc = ctl_trace_events_split(&again, &info, 2, on_event, NULL, ctxs);
    assert((again_rc != 0) == (rc != 0));
    ctl_in_close(&again);
  }
  close(fd);
  return 0;
}
