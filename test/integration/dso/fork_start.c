/* A host built without XRay: its first instrumented object starts the mode
 * XRAY_OPTIONS names (mymode, registered here), and another thread forks
 * while that start is in progress. mymode's log_init (run by the start,
 * inside the main thread's dlopen of FIRST) lets thread B fork and waits
 * until it has, so the fork lands inside the start, deterministically. The
 * child then loads SECOND, whose registration would start the trace if it
 * had not started. Usage: fork_start FIRST SECOND; prints
 * "parent inits N" and "child inits N": log_init calls seen by each. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xray/xray_log_interface.h"

static int inits;
static pid_t main_pid;
static int to_b[2], to_a[2];
static const char *second;

static XRayLogInitStatus my_init(size_t a, size_t b, void *c, size_t d) {
  (void)a, (void)b, (void)c, (void)d;
  inits++;
  char x = 1; /* the handshake in the parent only: no thread A in a child */
  if (getpid() == main_pid &&
      (write(to_b[1], &x, 1) != 1 || read(to_a[0], &x, 1) != 1))
    _exit(5);
  return XRAY_LOG_INITIALIZED;
}
static XRayLogInitStatus my_finalize(void) { return XRAY_LOG_FINALIZED; }
static void my_handler(int32_t id, XRayEntryType type) { (void)id, (void)type; }
static XRayLogFlushStatus my_flush(void) { return XRAY_LOG_FLUSHED; }

static void say(const char *who) {
  char line[64];
  int n = snprintf(line, sizeof line, "%s inits %d\n", who, inits);
  if (write(1, line, (size_t)n) != n)
    _exit(6);
}

static void *forker(void *arg) {
  (void)arg;
  char x;
  if (read(to_b[0], &x, 1) != 1)
    _exit(7);
  pid_t pid = fork();
  if (pid == 0) {
    if (dlopen(second, RTLD_NOW) == NULL)
      _exit(8);
    say("child");
    _exit(0);
  }
  int status = -1;
  if (write(to_a[1], &x, 1) != 1 || waitpid(pid, &status, 0) != pid ||
      !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    _exit(9);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  second = argv[2];
  main_pid = getpid();
  struct XRayLogImpl impl = {my_init, my_finalize, my_handler, my_flush};
  if (__xray_log_register_mode("mymode", impl) != XRAY_REGISTRATION_OK ||
      pipe(to_b) != 0 || pipe(to_a) != 0)
    return 3;
  pthread_t b;
  pthread_create(&b, NULL, forker, NULL);
  if (dlopen(argv[1], RTLD_NOW) == NULL)
    return 4;
  pthread_join(b, NULL);
  say("parent");
  return 0;
}
