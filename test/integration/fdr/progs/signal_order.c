/* A signal between every two instructions: the thread calls work() with the
 * trap flag set, so the kernel raises SIGTRAP after each instruction (the
 * tracer's included), and the handler runs an instrumented function. Its
 * events land in every window of the tracer where the thread is not busy,
 * and are dropped (counted as nested) where it is. Prints the thread id and
 * the number of traps. */
#include "fdr_test.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((xray_always_instrument)) NOINLINE void in_handler(void) {
  fdr_sink++;
}
__attribute__((xray_always_instrument)) NOINLINE int work(int x) {
  return x * 3 + fdr_sink;
}
static volatile int traps;
NEVER static void on_trap(int sig) {
  (void)sig;
  traps++;
  in_handler(); /* the kernel runs handlers with the trap flag clear */
}

#define TRAP_FLAG 0x100
NEVER NOINLINE static void single_step(int on) {
  if (on)
    __asm__ volatile("pushfq; orq %0, (%%rsp); popfq" ::"i"(TRAP_FLAG) : "memory", "cc");
  else
    __asm__ volatile("pushfq; andq %0, (%%rsp); popfq" ::"i"(~TRAP_FLAG) : "memory", "cc");
}

NEVER int main(int argc, char **argv) {
  int calls = argc > 2 ? atoi(argv[2]) : 20;
  struct sigaction sa = {0};
  sa.sa_handler = on_trap;
  sigaction(SIGTRAP, &sa, NULL);
  fdr_start(fdr_config(argc, argv));
  volatile int s = 0;
  single_step(1);
  for (int i = 0; i < calls; i++)
    s += work(i);
  single_step(0);
  fdr_stop();
  if (traps < calls * 10) {
    fprintf(stderr, "only %d traps\n", traps);
    return 2;
  }
  printf("%d %d\n", (int)syscall(SYS_gettid), traps);
  return 0;
}
