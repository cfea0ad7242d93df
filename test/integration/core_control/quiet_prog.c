/* A program whose output a test suite would compare: some stdout, some
 * stderr, and a child process (itself, re-executed) that inherits the
 * environment, XRAY_OPTIONS included. Works instrumented or not.
 *
 * The child is argv[0] (the tests start the program by a path), not
 * /proc/self/exe: under qemu-user argv[0] is the script that runs the
 * target binary under the emulator (test/integration/cross.sh), while
 * qemu-user execs /proc/self/exe itself, and the kernel cannot run a
 * target binary without binfmt_misc. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__attribute__((noinline)) static void say(FILE *f, const char *who, int v) {
  fprintf(f, "%s: fib = %d\n", who, v);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "child") == 0) {
    say(stdout, "child out", fib(12));
    say(stderr, "child err", fib(13));
    return 3;
  }
  say(stdout, "parent out", fib(15));
  say(stderr, "parent err", fib(10));
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    execl(argv[0], argv[0], "child", (char *)NULL);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  printf("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
