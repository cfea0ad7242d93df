/* The table of trace_output words and the writers of the decoded event
 * stream. See trace_formats.h. */
#include "export/trace_formats.h"
#include "core/base/report.h"
#include "core/clock/clock.h"
#include "core/clock/clock_lean.h"
#include "core/names/names.h"
#include "core/objects/objects.h"
#include "core/options/option_words.h"
#include "core/output/output.h"
#include "export/chrome_trace.h"
#include "export/perfetto_trace.h"
#include "export/thread_names.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One row per trace_output word, in bit order (XR_TRACE_OUT_*). A new
 * format: its file in lib/export/ and its row here; the option's help and
 * messages list the rows. */
static const struct {
  const char *word;
  const struct xr_trace_format *format; /* NULL: the mode's own log */
  const char *note;                     /* what it is, for the help text */
} rows[] = {
    {"xray", NULL, "the log"},
    {"chrome", &xr_chrome_format, "Chrome trace events for Perfetto"},
    {"perfetto", &xr_perfetto_format, "a native Perfetto trace"},
};
_Static_assert(XR_ARRAY_SIZE(rows) <= XR_TRACE_FORMATS_MAX, "one bit each");

unsigned xr_trace_outputs_parse(const char *s) {
  const char *words[XR_ARRAY_SIZE(rows)];
  for (size_t i = 0; i < XR_ARRAY_SIZE(rows); i++)
    words[i] = rows[i].word;
  return xr_options_word_set(s, words, XR_ARRAY_SIZE(rows));
}

/* The words, with their notes and files when `notes`. */
static void word_list(char *buf, size_t cap, bool notes) {
  const char *words[XR_ARRAY_SIZE(rows)], *what[XR_ARRAY_SIZE(rows)];
  char text[XR_ARRAY_SIZE(rows)][96];
  for (size_t i = 0; i < XR_ARRAY_SIZE(rows); i++) {
    words[i] = rows[i].word;
    snprintf(text[i], sizeof text[i], "%s%s%s", rows[i].note,
             rows[i].format ? ": <log>" : "",
             rows[i].format ? rows[i].format->suffix : "");
    what[i] = text[i];
  }
  xr_options_word_list(buf, cap, words, notes ? what : NULL,
                       XR_ARRAY_SIZE(rows));
}

const char *xr_trace_outputs_words(void) {
  static char text[128];
  if (text[0] == '\0')
    word_list(text, sizeof text, false);
  return text;
}

void xr_trace_outputs_help(char *buf, size_t cap) { word_list(buf, cap, true); }

void xr_trace_outputs_files(unsigned outputs, const char *log_path,
                            char *buf, size_t cap) {
  const char *words[XR_ARRAY_SIZE(rows)], *files[XR_ARRAY_SIZE(rows)];
  char text[XR_ARRAY_SIZE(rows)][PATH_MAX + 3];
  size_t n = 0;
  for (size_t i = 0; i < XR_ARRAY_SIZE(rows); i++) {
    if (!(outputs >> i & 1) || rows[i].format == NULL)
      continue;
    snprintf(text[n], sizeof text[n], "'%s%s'", log_path,
             rows[i].format->suffix);
    words[n] = rows[i].word;
    files[n] = text[n];
    n++;
  }
  xr_options_word_list(buf, cap, words, files, n);
}

bool xr_trace_outputs_streamed(unsigned outputs) {
  for (size_t i = 0; i < XR_ARRAY_SIZE(rows); i++)
    if ((outputs >> i & 1) && rows[i].format != NULL)
      return true;
  return false;
}

/* ---- names -------------------------------------------------------------- */

/* Names of packed ids, every object's, from the runtime's one name table
 * (lib/core/names/names.c): demangled, built once, never freed, so nothing is
 * opened or closed per trace; "fn<id>" when there is no table. */
static const char *packed_name(void *ctx, int32_t fid) {
  static char fallback[24];
  if (ctx != NULL)
    return xr_names_get_name(NULL, fid);
  snprintf(fallback, sizeof fallback, "fn%d", (int)fid);
  return fallback;
}

static const char *dense_name(void *ctx, int32_t fid) {
  int32_t packed = xr_objects_packed_of_dense(fid);
  return packed_name(packed < 0 ? NULL : ctx,
                              packed < 0 ? fid : packed);
}

/* ---- threads and the process -------------------------------------------- */

/* A thread's name: its comm while it lives, else the name it had when it
 * exited (thread_names.c), else, for the main thread, the program's. */
