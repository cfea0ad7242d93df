/* The name table: one readable name per instrumented function, per object.
 *
 * Built once, lazily (first use of a name, a pattern or the xray_patch /
 * xray_skip options), from the object's ELF symbols (symbols.c: .symtab,
 * else .dynsym). C++ names are demangled when the program links a C++
 * runtime (weak __cxa_demangle); a C program links exactly as without it.
 * All memory comes from mmap and is never freed, so a loaded table is
 * immutable and its strings stay valid for the life of the process: reading
 * it is async-signal-safe.
 *
 * Keyed by object id (objects.c): slot 0 is the executable, a shared
 * object's table is read from its own file at its first use (through
 * xr_object_info, or xr_names_add_object when the registry lock is held),
 * so names and patterns cover every object the same way. */
#ifndef XR_NAMES_H
#define XR_NAMES_H

#include "core/base/common.h"
#include "core/objects/sled_map.h"

/* Statuses (the public values of xray_names.h are the same numbers). */
enum {
  XR_NAMES_OK = 0,
  XR_NAMES_NO_MAP = -1,    /* the runtime has no instrumentation map */
  XR_NAMES_BUSY = -2,      /* loading on this very thread (a signal handler
                              interrupted it), or another thread patches */
  XR_NAMES_INVALID = -3,   /* NULL argument, id out of range, no pattern */
  XR_NAMES_FAILED = -4,    /* patching failed (page protection) */
  XR_NAMES_NO_MEMORY = -5  /* mmap failed while building the table */
};

struct xr_name_entry {
  const char *name;   /* demangled, else the symbol, else "fn<id>@0x<addr>" */
  const char *symbol; /* the ELF symbol as in the file; NULL when none */
  uintptr_t address;  /* run-time start of the function */
  /* name in the canonical spelling of both demanglers (match/spelling.h);
   * the same pointer as name when they are equal (NULL reads as name) */
  const char *canonical;
};

struct xr_name_table {
  struct xr_name_entry *entries; /* entries[id - 1], ids 1..count */
  size_t count;
  const char *object_path; /* the file the symbols came from */
  size_t unnamed;          /* functions without a symbol */
};

#define XR_NAMES_MAX_OBJECTS 256

/* The table of object `object` (0: the executable), loading it on first
 * use. Returns XR_NAMES_OK and sets *out, or a negative status. Thread-safe;
 * a concurrent caller waits for the loader (microseconds to milliseconds);
 * a signal handler that interrupts the load on the same thread gets BUSY. */
XR_HIDDEN int xr_names_table(int object, const struct xr_name_table **out);

/* Adds an object's functions: map gives ids and addresses, path (NULL:
 * /proc/self/exe) and bias locate its symbols. Called by the object
 * registry; object 0 is added on demand by xr_names_table. */
XR_HIDDEN int xr_names_add_object(int object, const struct xr_sled_map *map,
                                  const char *path, uintptr_t bias);

/* Drops object's table (it was deregistered; its id may be reused by
 * another object, which is then added afresh). Object 0 stays. */
XR_HIDDEN void xr_names_forget_object(int object);

/* Marks in selected[id - 1] (set to `value`) every function of t whose name
 * matches one of the ';'-separated patterns: as the table spells it, or
 * with both in the canonical spelling (so a pattern in either demangler's
 * spelling selects). hits[i] (may be NULL; at least
 * xr_pattern_count(patterns) entries) receives the matches of pattern i.
 * Returns the number of functions that matched any pattern. */
XR_HIDDEN size_t xr_names_mark(const struct xr_name_table *t,
                               const char *patterns, uint8_t *selected,
                               uint8_t value, size_t *hits);

/* The same with only the patterns without wildcards (glob.h,
 * xr_glob_is_exact): the functions the user chose by name. */
XR_HIDDEN size_t xr_names_mark_exact(const struct xr_name_table *t,
                                     const char *patterns, uint8_t *selected,
                                     uint8_t value);

/* Object `object`'s selection by the xray_patch / xray_skip options
 * (selected[id - 1]), built once per object; which patterns matched is
 * kept for names_check.c (below). Returns NULL when neither
 * option is set (patch everything) or when the selection cannot be built
 * (then *status < 0, else XR_NAMES_OK). */
XR_HIDDEN const uint8_t *xr_names_option_selection(int object, int *status);

/* Of object's option selection (built: xr_names_option_selection returned
 * it), the functions an xray_patch pattern without wildcards chose
 * (pinned[id - 1]); NULL when xray_patch has no such pattern or the
 * selection is not built. */
XR_HIDDEN const uint8_t *xr_names_option_pins(int object);

/* True when xray_patch or xray_skip holds a pattern. */
XR_HIDDEN bool xr_names_option_active(void);

/* For the "pattern matches nothing" messages (names_check.c, docs/names.md):
 * whether pattern k of option `which` matched a function of some object,
 * and whether any object's selection was built. Thread-safe. */
enum { XR_OPTION_PATCH = 0, XR_OPTION_SKIP = 1 };
XR_HIDDEN bool xr_names_pattern_matched(int which, size_t k);
XR_HIDDEN bool xr_names_options_applied(void);

/* Registration's subscriber (init.c subscribes it): an object registered
 * again has its names read afresh; the loading states in a fork child. */
struct xr_object_events;
XR_HIDDEN extern const struct xr_object_events xr_names_events;

/* Name of a function id for the readable outputs (xr_name_fn of
 * profile_views.h; ctx unused): the table's name, "fn<id>" for an id no
 * table knows. Never NULL. Ids of shared objects are packed (object << 24 |
 * function); the executable's are plain. */
XR_HIDDEN const char *xr_names_get_name(void *ctx, int32_t id);

#endif
