/* A program steered from outside: started with xray_control=true, it does
 * nothing traced until told. Each line on stdin is a command:
 *   run N   four threads each call alpha() and beta() N times; prints "done"
 *   hot N   one thread calls hot() (a busy loop of about a millisecond)
 *           and cold() N times each; prints "done"
 *   fork    forks a child that sleeps until killed; prints "child PID",
 *           then "done"; the child prints "child ready" once its fork()
 *           returned (the runtime's fork-child handlers have run)
 *   closefds closes every descriptor from 3 up (as daemons do); "done"
 *   spin    four threads call alpha() and beta() until "halt"; prints "done"
 *   halt    stops and joins them; prints "done"
 *   setuid  becomes uid/gid 65534 (nobody), as a daemon dropping root does;
 *           prints "done" (or "setuid failed")
 *   quit    exits normally
 * so a test knows exactly how many calls happened between two xrayctl
 * commands. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { THREADS = 4 };
static volatile long sink;

__attribute__((noinline)) void alpha(long i) { sink += i; }
__attribute__((noinline)) void beta(long i) { sink ^= i; alpha(i); }

__attribute__((noinline)) void hot(void) {
  for (long i = 0; i < 1000000; i++)
    sink += i;
}
__attribute__((noinline)) void cold(void) { sink++; }

static long calls_each;
static int spinning;
static pthread_t spinners[THREADS];

static void *spinner(void *arg) {
  (void)arg;
  for (long i = 0; __atomic_load_n(&spinning, __ATOMIC_RELAXED); i++) {
    alpha(i);
    beta(i);
  }
  return NULL;
}

static void *worker(void *arg) {
  (void)arg;
  for (long i = 0; i < calls_each; i++) {
    alpha(i);
    beta(i);
  }
  return NULL;
}

int main(void) {
  char line[128];
  setvbuf(stdout, NULL, _IOLBF, 0);
  printf("ready %ld\n", (long)getpid());
  while (fgets(line, sizeof line, stdin)) {
    if (strncmp(line, "run ", 4) == 0) {
      calls_each = atol(line + 4);
      pthread_t t[THREADS];
      for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
      for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
      printf("done\n");
    } else if (strncmp(line, "hot ", 4) == 0) {
      for (long i = atol(line + 4); i > 0; i--) {
        hot();
        cold();
      }
      printf("done\n");
    } else if (strncmp(line, "fork", 4) == 0) {
      pid_t child = fork();
      if (child == 0) {
        printf("child ready\n");
        for (;;)
          pause();
      }
      /* The parent says the pid, before "done": the test reads it then. */
      printf("child %ld\n", (long)child);
      printf("done\n");
    } else if (strncmp(line, "closefds", 8) == 0) {
      for (int fd = 3; fd < 1024; fd++)
        close(fd);
      printf("done\n");
    } else if (strncmp(line, "spin", 4) == 0) {
      __atomic_store_n(&spinning, 1, __ATOMIC_RELAXED);
      for (int i = 0; i < THREADS; i++)
        pthread_create(&spinners[i], NULL, spinner, NULL);
      printf("done\n");
    } else if (strncmp(line, "halt", 4) == 0) {
      __atomic_store_n(&spinning, 0, __ATOMIC_RELAXED);
      for (int i = 0; i < THREADS; i++)
        pthread_join(spinners[i], NULL);
      printf("done\n");
    } else if (strncmp(line, "setuid", 6) == 0) {
      printf(setgid(65534) == 0 && setuid(65534) == 0 ? "done\n" : "setuid failed\n");
    } else if (strncmp(line, "quit", 4) == 0) {
      break;
    }
  }
  return 0;
}
