/* libFuzzer target: xrayctl's names for the file commands
 * (tools/xrayctl/fn_names.c and the readers under it), whose inputs are
 * files anyone may hand to `xrayctl report -m BINARY` or leave beside a
 * trace as its .map.
 *
 * Input: byte 0 says what the rest is: bit 0 clear, an object map; set, an
 * ELF file (-m). The rest goes into a memfd, read through /proc/self/fd/N
 * as xrayctl reads a path. Checks beyond "no crash, no sanitizer report,
 * no hang":
 * - ctl_names_open fails exactly when it says why;
 * - a map: the reader succeeds exactly when the table opens, and then every
 *   id of a function line is named by ctl_names_get with that line's name;
 * - an ELF file: when its ids can be read, every id 1..count has no name or
 *   a non-empty one, and no id outside names anything. */
#define _GNU_SOURCE
#include "xrayctl/elf_file.h"
#include "xrayctl/fn_names.h"
#include "xrayctl/instr_map.h"
#include "xrayctl/map_file.h"

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define KEPT 256

struct lines {
  size_t count;
  int32_t ids[KEPT];
  char *names[KEPT];
};

static int keep(void *ctx, int32_t id, const char *name, size_t len) {
  struct lines *l = ctx;
  assert(len > 0 && strlen(name) == len && memchr(name, '\n', len) == NULL);
  for (size_t i = 0; i < l->count && i < KEPT; i++)
    if (l->ids[i] == id)
      return CTL_MAP_DUPLICATE; /* as the table says of it */
  if (l->count < KEPT) {
    l->ids[l->count] = id;
    l->names[l->count] = strdup(name);
    assert(l->names[l->count] != NULL);
  }
  l->count++;
  return CTL_MAP_GO_ON;
}

static struct ctl_names *open_checked(const char *binary, const char *map) {
  char err[512];
  err[0] = '\0';
  struct ctl_names *n = ctl_names_open(binary, map, err, sizeof err);
  assert((n == NULL) == (err[0] != '\0'));
  assert(strlen(err) < sizeof err);
  return n;
}

static void check_map(int fd, const char *path) {
  struct lines l = {0};
  struct ctl_map_info info;
  char err[512];
  int rc = ctl_map_read(fd, keep, &l, &info, err, sizeof err);
  struct ctl_names *n = open_checked(NULL, path);
  /* the table may only refuse more: beyond the kept lines it checks
   * duplicates itself */
  if (rc != 0)
    assert(n == NULL);
  if (n != NULL) {
    assert(rc == 0 && info.functions == l.count);
    for (size_t i = 0; i < l.count && i < KEPT; i++) {
      const char *name = ctl_names_get(n, l.ids[i]);
      assert(name != NULL && strcmp(name, l.names[i]) == 0);
    }
  } else if (rc == 0) {
    assert(l.count > KEPT); /* a duplicate among lines the check did not keep */
  }
  ctl_names_close(n);
  for (size_t i = 0; i < l.count && i < KEPT; i++)
    free(l.names[i]);
}

static void check_elf(int fd, const char *path) {
  struct ctl_names *n = open_checked(path, NULL);
  struct ctl_elf e;
  struct ctl_instr_map m = {0};
  char err[512];
  bool has_ids = ctl_elf_open(&e, fd, err, sizeof err) == 0 &&
                 ctl_instr_map_read(&e, &m, err, sizeof err) == 0;
  if (n != NULL) {
    assert(has_ids);
    for (size_t id = 1; id <= m.count; id++) {
      const char *name = ctl_names_get(n, (int32_t)id);
      assert(name == NULL || name[0] != '\0');
    }
    assert(ctl_names_get(n, 0) == NULL && ctl_names_get(n, -1) == NULL);
    assert(ctl_names_get(n, (int32_t)m.count + 1) == NULL);
  }
  ctl_instr_map_free(&m);
  ctl_elf_close(&e);
  ctl_names_close(n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  int fd = memfd_create("fuzz_fn_names", 0);
  if (fd < 0)
    return 0;
  if (size > 1 && write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
    close(fd);
    return 0;
  }
  lseek(fd, 0, SEEK_SET);
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  if (data[0] & 1)
    check_elf(fd, path);
  else
    check_map(fd, path);
  close(fd);
  return 0;
}
