/* Building a reply (control_reply.h): the bottom of lib/control, called by
 * the server, the commands and top, calling none of them. */
#include "control/control_reply.h"

#include <stdarg.h>
#include <stdio.h>

void xr_ctl_say(struct xr_ctl_reply *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t room = sizeof r->body - r->len;
  int n = vsnprintf(r->body + r->len, room, fmt, ap);
  va_end(ap);
  if (n > 0)
    r->len += (size_t)n < room ? (size_t)n : room - 1;
}

void xr_ctl_fail(struct xr_ctl_reply *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->message, sizeof r->message, fmt, ap);
  va_end(ap);
  for (char *p = r->message; *p; p++) /* one line on the wire */
    if (*p == '\n')
      *p = ' ';
  r->status = XR_CTL_ERROR;
  r->len = 0;
}
