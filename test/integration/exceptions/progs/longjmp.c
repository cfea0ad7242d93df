/* longjmp out of traced frames into an untraced one: jumper() (traced),
 * called through mid() (traced), longjmps to the setjmp of the untraced
 * run(), 100 times; then later() runs 10 times. Nothing below mid's frame
 * exits in between. */
#include <setjmp.h>
#include <stdio.h>

#define TRACED __attribute__((xray_always_instrument, noinline))
#define UNTRACED __attribute__((xray_never_instrument, noinline))

static jmp_buf env;
static volatile int sink;

TRACED void jumper(int i) {
  sink = i;
  if (sink >= 0) /* always: the compiler must not know jumper never returns */
    longjmp(env, 1);
}
TRACED void mid(int i) {
  jumper(i);
  sink = sink + 1; /* not reached: keeps the call from being a tail call */
}
TRACED void later(int i) { sink = i; }

UNTRACED static int run(void) {
  volatile int jumped = 0;
  for (volatile int i = 0; i < 100; i++)
    if (setjmp(env) == 0)
      mid(i);
    else
      jumped++;
  return jumped;
}

UNTRACED int main(void) {
  int jumped = run();
  for (int i = 0; i < 10; i++)
    later(i);
  printf("jumped %d\n", jumped);
  return 0;
}
