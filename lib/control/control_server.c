#define _GNU_SOURCE /* accept4, struct ucred, POLLRDHUP */
/* The control socket's listener (docs/control.md): with xray_control=true,
 * one thread that sleeps in poll() on a Unix socket in a private directory
 * and serves one connection at a time. Without the option nothing here
 * runs: no thread, no socket, no file.
 *
 * The thread blocks every signal (the program's handlers never run on it)
 * and runs only runtime code, which is never instrumented, so it is never
 * traced. Idle, it has no timer: poll() without a timeout. A connection is
 * read with a deadline, so a silent client cannot hold it.
 *
 * Lifetime: the socket is close-on-exec; its file is removed at exit (an
 * atexit hook, in the process that made it); a fork child gets no listener
 * (its copy of the descriptor is closed; the parent's socket stays the
 * parent's). A program that closes the descriptor (daemons close them all)
 * ends control: the thread notices at its next wake-up that the descriptor
 * is no longer its socket, removes the file and exits, without ever
 * accepting on a descriptor the program now uses for something else. */
#include "control/control_cmds.h"
#include "control/control_path.h"
#include "control/control_proto.h"
#include "control/control_reply.h"
#include "core/base/report.h"
#include "core/options/options.h"
#include "core/thread/thread.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int listen_fd = -1;
static dev_t listen_dev;
static ino_t listen_ino;
static pid_t owner_pid;
static char socket_path[XR_CTL_PATH_MAX]; /* written before the thread starts */
static bool socket_live; /* atomic: the file is ours to remove, once */
static uint64_t served, refused, malformed;

static void counters(uint64_t *s, uint64_t *r, uint64_t *m) {
  *s = __atomic_load_n(&served, __ATOMIC_RELAXED);
  *r = __atomic_load_n(&refused, __ATOMIC_RELAXED);
  *m = __atomic_load_n(&malformed, __ATOMIC_RELAXED);
}

/* The reply buffers, of the control thread only: one for the command,
 * one for those answered while a record or top waits. */
static struct xr_ctl_reply replies[2];
static int depth; /* 0 outside a command, 1 inside */

static void send_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return; /* the client went away or stopped reading: nothing to do */
    p += w;
    n -= (size_t)w;
  }
}

static void send_reply(int fd, const struct xr_ctl_reply *r) {
  char head[640];
  static const char *const words[] = {"ok", "error", "denied"};
  int n = r->status == XR_CTL_OK
              ? snprintf(head, sizeof head, XR_CTL_MAGIC " ok\n")
              : snprintf(head, sizeof head, XR_CTL_MAGIC " %s %s\n",
                         words[r->status], r->message);
  send_all(fd, head, (size_t)n < sizeof head ? (size_t)n : sizeof head - 1);
  if (r->status == XR_CTL_OK)
    send_all(fd, r->body, r->len);
  send_all(fd, "end\n", 4);
}

static int64_t now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

enum { READ_DEADLINE_MS = 5000 };

/* Reads one request line, at most XR_CTL_MAX_REQUEST bytes (one more is
 * read to tell "too long" from "exactly full"). Returns its length (the
 * parser judges it), or -1 when the client sent nothing in time or left. */
static ssize_t read_request(int fd, char *buf, size_t cap) {
  size_t len = 0;
  int64_t deadline = now_ms() + READ_DEADLINE_MS;
  while (len < cap && memchr(buf, '\n', len) == NULL) {
    int64_t left = deadline - now_ms();
    struct pollfd p = {fd, POLLIN, 0};
    if (left <= 0 || poll(&p, 1, (int)left) == 0)
      return len > 0 ? (ssize_t)len : -1;
    ssize_t got = recv(fd, buf + len, cap - len, 0);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return len > 0 ? (ssize_t)len : -1;
    len += (size_t)got;
  }
  return (ssize_t)len;
}

/* After the reply: the client may still be sending (a request too long).
 * Closing with unread bytes would reset the connection and lose the reply
 * on its side, so the rest is read and dropped: until the client closes,
 * at most 1 MiB or 1 second. */
