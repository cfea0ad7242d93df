/* A SPEC reaches a shared object loaded after it was given, and a fork
 * child: loads the plugin (argv[1]) with dlopen, calls its plug_fn, forks;
 * the child calls child_fn(7) and plug_fn(42, "from-child"), the parent
 * then child_fn(8). Basic mode writes one log per process. */
#include <dlfcn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

volatile long sink;
__attribute__((noinline, used)) long child_fn(long x) {
  sink = x;
  return x * 3;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  void *h = dlopen(argv[1], RTLD_NOW);
  if (h == NULL) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  long (*plug_fn)(long, const char *) = (long (*)(long, const char *))dlsym(h, "plug_fn");
  if (plug_fn == NULL)
    return 1;
  plug_fn(41, "from-parent");
  pid_t pid = fork();
  if (pid < 0)
    return 1;
  if (pid == 0) {
    child_fn(7);
    plug_fn(42, "from-child");
    return 0;
  }
  int status;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return 1;
  child_fn(8);
  return 0;
}
