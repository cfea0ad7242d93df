/* A known number of calls (main 1, mid 3, leaf 15) under whatever mode
 * XRAY_OPTIONS starts; "snapshot" as argv[1] also writes an FDR snapshot
 * before returning. Prints the version the archive and the headers say. */
#include <xray/xray_fdr.h>
#include <xray/xray_version.h>

#include <stdio.h>
#include <string.h>

volatile int sink;
__attribute__((noinline)) void leaf(int x) { sink += x; }
__attribute__((noinline)) void mid(int x) {
  for (int i = 0; i < 5; i++)
    leaf(x + i);
}

int main(int argc, char **argv) {
  for (int i = 0; i < 3; i++)
    mid(i);
  if (argc > 1 && strcmp(argv[1], "snapshot") == 0) {
    char path[4096];
    if (__xray_fdr_snapshot(path, sizeof path) != XRAY_SNAPSHOT_OK)
      return 2;
  }
  printf("%s %s\n", __xray_runtime_version(), XRAY_RUNTIME_VERSION);
  return 0;
}