static void drain(int fd) {
  char sink[4096];
  size_t total = 0;
  int64_t deadline = now_ms() + 1000;
  shutdown(fd, SHUT_WR);
  while (total < (1u << 20)) {
    int64_t left = deadline - now_ms();
    struct pollfd p = {fd, POLLIN, 0};
    if (left <= 0 || poll(&p, 1, (int)left) <= 0)
      return;
    ssize_t got = recv(fd, sink, sizeof sink, MSG_DONTWAIT);
    if (got < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (got <= 0)
      return;
    total += (size_t)got;
  }
}

/* Sleeps for a command (record, top) while answering other clients. */
static bool wait_answering(int client, uint32_t ms);

static void serve(int fd) {
  struct xr_ctl_reply *const r = &replies[depth];
  struct ucred cred;
  socklen_t clen = sizeof cred;
  memset(r, 0, sizeof *r);
  /* Replies are small; a client that never reads cannot hold the thread. */
  struct timeval tv = {2, 0};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0 ||
      (cred.uid != geteuid() && cred.uid != 0)) {
    __atomic_add_fetch(&refused, 1, __ATOMIC_RELAXED);
    r->status = XR_CTL_DENIED;
    snprintf(r->message, sizeof r->message,
             "uid %ld may not control this process (only uid %ld or root)",
             (long)cred.uid, (long)geteuid());
    send_reply(fd, r);
    drain(fd);
    return;
  }
  char buf[XR_CTL_MAX_REQUEST + 1];
  ssize_t n = read_request(fd, buf, sizeof buf);
  struct xr_ctl_request rq;
  const char *why = "no request within 5 seconds";
  if (n < 0 || xr_ctl_parse(buf, (size_t)n, &rq, &why) != 0) {
    __atomic_add_fetch(&malformed, 1, __ATOMIC_RELAXED);
    xr_ctl_fail(r, "%s", why);
  } else {
    __atomic_add_fetch(&served, 1, __ATOMIC_RELAXED);
    struct xr_ctl_client c = {fd, wait_answering, counters};
    depth++;
    xr_ctl_execute(&rq, &c, r);
    depth--;
  }
  send_reply(fd, r);
  drain(fd);
}

/* True while listen_fd is still the socket we made (the program may have
 * closed it and reused the number). */
static bool still_ours(void) {
  struct stat st;
  return fstat(listen_fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
         st.st_dev == listen_dev && st.st_ino == listen_ino;
}

/* At exit (main thread) or when the program closed the socket (control
 * thread): whichever comes first removes the file. */
static void remove_socket_file(void) {
  if (getpid() == owner_pid && __atomic_exchange_n(&socket_live, false, __ATOMIC_ACQ_REL))
    unlink(socket_path);
}

/* One connection waiting on the listener: served. False when the listener
 * is no longer ours (the program closed it). */
static bool accept_one(void) {
  if (!still_ours())
    return false;
  int c = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
  if (c >= 0) {
    serve(c);
    close(c);
  } else if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
             errno == ENOMEM) {
    /* The connection stays queued; wait instead of spinning on it. */
    struct timespec t = {1, 0};
    nanosleep(&t, NULL);
  } else if (errno == EBADF || errno == ENOTSOCK || errno == EINVAL) {
    return false;
  }
  return true;
}

static bool listener_lost;

/* Returns false early when the client hangs up (it sends nothing more, so
 * any event on it is that); accepts other clients meanwhile. */
static bool wait_answering(int client, uint32_t ms) {
  int64_t deadline = now_ms() + ms;
  for (;;) {
    int64_t left = deadline - now_ms();
    if (left <= 0)
      return true;
    /* The client sends nothing more: any event on it is its hang-up. */
    struct pollfd p[2] = {{client, POLLIN | POLLRDHUP, 0}, {listen_fd, POLLIN, 0}};
    int n = poll(p, listener_lost ? 1 : 2, (int)left);
    if (n > 0 && p[0].revents)
      return false;
    if (n > 0 && !listener_lost && p[1].revents &&
        ((p[1].revents & POLLNVAL) || !accept_one()))
      listener_lost = true; /* the main loop ends control after the command */
  }
}

static void *control_thread(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "xray-control"); /* for ps -L, top -H */
  while (!listener_lost) {
    struct pollfd p = {listen_fd, POLLIN, 0};
    if (poll(&p, 1, -1) < 0 && errno == EINTR)
      continue;
    if ((p.revents & POLLNVAL) || !accept_one())
      break;
  }
  xr_report(XR_INFO, "control: the program closed the control socket's "
            "descriptor; control ends (socket '%s' removed)", socket_path);
  remove_socket_file();
  return NULL;
}

