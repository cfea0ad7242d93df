/* Every kind of FDR file, for the framing check: main and two workers call
 * outer() (outer -> inner, and a custom event every 10th call) CALLS times
 * each; main then takes an API snapshot and either exits (the log is
 * written at exit), or calls crash() -> abort() (a crash snapshot, with
 * snapshot_on_crash=true), or (tmp) creates the file the next snapshot's
 * join needs (`<snapshot 2>.tmp`), takes that snapshot and exits.
 * Started from the environment (XRAY_OPTIONS patch_premain=true
 * xray_mode=xray-fdr). Usage: framing CALLS [abort|tmp] */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
  if (argc > 2 && strcmp(argv[2], "tmp") == 0) {
    char next[1100];
    size_t len = strlen(path); /* ends with 000001 */
    snprintf(next, sizeof next, "%.*s000002.tmp", (int)(len - 6), path);
    int fd = open(next, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0 || close(fd) != 0 ||
        __xray_fdr_snapshot(path, sizeof path) != XRAY_SNAPSHOT_OK)
      return 1;
    printf("%s\n", path);
  }
  return 0;
}
