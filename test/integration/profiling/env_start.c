/* No XRay calls at all: profiling is started by the environment and the
 * profile written at exit. */
#define NOINLINE __attribute__((noinline))
static volatile int sink;
NOINLINE void b(int i) { sink += i; }
NOINLINE void a(int n) {
  for (int i = 0; i < n; i++)
    b(i);
}
int main(void) {
  for (int i = 0; i < 3; i++)
    a(4);
  b(0);
  return 0;
}
