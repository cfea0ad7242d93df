/* A program with an instrumented shared object (mapped_lib.c), steered from
 * outside: prints "ready PID", then each "run N" on stdin calls exe_fn()
 * and lib_fn() (the object's) N times each and prints "done"; "quit"
 * exits. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int lib_fn(int x);
__attribute__((noinline)) int exe_fn(int x) { return x + 1; }

int main(void) {
  static volatile int sink;
  char line[64];
  int n;
  printf("ready %ld\n", (long)getpid());
  fflush(stdout);
  while (fgets(line, sizeof line, stdin) != NULL && strncmp(line, "quit", 4) != 0) {
    if (sscanf(line, "run %d", &n) == 1)
      for (int i = 0; i < n; i++)
        sink += exe_fn(i) + lib_fn(i);
    puts("done");
    fflush(stdout);
  }
  return 0;
}
