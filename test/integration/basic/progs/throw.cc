// C++ exceptions skip the exits of every frame they unwind through.
#include <cstdio>
#define XI __attribute__((xray_always_instrument, noinline))
XI void thrower(int i) { throw i; }
XI void middle(int i) { thrower(i); }
XI int catcher(int i) {
  try {
    middle(i);
  } catch (int) {
    return 1;
  }
  return 0;
}
XI int after(int x) { return x + 1; }
__attribute__((xray_never_instrument)) int main() {
  int caught = 0;
  for (int i = 0; i < 10000; i++)
    caught += catcher(i);
  std::printf("%d %d\n", caught, after(1));
  return 0;
}
