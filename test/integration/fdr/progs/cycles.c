/* Re-initialisation under load: THREADS threads call work() without pause
 * while main runs CYCLES init/finalize/process/flush cycles with different
 * buffer sizes (each cycle unmaps the previous buffers). Every cycle's
 * in-memory buffers go to cycle-N.trace. No crash, no hang, every trace
 * readable. Usage: cycles THREADS CYCLES */
#include "fdr_test.h"
#include <pthread.h>
#include <string.h>

NOINLINE int work(int x) { fdr_sink = x; return x + 1; }
NOINLINE void custom(void) { static char m[] = "under-load"; __xray_customevent(m, sizeof m - 1); }

static volatile int stop_threads;
NEVER static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; !stop_threads; i++) {
    fdr_sink = work(i);
    if ((i & 255) == 0)
      custom();
  }
  return NULL;
}

static FILE *out;
NEVER static void save(const char *mode, XRayBuffer b) {
  (void)mode;
  fwrite(b.Data, 1, b.Size, out);
}

int main(int argc, char **argv) {
  int threads = atoi(argv[1]), cycles = atoi(argv[2]);
  __xray_log_select_mode("xray-fdr");
  pthread_t t[16];
  for (int i = 0; i < threads; i++)
    pthread_create(&t[i], NULL, worker, NULL);
  for (int c = 0; c < cycles; c++) {
    char cfg[128], name[32];
    snprintf(cfg, sizeof cfg,
             "func_duration_threshold_us=0 no_file_flush=true buffer_max=%d buffer_size=%d",
             2 + c % 5, 1024 << (c % 4));
    fdr_expect("init", __xray_log_init_mode("xray-fdr", cfg), XRAY_LOG_INITIALIZED);
    if (c == 0)
      fdr_expect("patch", __xray_patch(), SUCCESS);
    for (int i = 0; i < 2000; i++)
      fdr_sink = work(i);
    fdr_expect("finalize", __xray_log_finalize(), XRAY_LOG_FINALIZED);
    snprintf(name, sizeof name, "cycle-%d.trace", c);
    out = fopen(name, "wb");
    fdr_expect("process", __xray_log_process_buffers(save), XRAY_LOG_FLUSHED);
    fclose(out);
    fdr_expect("flush", __xray_log_flushLog(), XRAY_LOG_FLUSHED);
  }
  stop_threads = 1;
  for (int i = 0; i < threads; i++)
    pthread_join(t[i], NULL);
  return 0;
}
