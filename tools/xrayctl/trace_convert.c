/* xrayctl convert. See trace_convert.h. */
#define _GNU_SOURCE
#include "trace_convert.h"
#include "folded_out.h"
#include "profile_read.h"
#include "trace_source.h"
#include "export/chrome_trace.h"
#include "export/perfetto_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One row per --to word. A profile has no timeline: only formats that
 * take its nodes (folded) convert it. */
static const struct {
  const char *word;
  const struct xr_trace_format *format;
  bool takes_profile;
} formats[] = {
    {"perfetto", &xr_perfetto_format, false},
    {"chrome", &xr_chrome_format, false},
    {"folded", &ctl_folded_format, true},
};

/* The program's name: -m BINARY's base name; the trace does not hold it. */
static const char *program_name(void *ctx, int32_t pid) {
  (void)pid;
  const char *binary = ctx, *slash = strrchr(binary, '/');
  return slash ? slash + 1 : binary;
}

struct feed {
  const struct xr_trace_format *format;
  void *w;
};

static void to_writer(void *ctx, int32_t pid, int32_t tid, const struct xr_tev *e) {
  struct feed *f = ctx;
  f->format->event(f->w, pid, tid, e);
}

static const char usage_convert[] =
    "usage: xrayctl convert TRACE [-m BINARY] --to perfetto|chrome|folded -o OUT "
    "[--frequency HZ]\n";

int ctl_cmd_convert(int argc, char **argv) {
  const char *path = NULL, *binary = NULL, *to = NULL, *out = NULL;
  unsigned long long hz = 0;
  for (int i = 0; i < argc && argv[i] != NULL; i++) {
    const char *a = argv[i];
    bool has_value = i + 1 < argc;
    if (strcmp(a, "-m") == 0 && has_value) {
      binary = argv[++i];
    } else if (strcmp(a, "--to") == 0 && has_value) {
      to = argv[++i];
    } else if (strcmp(a, "-o") == 0 && has_value) {
      out = argv[++i];
    } else if (strcmp(a, "--frequency") == 0 && has_value) {
      char *end;
      hz = strtoull(argv[++i], &end, 10);
      if (*end || hz == 0)
        return fputs("xrayctl: --frequency must be a positive number of Hz\n", stderr), 2;
    } else if (a[0] != '-' && path == NULL) {
      path = a;
    } else {
      fputs(usage_convert, stderr);
      return 2;
    }
  }
  if (path == NULL || to == NULL || out == NULL) {
    fputs(usage_convert, stderr);
    return 2;
  }
  size_t k = 0;
  while (k < sizeof formats / sizeof formats[0] && strcmp(formats[k].word, to) != 0)
    k++;
  if (k == sizeof formats / sizeof formats[0]) {
    fprintf(stderr, "xrayctl: --to %s: not a format (perfetto, chrome, folded)\n", to);
    return 2;
  }
  struct ctl_source src;
  int rc = ctl_source_open(&src, path, binary, hz);
  if (rc == 0 && src.info.kind == CTL_TRACE_PROFILE && !formats[k].takes_profile) {
    fprintf(stderr, "xrayctl: %s: a profile has calls per call path, no timeline: "
            "it converts --to folded only\n", path);
    rc = 2;
  }
  if (rc != 0) {
    ctl_source_close(&src);
    return rc;
  }
  int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    fprintf(stderr, "xrayctl: cannot create '%s': %s\n", out, strerror(errno));
    ctl_source_close(&src);
    return 1;
  }
  struct xr_trace_context c = {.frequency_hz = src.info.frequency_hz,
                               .base_ticks = src.info.start_tsc,
                               .name = src.name,
                               .name_ctx = src.name_ctx,
                               .process_name = binary ? program_name : NULL,
                               .who_ctx = (void *)binary};
  struct feed feed = {formats[k].format, formats[k].format->open(fd, out, &c)};
  if (feed.w == NULL) { /* said why; the writer closed fd */
    unlink(out);
    ctl_source_close(&src);
    return 1;
  }
  if (src.info.kind == CTL_TRACE_PROFILE)
    rc = ctl_profile_nodes(&src.in, ctl_folded_node, feed.w);
  else
    rc = ctl_trace_events(&src.in, &src.info, to_writer, &feed);
  if (rc != 0)
    rc = ctl_source_failed(&src);
  if (feed.format->close(feed.w) != 0)
    rc = 1;
  if (rc != 0)
    unlink(out); /* never half a file that looks whole */
  ctl_source_close(&src);
  return rc;
}
