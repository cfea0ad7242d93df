/* A loopback TCP server for `xrayctl record`: each connection sends one
 * line with a number, gets its double back, and is closed; "quit" ends
 * the server. Prints "ready PID PORT" when it listens, and "served" once
 * handle_request has returned: the client has its answer before that, so a
 * test that ends a record must wait for it to have the call's exit. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

__attribute__((noinline)) long parse_number(const char *s) { return atol(s); }

/* Returns 0 when the request was "quit". */
__attribute__((noinline)) int handle_request(int fd) {
  char line[64];
  ssize_t n = read(fd, line, sizeof line - 1);
  if (n <= 0)
    return 1;
  line[n] = '\0';
  if (strncmp(line, "quit", 4) == 0)
    return 0;
  char out[32];
  int len = snprintf(out, sizeof out, "%ld\n", 2 * parse_number(line));
  return write(fd, out, (size_t)len) == len ? 1 : 1;
}

int main(void) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 64) != 0 ||
      getsockname(s, (struct sockaddr *)&a, &len) != 0)
    return 1;
  setvbuf(stdout, NULL, _IOLBF, 0);
  printf("ready %ld %d\n", (long)getpid(), ntohs(a.sin_port));
  for (int more = 1; more;) {
    int c = accept(s, NULL, NULL);
    if (c < 0)
      continue;
    more = handle_request(c);
    close(c);
    if (more)
      printf("served\n");
  }
  return 0;
}
