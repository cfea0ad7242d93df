/* Every kind of FDR file, for the framing check: main and two workers call
 * outer() (outer -> inner, and a custom event every 10th call) CALLS times
 * each; main then takes an API snapshot and either exits (the log is
 * written at exit), or calls crash() -> abort() (a crash snapshot, with
 * snapshot_on_crash=true), or (nomem) takes a second snapshot with the
 * address space capped at what the process maps already (RLIMIT_AS), so
 * that the snapshot cannot map its image, prints its name and exits.
 * Started from the environment (XRAY_OPTIONS patch_premain=true
 * xray_mode=xray-fdr). Usage: framing CALLS [abort|nomem] */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <xray/xray_fdr.h>
#include <xray/xray_interface.h>

#define NEVER __attribute__((xray_never_instrument))
#define FN __attribute__((noinline, xray_always_instrument))
static char payload[] = "framing-event";
static volatile int sink;
static int calls;

FN void inner(int x) {
  sink = x;
  if (x % 10 == 0)
    __xray_customevent(payload, sizeof payload - 1);
}
FN void outer(int x) { inner(x + 1); }
FN void crash(void) { abort(); }

NEVER static void *worker(void *arg) {
  for (int i = 0; i < calls; i++)
    outer(i);
  return arg;
}

/* Grows the stack mapping beyond what a snapshot needs: under the cap,
 * growing it would fail as a mapping does. */
NEVER __attribute__((noinline)) static void touch_stack(void) {
  volatile char a[256 << 10];
  for (size_t i = 0; i < sizeof a; i += 1024)
    a[i] = 0;
}

/* A snapshot with no room to map anything; the cap is lifted after. */
NEVER static int snapshot_without_memory(char *path, size_t size) {
  touch_stack();
  char statm[128];
  int fd = open("/proc/self/statm", O_RDONLY);
  ssize_t n = fd < 0 ? -1 : read(fd, statm, sizeof statm - 1);
  if (fd < 0 || n <= 0 || close(fd) != 0)
    return -1;
  statm[n] = 0;
  struct rlimit old, cap;
  if (getrlimit(RLIMIT_AS, &old) != 0)
    return -1;
  cap = old;
  cap.rlim_cur = strtoull(statm, NULL, 10) * (rlim_t)sysconf(_SC_PAGESIZE);
  if (setrlimit(RLIMIT_AS, &cap) != 0)
    return -1;
  int status = __xray_fdr_snapshot(path, size);
  return setrlimit(RLIMIT_AS, &old) == 0 ? status : -1;
}

NEVER int main(int argc, char **argv) {
  calls = argc > 1 ? atoi(argv[1]) : 100;
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    if (pthread_create(&t[i], NULL, worker, NULL) != 0)
      return 1;
  worker(NULL);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  char path[1024];
  if (__xray_fdr_snapshot(path, sizeof path) != XRAY_SNAPSHOT_OK)
    return 1;
  if (argc > 2 && strcmp(argv[2], "abort") == 0)
    crash();
  if (argc > 2 && strcmp(argv[2], "nomem") == 0) {
    if (snapshot_without_memory(path, sizeof path) != XRAY_SNAPSHOT_OK)
      return 1;
    printf("%s\n", path);
  }
  return 0;
}
