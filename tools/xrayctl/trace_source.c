/* Opening a trace for the file commands. See trace_source.h. */
#define _GNU_SOURCE
#include "trace_source.h"
#include "fn_names.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The writers' one door to names (xr_fn_name_fn): -m's and the map's,
 * else the id. */
static const char *id_name(void *ctx, int32_t fid) {
  struct ctl_source *s = ctx;
  const char *name = ctl_names_get(s->names, fid);
  if (name != NULL)
    return name;
  snprintf(s->fallback, sizeof s->fallback, "fn%d", (int)fid);
  return s->fallback;
}

int ctl_source_failed(const struct ctl_source *s) {
  fprintf(stderr, "xrayctl: %s: byte %llu: %s\n", s->path,
          (unsigned long long)s->in.err_offset, s->in.err);
  return 1;
}

/* The profile's clock from the report the runtime wrote beside it. */
static uint64_t report_clock(const char *path) {
  char txt[4096 + 8];
  if (snprintf(txt, sizeof txt, "%s.txt", path) >= (int)sizeof txt)
    return 0;
  FILE *f = fopen(txt, "re");
  if (f == NULL)
    return 0;
  char line[512];
  unsigned long long hz = 0;
  for (int i = 0; i < 8 && hz == 0 && fgets(line, sizeof line, f); i++) {
    char *end = line;
    if (strncmp(line, "# clock ", 8) == 0)
      hz = strtoull(line + 8, &end, 10);
    if (hz != 0 && strncmp(end, " Hz", 3) != 0)
      hz = 0;
  }
  fclose(f);
  return hz;
}

int ctl_source_open(struct ctl_source *s, const char *path, const char *binary,
                    uint64_t frequency_hz) {
  memset(s, 0, sizeof *s);
  s->path = path;
  s->in.fd = -1;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "xrayctl: cannot open '%s': %s\n", path, strerror(errno));
    return 1;
  }
  if (ctl_in_open(&s->in, fd, path) != 0 || ctl_trace_identify(&s->in, &s->info) != 0)
    return ctl_source_failed(s);
  if (s->info.kind == CTL_TRACE_PROFILE)
    s->info.frequency_hz = frequency_hz ? frequency_hz : report_clock(path);
  else if (frequency_hz)
    s->info.frequency_hz = frequency_hz;
  if (s->info.frequency_hz == 0) {
    fprintf(stderr, "xrayctl: %s: a profile holds ticks without their frequency: "
            "give --frequency HZ (the runtime's report beside it, '%s.txt', "
            "names it: '# clock N Hz')\n", path, path);
    return 1;
  }
  char map_buf[4096 + 8], err[512];
  const char *map = ctl_names_sidecar(path, map_buf, sizeof map_buf);
  s->names = ctl_names_open(binary, map, err, sizeof err);
  if (s->names == NULL) {
    fprintf(stderr, "xrayctl: %s\n", err);
    return 1;
  }
  s->name = id_name;
  s->name_ctx = s;
  return 0;
}

void ctl_source_close(struct ctl_source *s) {
  ctl_names_close(s->names);
  if (s->in.fd >= 0)
    close(s->in.fd);
  ctl_in_close(&s->in);
}
