/* xray_control=true from the program itself, through the weak hook the
 * runtime reads before XRAY_OPTIONS. Prints "ready PID", then waits for a
 * line on stdin. */
#include <stdio.h>
#include <unistd.h>

const char *__xray_default_options(void) { return "xray_control=true"; }

int main(void) {
  char line[64];
  setvbuf(stdout, NULL, _IOLBF, 0);
  printf("ready %ld\n", (long)getpid());
  return fgets(line, sizeof line, stdin) ? 0 : 1;
}
