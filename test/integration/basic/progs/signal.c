/* Signals inside the handler: the runtime's write(2) calls are wrapped
 * (-Wl,--wrap=write) to raise SIGUSR1, whose handler calls the instrumented
 * in_signal(). When the write comes from a buffer spill the thread is inside
 * basic mode's handler, so those nested calls must be dropped and counted.
 * Also calls in_signal() 10 times directly. Prints how many times the
 * signal handler ran. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#define XI __attribute__((xray_always_instrument, noinline))
static volatile int sink;
static volatile sig_atomic_t handled, armed;
XI void in_signal(int x) { sink = x; }
XI void work(int x) { sink = x; }

__attribute__((xray_never_instrument)) static void on_usr1(int sig) {
  in_signal(sig);
  handled++;
}

ssize_t __real_write(int fd, const void *buf, size_t n);
__attribute__((xray_never_instrument)) ssize_t
__wrap_write(int fd, const void *buf, size_t n) {
  if (armed) /* writes before main (start-up messages) stay plain */
    raise(SIGUSR1);
  return __real_write(fd, buf, n);
}

__attribute__((xray_never_instrument)) int main(void) {
  signal(SIGUSR1, on_usr1);
  armed = 1;
  for (int i = 0; i < 10; i++)
    in_signal(-1);
  for (int i = 0; i < 1000; i++)
    work(i);
  armed = 0; /* the final flush at exit writes without signals */
  printf("%d\n", (int)handled);
  fflush(stdout);
  return 0;
}
