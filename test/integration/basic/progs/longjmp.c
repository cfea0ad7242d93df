/* attempt() calls setjmp, then top -> mid -> leaf, and leaf longjmps back:
 * the exits of top, mid and leaf never happen. 100000 times; afterwards
 * after() -> after2() must still be recorded. */
#include <setjmp.h>
#include <stdio.h>
#define XI __attribute__((xray_always_instrument, noinline))
static jmp_buf jb;
XI void leaf(int i) { longjmp(jb, i + 1); }
XI void mid(int i) { leaf(i); }
XI void top(int i) { mid(i); }
XI int attempt(int i) {
  if (setjmp(jb) == 0) {
    top(i);
    return 0;
  }
  return 1;
}
XI int after2(int x) { return x + 2; }
XI int after(int x) { return after2(x) + 1; }
__attribute__((xray_never_instrument)) int main(void) {
  int caught = 0;
  for (int i = 0; i < 100000; i++)
    caught += attempt(i);
  printf("%d %d\n", caught, after(1));
  return 0;
}
