/* The state machine's statuses, bad configurations and the deprecated
 * log_init sizes; prints one line per call. Usage: states */
#include "fdr_test.h"

NOINLINE int work(int x) { fdr_sink = x; return x + 1; }

#define SHOW(expr) printf("%s = %d\n", #expr, (int)(expr))

int main(void) {
  SHOW(__xray_log_select_mode("xray-fdr"));
  SHOW(__xray_log_finalize());
  SHOW(__xray_log_flushLog());
  SHOW(__xray_log_init_mode("xray-fdr", "buffer_size=0"));
  SHOW(__xray_log_init_mode("xray-fdr", "buffer_max=0"));
  SHOW(__xray_log_init_mode("xray-fdr", "buffer_max=garbage"));
  SHOW(__xray_log_init_mode("xray-fdr", "buffer_size=99999999999999999999"));
  SHOW(__xray_log_init_mode("xray-fdr", "buffer_size=1073741824 buffer_max=1048576"));
  SHOW(__xray_log_init_mode("xray-fdr", "format_version=4"));
  SHOW(__xray_log_init_mode("xray-fdr", "func_duration_threshold_us=-1"));
  SHOW(__xray_log_init_mode("xray-fdr", "\x01\x02\xff garbage"));
  SHOW(__xray_log_init(0, 0, NULL, 0));
  SHOW(__xray_log_init_mode("xray-fdr", "func_duration_threshold_us=0"));
  SHOW(__xray_log_init_mode("xray-fdr", "func_duration_threshold_us=0"));
  SHOW(__xray_patch());
  SHOW(work(1));
  SHOW(__xray_log_flushLog());
  SHOW(__xray_log_finalize());
  SHOW(__xray_log_finalize());
  SHOW(__xray_log_init_mode("xray-fdr", "func_duration_threshold_us=0"));
  SHOW(__xray_log_flushLog());
  SHOW(__xray_log_flushLog());
  SHOW(__xray_log_finalize());
  /* deprecated form: sizes instead of a config string */
  SHOW(__xray_log_init(4096, 3, NULL, 0));
  SHOW(work(2));
  SHOW(work(3));
  SHOW(__xray_log_finalize());
  SHOW(__xray_log_flushLog());
  return 0;
}
