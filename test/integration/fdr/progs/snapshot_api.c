/* Snapshots from code while recording goes on: two snapshots between
 * phases of work, statuses before init and after finalize, then the final
 * flush. Prints each snapshot's name. Usage: snapshot_api [CONFIG [STATUS]]
 * where STATUS is what the two snapshots must return (default 0, OK).
 *
 * Also prints the threads the process has before FDR starts, once it is
 * initialised, and after the flush ("threads WHEN N NAME SIGBLK": NAME and
 * SIGBLK of the thread named xray-snaptrace, else "- -"; a sanitizer may
 * add threads of its own to N). With chrome output in CONFIG, after each
 * snapshot it waits for `<snapshot>.json` (polling, bounded: exit 3 after
 * 60 s) and hard-links it to `<snapshot>.json.before_flush`, so the script
 * sees what was there before any flush and whether flush replaced it; and a
 * fork child takes a snapshot of its own, which has no .json before the
 * child's flush (exit 4) and one after it (exit 5); it prints "child NAME". */
#include "fdr_test.h"
#include <dirent.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xray/xray_fdr.h>

NOINLINE int alpha(int x) { fdr_sink = x; return x + 1; }
NOINLINE int beta(int x) { return alpha(x) + 1; }
NOINLINE int gamma_(int x) { fdr_sink = x; return x; }

static int chrome; /* the config asks for chrome output */

/* The threads in /proc/self/task that still have a status (one being
 * reaped may be listed, then gone before its status is read); in other,
 * "NAME SIGBLK" of the runtime's JSON helper ("- -" when there is none);
 * in *flushing, whether the flush's I/O thread is still listed. */
NEVER static int scan_threads(char other[64], int *flushing) {
  int n = 0;
  strcpy(other, "- -");
  *flushing = 0;
  DIR *d = opendir("/proc/self/task");
  for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.')
      continue;
    char file[128], line[128], name[32] = "?", blocked[32] = "?";
    snprintf(file, sizeof file, "/proc/self/task/%s/status", e->d_name);
    FILE *f = fopen(file, "r");
    if (f == NULL)
      continue; /* listed, then gone before its status was read */
    n++;
    while (fgets(line, sizeof line, f)) {
      sscanf(line, "Name: %31s", name);
      sscanf(line, "SigBlk: %31s", blocked);
    }
    fclose(f);
    if (strcmp(name, "xray-snaptrace") == 0)
      snprintf(other, 64, "%s %s", name, blocked);
    if (strcmp(name, "xray-flush") == 0)
      *flushing = 1;
  }
  if (d)
    closedir(d);
  return n;
}

/* Prints "threads WHEN N NAME SIGBLK". With gone, first waits (at most
 * 60 s) for the helper and the flush's I/O thread to leave /proc:
 * pthread_join returns when a thread is done, a moment before the kernel
 * removes its entry. */
NEVER static void threads(const char *when, int gone) {
  char other[64];
  int flushing;
  int n = scan_threads(other, &flushing);
  for (int i = 0; gone && (strcmp(other, "- -") != 0 || flushing) && i < 6000;
       i++) {
    struct timespec ms10 = {0, 10000000};
    nanosleep(&ms10, NULL);
    n = scan_threads(other, &flushing);
  }
  printf("threads %s %d %s\n", when, n, other);
}

/* The snapshot's .json, written by the runtime's helper thread while this
 * thread goes on: polled for, at most 60 s. */
NEVER static void wait_json(const char *path) {
  char json[600], kept[640];
  snprintf(json, sizeof json, "%s.json", path);
  snprintf(kept, sizeof kept, "%s.before_flush", json);
  for (int i = 0; access(json, F_OK) != 0; i++) {
    if (i == 6000) {
      fprintf(stderr, "%s: no .json after 60 s\n", path);
      exit(3);
    }
    struct timespec ms10 = {0, 10000000};
    nanosleep(&ms10, NULL);
  }
  fdr_expect("link the .json", link(json, kept), 0);
}

NEVER static void snapshot(const char *what, int want) {
  char path[512] = "unchanged";
  fdr_expect(what, __xray_fdr_snapshot(path, sizeof path), want);
  if (want == XRAY_SNAPSHOT_OK) {
    printf("%s\n", path);
    if (chrome)
      wait_json(path);
  } else {
    fdr_expect("no name without a snapshot", path[0], 0);
  }
}

/* A fork child has no helper thread: its snapshot gets its .json at its
 * own flush. */
NEVER static void child_snapshot(void) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    threads("child", 0);
    for (int i = 0; i < 20; i++)
      gamma_(i);
    char path[512], json[600];
    fdr_expect("child snapshot", __xray_fdr_snapshot(path, sizeof path),
               XRAY_SNAPSHOT_OK);
    snprintf(json, sizeof json, "%s.json", path);
    if (access(json, F_OK) == 0)
      exit(4);
    fdr_stop();
    if (access(json, F_OK) != 0)
      exit(5);
    printf("child %s\n", path);
    exit(0);
  }
  int status = -1;
  waitpid(pid, &status, 0);
  fdr_expect("child exit status", status, 0);
}

int main(int argc, char **argv) {
  int want = argc > 2 ? atoi(argv[2]) : XRAY_SNAPSHOT_OK;
  chrome = strstr(fdr_config(argc, argv), "chrome") != NULL;
  snapshot("before init", XRAY_SNAPSHOT_NOT_RECORDING);
  threads("start", 0);
  fdr_start(fdr_config(argc, argv));
  threads("init", 0);
  for (int i = 0; i < 100; i++)
    beta(i);
  snapshot("first", want);
  for (int i = 0; i < 50; i++)
    gamma_(i);
  snapshot("second", want);
  if (chrome)
    child_snapshot();
  for (int i = 0; i < 10; i++)
    beta(i);
  fdr_expect("finalize", __xray_log_finalize(), XRAY_LOG_FINALIZED);
  snapshot("after finalize", XRAY_SNAPSHOT_NOT_RECORDING);
  fdr_expect("flush", __xray_log_flushLog(), XRAY_LOG_FLUSHED);
  threads("flushed", 1);
  puts("done");
  return 0;
}
