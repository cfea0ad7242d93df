/* A server that sets its process title by writing over its argv memory
 * after start (as nginx, postgres or redis do), then works and, with
 * argument "snapshot", takes an FDR snapshot. The runtime was started by
 * XRAY_OPTIONS and writes its files at exit. */
#include <stdio.h>
#include <string.h>
#include <xray/xray_fdr.h>

__attribute__((noinline)) int work(int x) { return x * 3 + 1; }

int main(int argc, char **argv) {
  int snapshot = argc > 1 && strcmp(argv[1], "snapshot") == 0;
  /* the title goes over argv[0] and the arguments after it (contiguous) */
  size_t room = strlen(argv[0]);
  for (int i = 1; i < argc; i++)
    room += 1 + strlen(argv[i]);
  memset(argv[0], 0, room);
  snprintf(argv[0], room + 1, "srv: worker 1 of 2");
  int sum = 0;
  for (int i = 0; i < 10; i++)
    sum += work(i);
  if (snapshot) {
    char path[512];
    if (__xray_fdr_snapshot(path, sizeof path) != XRAY_SNAPSHOT_OK)
      return 3;
    sum += work(sum);
  }
  printf("%d\n", sum);
  return 0;
}
