/* Basic mode's options: one table, read from XRAY_BASIC_OPTIONS (or the
 * legacy xray_naive_log_* flags of XRAY_OPTIONS when that variable is unset
 * or empty, as compiler-rt does) and then from the log_init config string. */
#include "basic/basic_internal.h"
#include "core/report.h"

#include <stddef.h>
#include <string.h>

#define OPT(field, deflt, lo, hi, help)                                       \
  {#field, XR_OPT_INT, offsetof(struct xr_basic_options, field), 0, deflt, lo, \
   hi, help}

static const struct xr_option basic_options[] = {
    OPT(func_duration_threshold_us, "5", 0, INT32_MAX,
        "calls shorter than this many microseconds are erased from the log "
        "(0 keeps every call)"),
    OPT(max_stack_depth, "64", 0, 1 << 20,
        "calls nested deeper than this are not written"),
    OPT(thread_buffer_size, "1024", 2, 1 << 22,
        "records (32 bytes each) buffered per thread before a write"),
    {"trace_output", XR_OPT_STRING, offsetof(struct xr_basic_options, trace_output),
     sizeof(((struct xr_basic_options *)0)->trace_output), "xray", 0, 0,
     "files to write: xray (the log), chrome (<log>.json, Chrome trace "
     "events for Perfetto) or xray+chrome"},
};

const struct xr_option_table xr_basic_options_table = {
    "XRAY_BASIC_OPTIONS", basic_options, XR_ARRAY_SIZE(basic_options)};

/* Takes a legacy flag value only when it is in the option's range. */
static void take_legacy(int32_t *field, int32_t value, size_t index) {
  const struct xr_option *o = &basic_options[index];
  if (value >= o->min && value <= o->max)
    *field = value;
  else
    xr_report(XR_ERROR, "xray_naive_log_%s=%d is out of range [%lld, %lld]; "
              "using %d", o->name, (int)value, (long long)o->min,
              (long long)o->max, (int)*field);
}

void xr_basic_options_load(struct xr_basic_options *out, const char *config,
                           size_t config_size) {
  xr_options_set_defaults(&xr_basic_options_table, out);
  const char *env = xr_getenv("XRAY_BASIC_OPTIONS");
  if (env != NULL && env[0] != '\0') {
    xr_options_parse(&xr_basic_options_table, out, env, "XRAY_BASIC_OPTIONS");
  } else {
    take_legacy(&out->func_duration_threshold_us,
                xr_flags.xray_naive_log_func_duration_threshold_us, 0);
    take_legacy(&out->max_stack_depth, xr_flags.xray_naive_log_max_stack_depth,
                1);
    take_legacy(&out->thread_buffer_size,
                xr_flags.xray_naive_log_thread_buffer_size, 2);
  }
  if (config == NULL)
    return;
  if (config_size == 0) {
    xr_options_parse(&xr_basic_options_table, out, config, "xray-basic config");
    return;
  }
  /* A sized config (__xray_log_init_mode_bin) need not be NUL-terminated. */
  char text[4096];
  size_t n = config_size < sizeof(text) - 1 ? config_size : sizeof(text) - 1;
  size_t len = 0;
  while (len < n && config[len] != '\0')
    len++;
  memcpy(text, config, len);
  text[len] = '\0';
  xr_options_parse(&xr_basic_options_table, out, text, "xray-basic config");
}
