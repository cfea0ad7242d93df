/* Basic mode's options (basic_options.c): one table, read from
 * XRAY_BASIC_OPTIONS (or the legacy xray_naive_log_* flags) and the
 * log_init config string. */
#ifndef XR_BASIC_OPTIONS_H
#define XR_BASIC_OPTIONS_H

#include "core/base/common.h"
#include "core/options/options.h"

struct xr_basic_options {
  int32_t func_duration_threshold_us; /* calls shorter than this are erased */
  int32_t max_stack_depth;            /* deeper calls are not written */
  int32_t thread_buffer_size;         /* records (32 bytes) per thread buffer */
  int32_t grace_period_ms;            /* flush's wait for threads in a handler */
  char trace_output[32];              /* xray, chrome, xray+chrome */
};

XR_HIDDEN extern const struct xr_option_table xr_basic_options_table;

/* Defaults, then XRAY_BASIC_OPTIONS (or, when that is unset or empty, the
 * legacy xray_naive_log_* values of XRAY_OPTIONS), then `config` (may be
 * NULL; when config_size > 0 at most that many bytes are read). Returns
 * the number of bad values, each reported (an over-long config is one):
 * the mode then refuses to start, as every mode does. */
XR_HIDDEN int xr_basic_options_load(struct xr_basic_options *out,
                                     const char *config, size_t config_size);

#endif
