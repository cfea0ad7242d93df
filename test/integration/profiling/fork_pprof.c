/* A fork child writes its pprof profile while a parent thread is inside
 * dl_iterate_phdr's callback at the fork: the loader's lock that call holds
 * stays held in the child for ever (glibc does not reset it), so the child
 * must find its mappings without dl_iterate_phdr. work() runs 3 times before
 * the fork and 2 more in the child, which then ends with _exit (its profile
 * written there, by the exit policy). The child dies of SIGALRM after 60 s
 * if it hangs; the parent exits 1 unless the child exited 0. */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define NI __attribute__((xray_never_instrument))
static volatile int sink;
static int in_pipe[2], go_pipe[2];

__attribute__((noinline)) int work(int x) { return x * 3 + sink; }

NI static int hold(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)info, (void)size, (void)arg;
  char c = 'i';
  if (write(in_pipe[1], &c, 1) != 1 || read(go_pipe[0], &c, 1) != 1)
    abort();
  return 1;
}

NI static void *holder(void *arg) {
  (void)arg;
  dl_iterate_phdr(hold, NULL);
  return NULL;
}

NI int main(void) {
  for (int i = 0; i < 3; i++)
    sink = work(i);
  pthread_t t;
  char c;
  if (pipe(in_pipe) || pipe(go_pipe) || pthread_create(&t, NULL, holder, NULL) ||
      read(in_pipe[0], &c, 1) != 1)
    return 2;
  pid_t pid = fork(); /* the holder is inside dl_iterate_phdr now */
  if (pid == 0) {
    alarm(60);
    for (int i = 0; i < 2; i++)
      sink = work(i);
    _exit(0); /* not exit: LeakSanitizer's check at exit calls dl_iterate_phdr */
  }
  if (write(go_pipe[1], &c, 1) != 1 || pthread_join(t, NULL))
    return 2;
  int st;
  if (pid < 0 || waitpid(pid, &st, 0) != pid)
    return 2;
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    fprintf(stderr, "child: %s %d\n", WIFSIGNALED(st) ? "signal" : "exit",
            WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    return 1;
  }
  return 0;
}