static const char *thread_name(void *ctx, int32_t pid, int32_t tid, char *buf,
                               size_t cap) {
  (void)ctx;
  char file[64];
  snprintf(file, sizeof file, "/proc/%d/task/%d/comm", (int)pid, (int)tid);
  int fd = open(file, O_RDONLY | O_CLOEXEC);
  if (fd >= 0 && cap > 16) {
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\0'))
      n--;
    if (n > 0) {
      buf[n] = '\0';
      return buf;
    }
  } else if (fd >= 0) {
    close(fd);
  }
  if (cap >= 16 && xr_thread_names_find(pid, tid, buf) != NULL)
    return buf;
  return tid == pid ? xr_program_name() : NULL;
}

static const char *process_name(void *ctx, int32_t pid) {
  (void)ctx;
  (void)pid; /* forks write their own logs: the process is this program */
  return xr_program_name();
}

/* CLOCK_BOOTTIME at the clock's start ticks: now on both clocks, less the
 * ticks since the start (0 when the clock cannot be read). */
static uint64_t boottime_at(uint64_t base_ticks, uint64_t frequency_hz) {
  struct timespec ts;
  if (frequency_hz == 0 || clock_gettime(CLOCK_BOOTTIME, &ts) != 0)
    return 0;
  uint64_t now = xr_now();
  uint64_t boot = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  uint64_t since = now > base_ticks
                       ? (uint64_t)((unsigned __int128)(now - base_ticks) *
                                    1000000000u / frequency_hz)
                       : 0;
  return boot > since ? boot - since : 0;
}

/* ---- writers ------------------------------------------------------------ */

size_t xr_trace_writers_open(struct xr_trace_writers *s, unsigned outputs,
                             const char *log_path, uint64_t frequency_hz,
                             enum xr_trace_ids ids, bool temp) {
  const struct xr_name_table *table;
  struct xr_trace_context c = {
      .frequency_hz = frequency_hz,
      .base_ticks = xr_clock.start_ticks,
      .base_boottime_ns = boottime_at(xr_clock.start_ticks, frequency_hz),
      .name = ids == XR_TRACE_IDS_DENSE ? dense_name : packed_name,
      .name_ctx = xr_names_table(0, &table) == XR_NAMES_OK ? (void *)table
                                                           : NULL,
      .thread_name = thread_name,
      .process_name = process_name};
  s->n = 0;
  s->temp = temp;
  s->log_path = log_path;
  for (size_t i = 0; i < XR_ARRAY_SIZE(rows); i++) {
    const struct xr_trace_format *f = rows[i].format;
    if (!(outputs >> i & 1) || f == NULL)
      continue;
    char done[PATH_MAX];
    int len = snprintf(done, sizeof done, "%s%s", log_path, f->suffix);
    if (len < 0 || (size_t)len >= sizeof done) {
      xr_report(XR_ERROR, "trace_output: no %s for '%s': name too long",
                f->suffix, log_path);
      continue;
    }
    int fd;
    char part[PATH_MAX];
    if (temp) {
      char suffix[32];
      snprintf(suffix, sizeof suffix, "%s.part", f->suffix);
      fd = xr_open_sibling_temp(log_path, suffix, part, sizeof part);
    } else {
      fd = xr_open_sibling_file(log_path, f->suffix, done, sizeof done);
    }
    if (fd < 0)
      continue; /* reported */
    /* Messages name the file the user will find, not the temporary one. */
    void *w = f->open(fd, done, &c);
    if (w == NULL) {
      if (temp)
        unlink(part);
      continue; /* reported */
    }
    s->format[s->n] = f;
    s->w[s->n++] = w;
  }
  return s->n;
}

void xr_trace_writers_dropped(struct xr_trace_writers *s, int32_t pid,
                              const struct xr_trace_drop *d, size_t n) {
  for (size_t i = 0; i < n; i++) {
    struct xr_tev e = {.kind = XR_TEV_DROPPED, .arg = d[i].count,
                       .data = d[i].what};
    if (d[i].count != 0)
      xr_trace_writers_event(s, pid, 0, &e);
  }
}

int xr_trace_writers_close(struct xr_trace_writers *s) {
  int rc = 0;
  for (size_t i = 0; i < s->n; i++) {
    int one = s->format[i]->close(s->w[i]);
    if (s->temp) { /* both names fitted at open */
      char done[PATH_MAX], part[PATH_MAX];
      int dn = snprintf(done, sizeof done, "%s%s", s->log_path,
                        s->format[i]->suffix);
      int pn = snprintf(part, sizeof part, "%s.part", done);
      if (dn < 0 || pn < 0 || (size_t)pn >= sizeof part)
        one = -1; /* cannot happen: open checked both */
      else if (one == 0 && rename(part, done) != 0) {
        xr_report(XR_ERROR, "trace_output: cannot rename '%s' to '%s': %s",
                  part, done, strerror(errno));
        one = -1;
      }
      if (one != 0)
        unlink(part);
    }
    if (one != 0)
      rc = -1;
  }
  s->n = 0;
  return rc;
}
