/* Captures what the code under test writes to stderr (a pipe; messages are
 * short, far below the pipe's capacity). */
#ifndef CORE_CONTROL_CAPTURE_H
#define CORE_CONTROL_CAPTURE_H

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int capture_saved_fd = -1;
static int capture_read_fd = -1;

static void capture_begin(void) {
  int p[2];
  if (pipe(p) != 0)
    abort();
  fcntl(p[0], F_SETFL, O_NONBLOCK);
  capture_saved_fd = dup(STDERR_FILENO);
  dup2(p[1], STDERR_FILENO);
  close(p[1]);
  capture_read_fd = p[0];
}

/* Returns the captured bytes as a string in a static buffer. */
static const char *capture_end(void) {
  static char buf[65536];
  dup2(capture_saved_fd, STDERR_FILENO);
  close(capture_saved_fd);
  size_t n = 0;
  for (;;) {
    ssize_t r = read(capture_read_fd, buf + n, sizeof buf - 1 - n);
    if (r <= 0)
      break;
    n += (size_t)r;
  }
  close(capture_read_fd);
  buf[n] = 0;
  return buf;
}

__attribute__((unused)) static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

#endif
