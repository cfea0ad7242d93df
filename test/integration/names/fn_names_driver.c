/* xrayctl's names module (tools/xrayctl/fn_names.c) seen from outside, for
 * fn_names.sh:
 *   ids BINARY [MAP]   every id of BINARY's xray_instr_map:
 *                      "id<TAB>0x<function address><TAB>name" ("-": none),
 *                      the names through ctl_names_get (-m BINARY, MAP)
 *   get MAP ID...      "id<TAB>name" of each ID from MAP alone
 *   open BINARY MAP    ctl_names_open's verdict: "ok", or its message
 *                      ("-" for a NULL argument)
 *   canon              each line of stdin in the canonical spelling
 *                      (lib/core/match/spelling.c) */
#include "core/match/spelling.h"
#include "xrayctl/elf_file.h"
#include "xrayctl/fn_names.h"
#include "xrayctl/instr_map.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *arg(const char *s) { return strcmp(s, "-") == 0 ? NULL : s; }

static int ids(const char *binary, const char *map) {
  char err[512];
  struct ctl_names *n = ctl_names_open(binary, map, err, sizeof err);
  if (n == NULL) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  int fd = open(binary, O_RDONLY);
  struct ctl_elf e;
  struct ctl_instr_map m;
  if (fd < 0 || ctl_elf_open(&e, fd, err, sizeof err) != 0 ||
      ctl_instr_map_read(&e, &m, err, sizeof err) != 0) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  for (size_t i = 0; i < m.count; i++) {
    const char *name = ctl_names_get(n, (int32_t)(i + 1));
    printf("%zu\t0x%llx\t%s\n", i + 1, (unsigned long long)m.functions[i], name ? name : "-");
  }
  ctl_instr_map_free(&m);
  ctl_elf_close(&e);
  close(fd);
  ctl_names_close(n);
  return 0;
}

static int get(const char *map, int count, char **id) {
  char err[512];
  struct ctl_names *n = ctl_names_open(NULL, map, err, sizeof err);
  if (n == NULL) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  for (int i = 0; i < count; i++) {
    const char *name = ctl_names_get(n, (int32_t)strtol(id[i], NULL, 0));
    printf("%s\t%s\n", id[i], name ? name : "-");
  }
  ctl_names_close(n);
  return 0;
}

static int canon(void) {
  size_t cap = 0;
  char *line = NULL;
  ssize_t len;
  while ((len = getline(&line, &cap, stdin)) > 0) {
    if (line[len - 1] == '\n')
      len--;
    char *out = malloc((size_t)len + 1);
    if (out == NULL)
      return 1;
    xr_spelling_canonical(line, (size_t)len, out);
    printf("%s\n", out);
    free(out);
  }
  free(line);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "ids") == 0)
    return ids(argv[2], argc > 3 ? argv[3] : NULL);
  if (argc >= 3 && strcmp(argv[1], "get") == 0)
    return get(argv[2], argc - 3, argv + 3);
  if (argc == 4 && strcmp(argv[1], "open") == 0) {
    char err[512];
    struct ctl_names *n = ctl_names_open(arg(argv[2]), arg(argv[3]), err, sizeof err);
    printf("%s\n", n ? "ok" : err);
    ctl_names_close(n);
    return 0;
  }
  if (argc == 2 && strcmp(argv[1], "canon") == 0)
    return canon();
  fprintf(stderr, "usage: see fn_names_driver.c\n");
  return 2;
}
