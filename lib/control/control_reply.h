/* A control reply (control_reply.c): its status and its text, built by the
 * server, the commands and top; control_reply.c calls none of them, so
 * calls go one way: server -> commands -> top -> reply. */
#ifndef XR_CONTROL_REPLY_H
#define XR_CONTROL_REPLY_H

#include "core/base/common.h"

enum xr_ctl_status { XR_CTL_OK, XR_CTL_ERROR, XR_CTL_DENIED };

#define XR_CTL_REPLY_MAX 65536

struct xr_ctl_reply {
  enum xr_ctl_status status;
  char message[512];         /* error or denied: one line */
  char body[XR_CTL_REPLY_MAX]; /* ok: lines */
  size_t len;
};

/* Appends a formatted line (or part of one) to the body; what does not fit
 * is cut (the reply is still well formed). */
XR_HIDDEN void xr_ctl_say(struct xr_ctl_reply *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Makes r an error reply with this one-line message. */
XR_HIDDEN void xr_ctl_fail(struct xr_ctl_reply *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
