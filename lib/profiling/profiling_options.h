/* XRAY_PROFILING_OPTIONS / the xray-profiling config string. The
 * profiling_output words are looked up in the outputs' table
 * (profile_outputs.h), below this file: the outputs never see these flags. */
#ifndef XR_PROFILING_OPTIONS_H
#define XR_PROFILING_OPTIONS_H

#include "core/options/options.h"

struct xr_profiling_flags {
  uint64_t per_thread_allocator_max;
  uint64_t global_allocator_max;
  uint64_t stack_allocator_max;
  int32_t grace_period_ms;
  bool no_flush;
  int32_t buffers_max;
  int32_t max_depth;
  int32_t report_top;
  char profiling_output[64];
  char folded_value[16];
  bool fold_recursion;
};

XR_HIDDEN extern const struct xr_option_table xr_profiling_options_table;

/* Defaults, then XRAY_PROFILING_OPTIONS, then config (config_size bytes, or a
 * NUL-terminated string when config_size is 0; NULL: none). Fills *outputs
 * (XR_PROF_OUT_* bits of profile_outputs.h) and *folded_calls from the two word options. Returns
 * 0, or -1 after a message when a value is bad (an over-long config, an
 * unknown word) or the combination cannot work: the mode then refuses to
 * start, as every mode does. */
XR_HIDDEN int xr_profiling_flags_load(struct xr_profiling_flags *f,
                                      const void *config, size_t config_size,
                                      unsigned *outputs, bool *folded_calls);

#endif
