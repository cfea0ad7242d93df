/* Basic mode's options: one table, read from XRAY_BASIC_OPTIONS (or the
 * legacy xray_naive_log_* flags of XRAY_OPTIONS when that variable is unset
 * or empty, as compiler-rt does) and then from the log_init config string. */
#include "basic/basic_options.h"
#include "core/base/report.h"
#include "core/thread/quiesce.h"
#include "export/trace_formats.h"

#include <stddef.h>
#include <string.h>

#define OPT(field, deflt, lo, hi, help)                                       \
  {#field, XR_OPT_INT, offsetof(struct xr_basic_options, field), 0, deflt, lo, \
   hi, help, NULL}

static const struct xr_option basic_options[] = {
    OPT(func_duration_threshold_us, "5", XR_BASIC_THRESHOLD_MIN, XR_BASIC_THRESHOLD_MAX,
        "calls shorter than this many microseconds are erased from the log "
        "(0 keeps every call)"),
    OPT(max_stack_depth, "64", XR_BASIC_DEPTH_MIN, XR_BASIC_DEPTH_MAX,
        "calls nested deeper than this are not written"),
    OPT(thread_buffer_size, "1024", XR_BASIC_BUFFER_MIN, XR_BASIC_BUFFER_MAX,
        "records (32 bytes each) buffered per thread before a write"),
    OPT(grace_period_ms, XR_QUIESCE_BOUND_DEFAULT_TEXT, 0, 3600000,
        "longest wait at flush for threads still writing an event"
        XR_QUIESCE_BOUND_RANGE_TEXT),
    {"trace_output", XR_OPT_STRING, offsetof(struct xr_basic_options, trace_output),
     sizeof(((struct xr_basic_options *)0)->trace_output), "xray", 0, 0,
     "files to write at flush, several joined by '+'",
     xr_trace_outputs_help},
};

const struct xr_option_table xr_basic_options_table = {
    "XRAY_BASIC_OPTIONS", basic_options, XR_ARRAY_SIZE(basic_options)};

/* Takes a legacy flag value (XRAY_OPTIONS' parser already held it to the
 * same range) for the option of that name. */
static void take_legacy(int32_t *field, int32_t value, const char *name) {
  const struct xr_option *o = NULL;
  for (size_t i = 0; i < XR_ARRAY_SIZE(basic_options) && o == NULL; i++)
    if (strcmp(basic_options[i].name, name) == 0)
      o = &basic_options[i];
  if (o != NULL && value >= o->min && value <= o->max)
    *field = value;
  else
    xr_report(XR_ERROR, "xray_naive_log_%s=%d is out of range; using %d", name,
              (int)value, (int)*field);
}

int xr_basic_options_load(struct xr_basic_options *out, const char *config,
                          size_t config_size) {
  xr_options_set_defaults(&xr_basic_options_table, out);
  int bad = 0;
  const char *env = xr_getenv("XRAY_BASIC_OPTIONS");
  if (env != NULL && env[0] != '\0') {
    bad += xr_options_parse(&xr_basic_options_table, out, env,
                            "XRAY_BASIC_OPTIONS");
  } else {
    take_legacy(&out->func_duration_threshold_us,
                xr_flags.xray_naive_log_func_duration_threshold_us,
                "func_duration_threshold_us");
    take_legacy(&out->max_stack_depth, xr_flags.xray_naive_log_max_stack_depth,
                "max_stack_depth");
    take_legacy(&out->thread_buffer_size,
                xr_flags.xray_naive_log_thread_buffer_size, "thread_buffer_size");
  }
  return bad + xr_options_parse_config(&xr_basic_options_table, out, config,
                                       config_size, "xray-basic config");
}
