/* The control socket's internal interface: the server (control_server.c)
 * reads a request and hands it to the commands (control_cmds.c), which
 * answer into a reply buffer (control_reply.c). Calls go one way: server
 * -> commands -> top -> reply. */
#ifndef XR_CONTROL_H
#define XR_CONTROL_H

#include "control/control_proto.h"
#include "core/base/common.h"

enum xr_ctl_status { XR_CTL_OK, XR_CTL_ERROR, XR_CTL_DENIED };

#define XR_CTL_REPLY_MAX 65536

struct xr_ctl_reply {
  enum xr_ctl_status status;
  char message[512];         /* error or denied: one line */
  char body[XR_CTL_REPLY_MAX]; /* ok: lines */
  size_t len;
};

/* control_reply.c: appends a formatted line (or part of one) to the body;
 * what does not fit is cut (the reply is still well formed). */
XR_HIDDEN void xr_ctl_say(struct xr_ctl_reply *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Makes r an error reply with this one-line message. */
XR_HIDDEN void xr_ctl_fail(struct xr_ctl_reply *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The connection a command runs for, and what a command may ask of the
 * server running it (control_server.c fills it in): the server calls the
 * commands, the commands reach the server only through this, so calls
 * between the two files go one way. */
struct xr_ctl_client {
  int fd;
  /* Sleeps up to ms milliseconds, returning early when the client hangs up
   * (false then). Meanwhile it answers other clients (their commands see a
   * session running and may only ask hello or status). */
  bool (*wait)(int fd, uint32_t ms);
  /* The server's counters, for status. */
  void (*counters)(uint64_t *served, uint64_t *refused, uint64_t *malformed);
};

/* Runs one parsed request. `client` is the connection, watched while a
 * command waits (record, top) so that a client gone ends the wait early;
 * the program is restored either way. */
XR_HIDDEN void xr_ctl_execute(const struct xr_ctl_request *rq,
                              const struct xr_ctl_client *client,
                              struct xr_ctl_reply *r);

/* control_top.c: between finalize and flush of an xray-profiling session
 * started with no_flush=true, reads its profile (__xray_log_process_buffers)
 * and answers the top `rows` functions by local time, all threads merged:
 * "CALLS LOCAL_NS TOTAL_NS NAME" lines, busiest first. */
XR_HIDDEN void xr_ctl_top_rows(uint32_t rows, struct xr_ctl_reply *r);

#endif
