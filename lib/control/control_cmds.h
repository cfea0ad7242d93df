/* The control commands (control_cmds.c), as the server (control_server.c)
 * runs them: the server reads a request and hands it here with the
 * connection; the commands answer into the reply. */
#ifndef XR_CONTROL_CMDS_H
#define XR_CONTROL_CMDS_H

#include "control/control_proto.h"
#include "control/control_reply.h"
#include "core/base/common.h"

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

#endif