/* The fork child: no listener. Its copy of the descriptor refers to the
 * parent's socket, which the child cannot serve: closed, so that it does not
 * keep accepting-capable state alive or leak into the child's children. */
static void after_fork_child(void) {
  if (listen_fd >= 0 && still_ours())
    close(listen_fd);
  listen_fd = -1;
  __atomic_store_n(&socket_live, false, __ATOMIC_RELAXED); /* the parent's */
}

static const char *choose_dir(char out[XR_CTL_PATH_MAX]) {
  if (xr_flags.xray_control_dir[0]) {
    snprintf(out, XR_CTL_PATH_MAX, "%s", xr_flags.xray_control_dir);
    return "xray_control_dir";
  }
  char dirs[2][XR_CTL_PATH_MAX];
  xr_ctl_default_dirs(geteuid(), getenv("XDG_RUNTIME_DIR"), dirs);
  memcpy(out, dirs[0], XR_CTL_PATH_MAX);
  return "default";
}

static int make_socket(void) {
  char dir[XR_CTL_PATH_MAX];
  const char *origin = choose_dir(dir);
  const char *why = xr_ctl_make_dir(dir, geteuid());
  if (why != NULL) {
    xr_report(XR_INFO, "control: not listening: %s directory '%s': %s (it must "
              "be a directory of uid %ld with mode 0700, not a symlink)",
              origin, dir, why, (long)geteuid());
    return -1;
  }
  char path[XR_CTL_PATH_MAX];
  if (xr_ctl_socket_path(dir, (long)getpid(), path) != 0) {
    xr_report(XR_INFO, "control: not listening: '%s' is too long for a socket "
              "path (at most %d bytes in all)", dir, XR_CTL_PATH_MAX - 1);
    return -1;
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    xr_report(XR_INFO, "control: not listening: socket: %s", strerror(errno));
    return -1;
  }
  /* Bound as <pid>.new and renamed to <pid>.sock once it listens: a client
   * that sees <pid>.sock can connect (a bound socket not yet listening
   * refuses connections). ".new" is shorter than ".sock": it fits. */
  char staging[XR_CTL_PATH_MAX];
  memcpy(staging, path, sizeof staging);
  /* NOLINTNEXTLINE(clang-analyzer-security.insecureAPI.strcpy): shorter than what it replaces */
  strcpy(staging + strlen(staging) - strlen(".sock"), ".new");
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  memcpy(a.sun_path, staging, sizeof a.sun_path);
  /* Our pid's names in our private directory: leftovers of a dead process
   * that had this pid before. */
  unlink(staging);
  unlink(path);
  struct stat st;
  if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || chmod(staging, 0600) != 0 ||
      listen(fd, 16) != 0 || fstat(fd, &st) != 0 || rename(staging, path) != 0) {
    xr_report(XR_INFO, "control: not listening on '%s': %s", path, strerror(errno));
    close(fd);
    unlink(staging);
    return -1;
  }
  listen_dev = st.st_dev;
  listen_ino = st.st_ino;
  memcpy(socket_path, path, sizeof socket_path);
  __atomic_store_n(&socket_live, true, __ATOMIC_RELEASE);
  return fd;
}

static void start_control(void) {
  if (!xr_flags.xray_control)
    return;
  owner_pid = getpid();
  listen_fd = make_socket();
  if (listen_fd < 0)
    return;
  int rc = xr_thread_start_own(control_thread, NULL, NULL);
  if (rc != 0) {
    xr_report(XR_INFO, "control: not listening: no thread (%s)", strerror(rc));
    close(listen_fd);
    listen_fd = -1;
    remove_socket_file();
    return;
  }
  atexit(remove_socket_file);
  if (xr_thread_on_fork_child(after_fork_child) != 0)
    xr_report(XR_ERROR, "control: no fork hook left; a fork child keeps a "
              "copy of the control socket's descriptor");
  xr_report(XR_INFO, "control: listening on '%s'", socket_path);
}

/* After the runtime's own start-up (init.c runs from .preinit_array, or
 * from constructor 101 where there is none). */
__attribute__((constructor(102))) static void xr_control_init(void) {
  start_control();
}
