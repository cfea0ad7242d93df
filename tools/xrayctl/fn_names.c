/* Function names for the file commands. See fn_names.h.
 *
 * The table: an open-addressing hash from id to name, so that the sparse
 * packed ids of a basic log's shared objects ((object << 24) | function)
 * cost what the dense ids of the executable cost: one multiply and, at a
 * load of at most one half, about one probe per lookup. */
#define _GNU_SOURCE
#include "fn_names.h"

#include "demangle.h"
#include "elf_file.h"
#include "elf_symbols.h"
#include "instr_map.h"
#include "map_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bounds on what a hostile map or binary can make xrayctl hold: far above
 * any program's (100,000 functions of long C++ names are a few MB). */
#define MAX_FUNCTIONS (1u << 22)
#define MAX_NAME_BYTES (256u << 20)

struct slot {
  int32_t id;
  bool used;
  bool from_map; /* a second map line for the id is an error, a -m name is not */
  char *name;
};

struct ctl_names {
  struct slot *slots;
  unsigned bits; /* 2^bits slots */
  size_t count;
  size_t name_bytes;
};

static size_t slot_index(int32_t id, unsigned bits) {
  return (size_t)(((uint64_t)(uint32_t)id * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

static struct slot *find_slot(const struct ctl_names *n, int32_t id) {
  size_t mask = ((size_t)1 << n->bits) - 1;
  for (size_t i = slot_index(id, n->bits);; i = (i + 1) & mask)
    if (!n->slots[i].used || n->slots[i].id == id)
      return &n->slots[i];
}

/* Doubles the table (or makes the first one). */
static bool grow(struct ctl_names *n) {
  unsigned bits = n->slots ? n->bits + 1 : 10;
  struct slot *old = n->slots;
  size_t old_size = old ? (size_t)1 << n->bits : 0;
  n->slots = calloc((size_t)1 << bits, sizeof *n->slots);
  if (n->slots == NULL) {
    n->slots = old;
    return false;
  }
  n->bits = bits;
  for (size_t i = 0; i < old_size; i++)
    if (old[i].used)
      *find_slot(n, old[i].id) = old[i];
  free(old);
  return true;
}

/* Takes `name` (malloc'd) for id. Returns a CTL_MAP_* code; on an error
 * the name is freed. */
static int put(struct ctl_names *n, int32_t id, char *name, bool from_map) {
  size_t len = strlen(name);
  int rc = CTL_MAP_GO_ON;
  if (n->name_bytes + len > MAX_NAME_BYTES || n->count >= MAX_FUNCTIONS)
    rc = CTL_MAP_TOO_MANY;
  else if (((n->count + 1) * 2 > ((size_t)1 << n->bits) || n->slots == NULL) && !grow(n))
    rc = CTL_MAP_NO_MEMORY;
  if (rc != CTL_MAP_GO_ON) {
    free(name);
    return rc;
  }
  struct slot *s = find_slot(n, id);
  if (s->used && s->from_map && from_map) {
    free(name);
    return CTL_MAP_DUPLICATE;
  }
  if (s->used) {
    n->name_bytes -= strlen(s->name);
    free(s->name);
  } else {
    n->count++;
  }
  *s = (struct slot){id, true, from_map, name};
  n->name_bytes += len;
  return CTL_MAP_GO_ON;
}

const char *ctl_names_get(const struct ctl_names *n, int32_t id) {
  if (n == NULL || n->count == 0)
    return NULL;
  const struct slot *s = find_slot(n, id);
  return s->used ? s->name : NULL;
}

void ctl_names_close(struct ctl_names *n) {
  if (n == NULL)
    return;
  if (n->slots != NULL)
    for (size_t i = 0; i < (size_t)1 << n->bits; i++)
      free(n->slots[i].name);
  free(n->slots);
  free(n);
}

static int say(char *err, size_t errcap, const char *what) {
  snprintf(err, errcap, "%s", what);
  return -1;
}

/* The executable's ids (1..count) named from its symbols, demangled. */
static int read_binary(struct ctl_names *n, int fd, char *err, size_t errcap) {
  struct ctl_elf e;
  if (ctl_elf_open(&e, fd, err, errcap) != 0)
    return -1;
  struct ctl_instr_map m;
  int rc = ctl_instr_map_read(&e, &m, err, errcap);
  char **symbols = NULL;
  if (rc == 0 && m.count > MAX_FUNCTIONS)
    rc = say(err, errcap, "too many functions for xrayctl");
  if (rc == 0 && (symbols = calloc(m.count, sizeof *symbols)) == NULL)
    rc = say(err, errcap, "out of memory");
  if (rc == 0)
    rc = ctl_elf_symbols_at(&e, m.functions, m.count, symbols, err, errcap);
  for (size_t i = 0; rc == 0 && i < m.count; i++) {
    if (symbols[i] == NULL)
      continue;
    char *readable = ctl_demangle(symbols[i]);
    if (readable != NULL) {
      free(symbols[i]);
      symbols[i] = readable;
    }
    int put_rc = put(n, (int32_t)(i + 1), symbols[i], false);
    symbols[i] = NULL; /* put took it */
    if (put_rc != CTL_MAP_GO_ON)
      rc = say(err, errcap, put_rc == CTL_MAP_TOO_MANY ? "too many names for xrayctl"
                                                       : "out of memory");
  }
  if (symbols != NULL)
    for (size_t i = 0; i < m.count; i++)
      free(symbols[i]);
  free(symbols);
  ctl_instr_map_free(&m);
  ctl_elf_close(&e);
  return rc;
}

static int visit_map_function(void *ctx, int32_t id, const char *name, size_t len) {
  char *copy = malloc(len + 1);
  if (copy == NULL)
    return CTL_MAP_NO_MEMORY;
  memcpy(copy, name, len + 1);
  return put(ctx, id, copy, true);
}

/* Opens path for reading, or says why not in err ("PATH: reason"). */
static int open_input(const char *path, char *err, size_t errcap) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    snprintf(err, errcap, "%s: %s", path, strerror(errno));
  return fd;
}

/* err holds "what" of path: make it "PATH: what". */
static void name_the_file(const char *path, char *err, size_t errcap) {
  size_t len = strnlen(err, errcap);
  char *what = strndup(err, len);
  if (what != NULL) {
    snprintf(err, errcap, "%s: %s", path, what);
    free(what);
  }
}

struct ctl_names *ctl_names_open(const char *binary, const char *map, char *err,
                                 size_t errcap) {
  if (errcap > 0)
    err[0] = '\0';
  struct ctl_names *n = calloc(1, sizeof *n);
  if (n == NULL) {
    snprintf(err, errcap, "out of memory");
    return NULL;
  }
  if (binary != NULL) {
    int fd = open_input(binary, err, errcap);
    int rc = fd < 0 ? -1 : read_binary(n, fd, err, errcap);
    if (fd >= 0)
      close(fd);
    if (rc != 0) {
      if (fd >= 0)
        name_the_file(binary, err, errcap);
      ctl_names_close(n);
      return NULL;
    }
  }
  if (map != NULL) {
    /* the map's names replace -m's: it names the shared objects too, as
     * the program's own demangler spells them */
    int fd = open_input(map, err, errcap);
    struct ctl_map_info info;
    int rc = fd < 0 ? -1 : ctl_map_read(fd, visit_map_function, n, &info, err, errcap);
    if (fd >= 0)
      close(fd);
    if (rc != 0) {
      if (fd >= 0)
        name_the_file(map, err, errcap);
      ctl_names_close(n);
      return NULL;
    }
  }
  return n;
}

const char *ctl_names_sidecar(const char *trace, char *out, size_t cap) {
  int len = snprintf(out, cap, "%s.map", trace);
  if (len < 0 || (size_t)len >= cap)
    return NULL;
  return access(out, F_OK) == 0 ? out : NULL;
}
