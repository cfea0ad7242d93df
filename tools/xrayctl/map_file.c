/* The object map reader. See map_file.h; the format is docs/formats.md's
 * and lib/core/names/object_map.c's, which writes it. */
#define _GNU_SOURCE
#include "map_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_OBJECTS 256              /* object ids 0..255 */
#define MAX_FUNCTION 0xffffffu       /* 24 bits of a packed id */
#define MAX_DENSE ((1u << 28) - 1)   /* 28 bits of an FDR record */
#define MAX_BUILD_ID_HEX 64          /* 32 bytes */

static const char header_start[] = "# XRay object map of ";
static const char header_packed[] = ": function <packed id> <object> <function> <name>";
static const char header_dense[] =
    ": function <dense id = id-base + function> <object> <function> <name>";

struct reader {
  ctl_map_visit visit;
  void *ctx;
  struct ctl_map_info *info;
  size_t line;
  bool object_seen[MAX_OBJECTS];
  char *err;
  size_t errcap;
};

static int fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct reader *r, const char *fmt, ...) {
  int n = snprintf(r->err, r->errcap, "line %zu: ", r->line);
  if (n >= 0 && (size_t)n < r->errcap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err + n, r->errcap - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* A line being read field by field: [p, end). */
struct fields {
  const char *p, *end;
};

/* The next field, up to one space or the end of the line; false when
 * there is none or it is empty (two spaces in a row). */
static bool field(struct fields *f, const char **start, size_t *len) {
  if (f->p >= f->end)
    return false;
  const char *space = memchr(f->p, ' ', (size_t)(f->end - f->p));
  const char *stop = space != NULL ? space : f->end;
  *start = f->p;
  *len = (size_t)(stop - f->p);
  f->p = space != NULL ? space + 1 : f->end;
  return *len > 0;
}

/* The rest of the line (a path or a name: spaces allowed), non-empty. */
static bool rest(struct fields *f, const char **start, size_t *len) {
  *start = f->p;
  *len = (size_t)(f->end - f->p);
  f->p = f->end;
  return *len > 0;
}

static bool keyword(struct fields *f, const char *word) {
  const char *s;
  size_t n;
  return field(f, &s, &n) && n == strlen(word) && memcmp(s, word, n) == 0;
}

/* A decimal number as the runtime prints it: digits, no leading zero but
 * for 0 itself, at most max. */
static bool decimal(const char *s, size_t n, uint64_t max, uint64_t *out) {
  if (n == 0 || (s[0] == '0' && n > 1))
    return false;
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return false;
    unsigned d = (unsigned)(s[i] - '0');
    if (v > (max - d) / 10)
      return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

static bool decimal_field(struct fields *f, uint64_t max, uint64_t *out) {
  const char *s;
  size_t n;
  return field(f, &s, &n) && decimal(s, n, max, out);
}

/* "-", or lowercase hex digits: of even count up to max_digits when even. */
static bool hex_or_dash(const char *s, size_t n, size_t max_digits, bool even, bool dash) {
  if (dash && n == 1 && s[0] == '-')
    return true;
  if (n == 0 || n > max_digits || (even && n % 2))
    return false;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return false;
  return true;
}

/* object <id> <loaded|unloaded> base 0x<hex> functions <n> build-id <hex|->
 * id-base <n|-> path <path> */
static int object_line(struct reader *r, struct fields *f) {
  uint64_t id, count;
  const char *s;
  size_t n;
  if (!decimal_field(f, MAX_OBJECTS - 1, &id))
    return fail(r, "object id is not a number from 0 to %d", MAX_OBJECTS - 1);
  if (r->object_seen[id])
    return fail(r, "object %u is described twice", (unsigned)id);
  r->object_seen[id] = true;
  if (!field(f, &s, &n) || !((n == 6 && memcmp(s, "loaded", 6) == 0) ||
                             (n == 8 && memcmp(s, "unloaded", 8) == 0)))
    return fail(r, "object %u: expected 'loaded' or 'unloaded'", (unsigned)id);
  if (!keyword(f, "base") || !field(f, &s, &n) || n < 3 || memcmp(s, "0x", 2) != 0 ||
      !hex_or_dash(s + 2, n - 2, 16, false, false))
    return fail(r, "object %u: expected 'base 0x<hex address>'", (unsigned)id);
  if (!keyword(f, "functions") || !decimal_field(f, MAX_FUNCTION, &count))
    return fail(r, "object %u: expected 'functions <count>' (at most %u)", (unsigned)id,
                MAX_FUNCTION);
  if (!keyword(f, "build-id") || !field(f, &s, &n) ||
      !hex_or_dash(s, n, MAX_BUILD_ID_HEX, true, true))
    return fail(r, "object %u: expected 'build-id <hex bytes, or ->'", (unsigned)id);
  if (!keyword(f, "id-base") || !field(f, &s, &n) ||
      !((n == 1 && s[0] == '-') || decimal(s, n, MAX_DENSE, &count)))
    return fail(r, "object %u: expected 'id-base <number, or ->'", (unsigned)id);
  if (!keyword(f, "path") || !rest(f, &s, &n))
    return fail(r, "object %u: expected 'path <path>'", (unsigned)id);
  return 0;
}

/* The id field: a decimal int32 (packed ids of objects 128 and up are
 * negative) or a dense id 1..2^28-1. */
static bool id_field(struct fields *f, bool dense, int64_t *out) {
  const char *s;
  size_t n;
  uint64_t v;
  if (!field(f, &s, &n))
    return false;
  bool negative = !dense && s[0] == '-';
  if (negative) {
    s++;
    n--;
  }
  uint64_t max = dense ? MAX_DENSE : negative ? (uint64_t)INT32_MAX + 1 : INT32_MAX;
  if (!decimal(s, n, max, &v) || v == 0)
    return false;
  *out = negative ? -(int64_t)v : (int64_t)v;
  return true;
}

/* function <id> <object> <function> <name> */
static int function_line(struct reader *r, struct fields *f) {
  int64_t id;
  uint64_t object, function;
  const char *name;
  size_t len;
  bool dense = r->info->dense;
  if (!id_field(f, dense, &id))
    return dense ? fail(r, "function id is not a dense id from 1 to %u", MAX_DENSE)
                 : fail(r, "function id is not a non-zero 32-bit packed id");
  if (!decimal_field(f, MAX_OBJECTS - 1, &object))
    return fail(r, "function %lld: object is not a number from 0 to %d", (long long)id,
                MAX_OBJECTS - 1);
  if (!r->object_seen[object])
    return fail(r, "function %lld: object %u is not described before it", (long long)id,
                (unsigned)object);
  if (!decimal_field(f, MAX_FUNCTION, &function) || function == 0)
    return fail(r, "function %lld: function number is not from 1 to %u", (long long)id,
                MAX_FUNCTION);
  /* A packed id is the object and function numbers; a dense one is an id
   * base (at least 0) plus the function number. */
  if (!dense && id != (int32_t)(uint32_t)(object << 24 | function))
    return fail(r, "function %lld is not the packed id of object %u, function %u",
                (long long)id, (unsigned)object, (unsigned)function);
  if (dense && (uint64_t)id < function)
    return fail(r, "function %lld is less than its function number %u", (long long)id,
                (unsigned)function);
  if (!rest(f, &name, &len))
    return fail(r, "function %lld has no name", (long long)id);
  switch (r->visit(r->ctx, (int32_t)id, name, len)) {
  case CTL_MAP_GO_ON:
    r->info->functions++;
    return 0;
  case CTL_MAP_DUPLICATE:
    return fail(r, "function %lld is named twice", (long long)id);
  case CTL_MAP_TOO_MANY:
    return fail(r, "too many names (more than xrayctl keeps)");
  default:
    return fail(r, "out of memory");
  }
}

static bool ends_with(const char *s, size_t n, const char *tail) {
  size_t t = strlen(tail);
  return n >= t && memcmp(s + n - t, tail, t) == 0;
}

/* One line, without its newline; the byte after it is writable. */
static int one_line(struct reader *r, char *text, size_t n) {
  text[n] = '\0'; /* names are handed on NUL-terminated */
  if (memchr(text, '\0', n) != NULL)
    return fail(r, "holds a NUL byte");
  size_t start = sizeof header_start - 1;
  if (r->line == 1) {
    bool packed = ends_with(text, n, header_packed), dense = ends_with(text, n, header_dense);
    size_t tail = strlen(dense ? header_dense : header_packed);
    if (n <= start + tail || memcmp(text, header_start, start) != 0 || !(packed || dense))
      return fail(r, "not the header of an XRay object map ('%s<log>%s' or its dense "
                     "form)", header_start, header_packed);
    r->info->dense = dense;
    return 0;
  }
  struct fields f = {text, text + n};
  if (keyword(&f, "object"))
    return object_line(r, &f);
  f.p = text;
  if (keyword(&f, "function"))
    return function_line(r, &f);
  return fail(r, "neither an 'object' nor a 'function' line");
}

int ctl_map_read(int fd, ctl_map_visit visit, void *ctx, struct ctl_map_info *info,
                 char *err, size_t errcap) {
  struct reader *r = calloc(1, sizeof *r);
  char *line = malloc(CTL_MAP_MAX_LINE + 1);
  char *chunk = malloc(65536);
  int rc = 0;
  memset(info, 0, sizeof *info);
  if (r == NULL || line == NULL || chunk == NULL) {
    snprintf(err, errcap, "out of memory");
    rc = -1;
    goto out;
  }
  *r = (struct reader){visit, ctx, info, 1, {false}, err, errcap};
  size_t len = 0; /* of the line so far */
  for (;;) {
    ssize_t got = read(fd, chunk, 65536);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      snprintf(err, errcap, "cannot read: %s", strerror(errno));
      rc = -1;
      break;
    }
    if (got == 0) {
      if (len > 0)
        rc = fail(r, "cut short: the file does not end with a newline");
      else if (r->line == 1)
        rc = fail(r, "empty file: not an XRay object map");
      break;
    }
    for (const char *p = chunk, *end = chunk + got; p < end && rc == 0;) {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      size_t take = (size_t)((nl != NULL ? nl : end) - p);
      if (len + take > CTL_MAP_MAX_LINE) {
        rc = fail(r, "longer than %u bytes", CTL_MAP_MAX_LINE);
        break;
      }
      memcpy(line + len, p, take);
      len += take;
      p += take;
      if (nl != NULL) {
        rc = one_line(r, line, len);
        r->line++;
        len = 0;
        p++;
      }
    }
    if (rc != 0)
      break;
  }
out:
  free(chunk);
  free(line);
  free(r);
  return rc;
}
