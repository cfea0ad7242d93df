/* The sidecar `<log>.culled`: what the budget has culled when a mode
 * writes its log. Text: one '#' header line naming the columns, then one
 * function a line, tab-separated, its name last (it may hold blanks):
 *
 *   object  function  culled_at_s  calls_per_s  cost_percent  name
 *
 * object and function: the function's object id and its id in that
 * object (the `<log>.map` columns of the same names; object 0's id is the
 * id llvm-xray prints); culled_at_s: seconds since the first
 * instrumentation map; calls_per_s: its calls per second in the last
 * window before the cull; cost_percent: its estimated cost then, a percent
 * of the program's CPU time ("-" for a function culled before a fork that
 * lost the note). Only functions culled at the time of writing; only when
 * the budget ran in this process. */
#include "budget/budget.h"
#include "budget/budget_table.h"
#include "core/base/report.h"
#include "core/modes/budget_hooks.h"
#include "core/names/names.h"
#include "core/output/output.h"
#include "core/output/text_out.h"
#include "core/patch/patch_api.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void put_line(struct xr_text_out *o, size_t object, size_t index,
                     const struct xr_budget_note *note) {
  int32_t packed = xr_pack_id((int32_t)(index + 1), (int32_t)object);
  if (note->state == XR_BUDGET_CULLED && note->culled_at_ns != 0)
    xr_text_printf(o, "%zu\t%zu\t%.3f\t%.0f\t%.3f\t", object, index + 1,
                   xr_budget_seconds_since_start(note->culled_at_ns), note->calls_at_cull,
                   note->share_at_cull * 100);
  else
    xr_text_printf(o, "%zu\t%zu\t-\t-\t-\t", object, index + 1);
  xr_text_str(o, xr_names_get_name(NULL, packed));
  xr_text_put(o, "\n", 1);
}

void xr_budget_write_culled(const char *log_path) {
  if (!xr_budget_ever_ran())
    return;
  char path[PATH_MAX];
  static struct xr_text_out text; /* 16 KiB: not on the stack; flushes are serialised */
  int fd = xr_open_sibling_file(log_path, ".culled", path, sizeof path);
  if (fd < 0)
    return; /* reported */
  xr_text_init(&text, xr_text_fd_sink, &fd);
  xr_text_str(&text, "# object\tfunction\tculled_at_s\tcalls_per_s\tcost_percent\tname\n");
  size_t lines = 0;
  xr_lock_take(&xr_budget_table_lock);
  for (size_t id = 0; id < XR_MAX_OBJECTS; id++) {
    struct xr_budget_slice *s = &xr_budget_slices[id];
    if (s->count == 0)
      continue;
    /* The patcher's word, not the notes': the program may have patched a
     * culled function since the budget's last evaluation. */
    long n = xr_patch_function_states((int32_t)id, s->states, s->count);
    for (long i = 0; i < n; i++)
      if (s->states[i] & XR_FN_CULLED) {
        put_line(&text, id, (size_t)i, &s->notes[i]);
        lines++;
      }
  }
  xr_lock_release(&xr_budget_table_lock);
  int rc = xr_text_flush(&text);
  close(fd);
  if (rc != 0)
    xr_report(XR_ERROR, "writing '%s' failed: %s", path, strerror(text.failed));
  else
    xr_report(XR_INFO, "budget: %zu culled function(s) listed in %s", lines, path);
}
