/* Buffers handed out in memory by __xray_log_process_buffers: nothing
 * before finalize, header then buffers after it, nothing after flush; with
 * no_file_flush no file is written. The concatenation goes to the file named
 * by argv[2]. Usage: in_memory CONFIG OUT CALLS */
#include "fdr_test.h"
#include <string.h>

NOINLINE int work(int x) { fdr_sink = x; return x + 1; }

static FILE *out;
static int buffers;
static size_t bytes;
NEVER static void save(const char *mode, XRayBuffer b) {
  if (strcmp(mode, "xray-fdr") != 0)
    exit(3);
  fwrite(b.Data, 1, b.Size, out);
  buffers++;
  bytes += b.Size;
}

int main(int argc, char **argv) {
  fdr_start(fdr_config(argc, argv));
  for (int i = 0, n = atoi(argv[3]); i < n; i++)
    fdr_sink = work(i);
  out = fopen(argv[2], "wb");
  fdr_expect("process before finalize", __xray_log_process_buffers(save), XRAY_LOG_FLUSHED);
  fdr_expect("buffers before finalize", buffers, 0);
  fdr_expect("finalize", __xray_log_finalize(), XRAY_LOG_FINALIZED);
  fdr_expect("process", __xray_log_process_buffers(save), XRAY_LOG_FLUSHED);
  fclose(out);
  printf("buffers=%d bytes=%zu\n", buffers, bytes);
  fdr_expect("flush", __xray_log_flushLog(), XRAY_LOG_FLUSHED);
  buffers = 0;
  out = fopen("/dev/null", "wb");
  __xray_log_process_buffers(save);
  fdr_expect("buffers after flush", buffers, 0);
  return 0;
}
