/* The FDR buffers as __xray_log_process_buffers hands them over, copied
 * end to end into `trace` (the controller tests read the records back).
 * Include after <cmocka.h>. */
#ifndef FDR_TEST_COLLECTED_TRACE_H
#define FDR_TEST_COLLECTED_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "xray/xray_log_interface.h"

static uint8_t trace[1 << 18];
static size_t trace_len;
static inline void collect(const char *mode, XRayBuffer b) {
  assert_string_equal(mode, "xray-fdr");
  assert_true(trace_len + b.Size <= sizeof trace);
  memcpy(trace + trace_len, b.Data, b.Size);
  trace_len += b.Size;
}

#endif
