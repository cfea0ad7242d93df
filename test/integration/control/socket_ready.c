/* Is <pid>.sock already there while the control socket is not yet
 * listening? listen() is interposed (the program's definition wins in the
 * static link of libxray.a): it notes whether the socket's final name
 * exists when the runtime calls it. A client that waits for that name to
 * appear and then connects must not be refused. Prints what it saw at
 * listen, whether the name is there in main, and whether a connect to it
 * is accepted. Argument: the control directory. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#define NI __attribute__((xray_never_instrument))
static const char *dir;
static int listens, seen_at_listen = -1;

NI static int sock_exists(void) {
  char path[108];
  struct stat st;
  snprintf(path, sizeof path, "%s/%ld.sock", dir, (long)getpid());
  return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

NI int listen(int fd, int backlog) {
  listens++;
  if (dir != NULL)
    seen_at_listen = sock_exists();
  return (int)syscall(SYS_listen, fd, backlog);
}

/* The runtime starts control in its own initialiser; this one only has to
 * know the directory before that: .preinit_array runs first. */
NI static void early(int argc, char **argv, char **envp) {
  (void)envp;
  dir = argc > 1 ? argv[1] : NULL;
}
__attribute__((section(".preinit_array"), used)) static void (*early_p)(int, char **, char **) = early;

NI int main(void) {
  char path[108];
  snprintf(path, sizeof path, "%s/%ld.sock", dir, (long)getpid());
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
  int accepted = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
  close(fd); /* the control thread sees the end of a silent client */
  printf("listen calls %d, name present at listen %d, in main %d, connect accepted %d\n",
         listens, seen_at_listen, sock_exists(), accepted);
  return 0;
}
