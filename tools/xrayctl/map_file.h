/* A strict reader of the object map the runtime writes beside a log
 * (<log>.map, docs/formats.md "Object map"): the header line, `object`
 * lines, `function <id> <object> <function> <name>` lines. The file may
 * be hostile: a line longer than CTL_MAP_MAX_LINE, a NUL byte, a missing
 * or malformed field, a number out of range, an object declared twice or
 * not before its functions, an id that does not fit the header's kind
 * (packed: (object << 24) | function; dense: id-base + function) or a last
 * line without its newline is an error that names the line. */
#ifndef XRAYCTL_MAP_FILE_H
#define XRAYCTL_MAP_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Names reach tens of kilobytes; a line this long is not the runtime's. */
#define CTL_MAP_MAX_LINE (1u << 20)

/* Called for each function line: its id and name (len bytes, NUL after
 * them; valid during the call). Returns CTL_MAP_GO_ON, or why the reader
 * stops with an error on that line. */
enum { CTL_MAP_GO_ON = 0, CTL_MAP_DUPLICATE = 1, CTL_MAP_TOO_MANY = 2, CTL_MAP_NO_MEMORY = -1 };
typedef int (*ctl_map_visit)(void *ctx, int32_t id, const char *name, size_t len);

struct ctl_map_info {
  bool dense;       /* the header says dense ids (beside an FDR log) */
  size_t functions; /* function lines */
};

/* Reads the map from fd to its end. Returns 0, or -1 with "line N: what"
 * (or what, for a read error) in err. */
int ctl_map_read(int fd, ctl_map_visit visit, void *ctx, struct ctl_map_info *info,
                 char *err, size_t errcap);

#endif
