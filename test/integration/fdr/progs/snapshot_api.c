/* Snapshots from code while recording goes on: two snapshots between
 * phases of work, statuses before init and after finalize, then the final
 * flush. Prints each snapshot's name. Usage: snapshot_api [CONFIG [STATUS]]
 * where STATUS is what the two snapshots must return (default 0, OK). */
#include "fdr_test.h"
#include <xray/xray_fdr.h>

NOINLINE int alpha(int x) { fdr_sink = x; return x + 1; }
NOINLINE int beta(int x) { return alpha(x) + 1; }
NOINLINE int gamma_(int x) { fdr_sink = x; return x; }

NEVER static void snapshot(const char *what, int want) {
  char path[512] = "unchanged";
  fdr_expect(what, __xray_fdr_snapshot(path, sizeof path), want);
  if (want == XRAY_SNAPSHOT_OK)
    printf("%s\n", path);
  else
    fdr_expect("no name without a snapshot", path[0], 0);
}

int main(int argc, char **argv) {
  int want = argc > 2 ? atoi(argv[2]) : XRAY_SNAPSHOT_OK;
  snapshot("before init", XRAY_SNAPSHOT_NOT_RECORDING);
  fdr_start(fdr_config(argc, argv));
  for (int i = 0; i < 100; i++)
    beta(i);
  snapshot("first", want);
  for (int i = 0; i < 50; i++)
    gamma_(i);
  snapshot("second", want);
  for (int i = 0; i < 10; i++)
    beta(i);
  fdr_expect("finalize", __xray_log_finalize(), XRAY_LOG_FINALIZED);
  snapshot("after finalize", XRAY_SNAPSHOT_NOT_RECORDING);
  fdr_expect("flush", __xray_log_flushLog(), XRAY_LOG_FLUSHED);
  puts("done");
  return 0;
}
