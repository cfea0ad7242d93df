/* The name table (see names.h): ids -> readable names, per object.
 *
 * Building one table: the object's function symbols are sorted once by
 * address (symbols.c), each function id's address is looked up (binary
 * search), and the name is copied, demangled when possible, into an mmap'd
 * arena; then the file mapping is dropped. For 100 000 functions this is a
 * few tens of milliseconds, once; test/bench/names_bench.sh measures it. */
#define _GNU_SOURCE
#include "core/names/names.h"
#include "core/objects/objects.h"
#include "core/thread/fork_locks.h"
#include "core/thread/lock.h"

#include "core/match/glob.h"
#include "core/match/spelling.h"
#include "core/options/options.h"
#include "core/base/report.h"
#include "core/names/symbols.h"
#include "core/base/runtime_state.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- arena: bump allocation from mmap'd chunks, never freed ---------- */

static struct {
  char *next, *end;
  xr_lock lock; /* tables of two objects may load at once */
} arena;

static void *arena_alloc(size_t n) {
  n = (n + 15) & ~(size_t)15;
  xr_lock_take(&arena.lock);
  void *r = NULL;
  if ((size_t)(arena.end - arena.next) < n) {
    size_t chunk = n > ((size_t)1 << 20) ? n : (size_t)1 << 20;
    void *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      goto out;
    arena.next = p;
    arena.end = (char *)p + chunk;
  }
  r = arena.next;
  arena.next += n;
out:
  xr_lock_release(&arena.lock);
  return r;
}

static const char *arena_copy(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = arena_alloc(n);
  if (d != NULL)
    memcpy(d, s, n);
  return d;
}

/* ---- demangling ------------------------------------------------------ */

/* Defined only when the program links a C++ runtime: the weak reference
 * adds no dependency to a C program. */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *length,
                            int *status) __attribute__((weak));

/* The demangled copy of an Itanium-mangled name, else NULL; *canonical
 * receives its canonical spelling (the same pointer when equal; NULL: no
 * memory). */
static const char *demangled_copy(const char *symbol, const char **canonical) {
  if (__cxa_demangle == NULL || symbol[0] != '_' || symbol[1] != 'Z')
    return NULL;
  int status = -1;
  char *d = __cxa_demangle(symbol, NULL, NULL, &status);
  const char *copy = d != NULL && status == 0 ? arena_copy(d) : NULL;
  if (copy != NULL) { /* d takes the canonical spelling: never longer */
    size_t len = strlen(copy);
    bool same = xr_spelling_canonical(copy, len, d) == len && memcmp(d, copy, len) == 0;
    *canonical = same ? copy : arena_copy(d);
  }
  free(d); /* __cxa_demangle's malloc: the table itself stays mmap'd */
  return copy;
}

/* ---- tables ---------------------------------------------------------- */

enum { EMPTY = 0, LOADING = 1, LOADED = 2 };
static struct xr_name_table tables[XR_NAMES_MAX_OBJECTS];
static int table_state[XR_NAMES_MAX_OBJECTS];
static XR_TLS bool loading_here; /* this thread is building a table */
static XR_TLS int loading_object; /* which one, while loading_here */
/* The xray_patch / xray_skip selection, per object like the tables. */
static struct {
  int state; /* EMPTY, LOADING, LOADED */
  int status;
  uint8_t *selected; /* NULL: no filter */
  uint8_t *pinned;   /* chosen by an exact xray_patch pattern; NULL: none */
} option[XR_NAMES_MAX_OBJECTS];

static bool filter_asked(void) {
  return xr_flags.xray_patch[0] != '\0' || xr_flags.xray_skip[0] != '\0';
}

static const char *self_path(void) {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    return "/proc/self/exe";
  buf[n] = '\0';
  const char *copy = arena_copy(buf);
  return copy != NULL ? copy : "/proc/self/exe";
}

/* A name for a function without a symbol: "fn<id>@0x<address>" in the
 * executable, "fn<id>@<file>+0x<offset>" in a shared object (the offset in
 * its file's address space, the same at every load). Returns snprintf's. */
static int made_up_name(char *out, size_t size, int object, size_t id, uintptr_t addr,
                        const char *path, uintptr_t bias) {
  if (object == 0)
    return snprintf(out, size, "fn%zu@0x%llx", id, (unsigned long long)addr);
  const char *slash = path != NULL ? strrchr(path, '/') : NULL;
  const char *file = slash != NULL ? slash + 1 : path != NULL && path[0] ? path : "?";
  return snprintf(out, size, "fn%zu@%s+0x%llx", id, file, (unsigned long long)(addr - bias));
}

/* The same in the arena, as long as the file name needs (NULL: no memory). */
static const char *made_up_copy(int object, size_t id, uintptr_t addr, const char *path,
                                uintptr_t bias) {
  int n = made_up_name(NULL, 0, object, id, addr, path, bias);
  char *out = n >= 0 ? arena_alloc((size_t)n + 1) : NULL;
  if (out != NULL)
    made_up_name(out, (size_t)n + 1, object, id, addr, path, bias);
  return out;
}

static int build(struct xr_name_table *t, int object, const struct xr_sled_map *map,
                 const char *path, uintptr_t bias) {
  size_t count = map->function_count;
  struct xr_name_entry *e = arena_alloc((count + 1) * sizeof(*e));
  const char *object_path = path != NULL ? arena_copy(path) : self_path();
  if (e == NULL || object_path == NULL)
    return XR_NAMES_NO_MEMORY;
  struct xr_symbols syms;
  bool have = xr_symbols_open(&syms, path, bias) == 0;
  size_t unnamed = 0;
  int status = XR_NAMES_OK;
  for (size_t id = 1; id <= count && status == XR_NAMES_OK; id++) {
    uintptr_t addr = map->functions[id - 1].address;
    const char *sym = have ? xr_symbols_lookup(&syms, addr) : NULL;
    struct xr_name_entry *x = &e[id - 1];
    x->address = addr;
    if (sym != NULL) {
      x->symbol = arena_copy(sym);
      x->name = demangled_copy(sym, &x->canonical);
      if (x->name == NULL)
        x->name = x->canonical = x->symbol;
    } else {
      x->symbol = NULL;
      x->name = x->canonical = made_up_copy(object, id, addr, path, bias);
      unnamed++;
    }
    if (x->name == NULL || x->canonical == NULL)
      status = XR_NAMES_NO_MEMORY;
  }
  if (have)
    xr_symbols_close(&syms);
  if (status != XR_NAMES_OK)
    return status;
  /* Names were asked for by a filter option: say why they are missing. */
  enum xr_report_level level = filter_asked() ? xr_hint_level() : XR_INFO;
  if (!have && count > 0)
    xr_report(level, "no function symbols in '%s' (stripped?): function names are "
              "unavailable; functions are named fn<id>@0x<address>",
              object_path);
  else if (unnamed > 0)
    xr_report(level, "%zu of %zu instrumented functions in '%s' have no "
              "symbol; they are named fn<id>@0x<address>", unnamed, count,
              object_path);
  t->entries = e;
  t->object_path = object_path;
  t->unnamed = unnamed;
  __atomic_store_n(&t->count, count, __ATOMIC_RELEASE);
  return XR_NAMES_OK;
}

int xr_names_add_object(int object, const struct xr_sled_map *map,
                        const char *path, uintptr_t bias) {
  if (object < 0 || object >= XR_NAMES_MAX_OBJECTS || map == NULL)
    return XR_NAMES_INVALID;
  int *state = &table_state[object];
  for (;;) {
    int s = EMPTY;
    if (__atomic_compare_exchange_n(state, &s, LOADING, false,
                                    __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
      break;
    if (s == LOADED)
      return XR_NAMES_OK;
    if (loading_here)
      return XR_NAMES_BUSY; /* a signal handler interrupted our own load */
    sched_yield();
  }
  loading_here = true;
  loading_object = object;
  xr_fork_note_loading(true);
  int status = build(&tables[object], object, map, path, bias);
  xr_fork_note_loading(false);
  loading_here = false;
  /* Publishes the table (release pairs with the acquire loads). On failure
   * the slot goes back to EMPTY so a later call may try again. */
  __atomic_store_n(state, status == XR_NAMES_OK ? LOADED : EMPTY,
                   __ATOMIC_RELEASE);
  return status;
}

/* Fork child: a table another thread of the parent was loading (it did not
 * survive the fork) goes back to not loaded, and the arena's lock it may
 * have held is freed, so the child can load names. A load by this very
 * thread (a signal handler forked) goes on in the child; every other one
 * belonged to a thread that is gone. Selections are built under the objects
 * lock, tables and selections use the arena. */
static void after_fork(void) {
  bool own_objects = xr_fork_lock_held_here(XR_LOCK_OBJECTS);
  for (int i = 0; i < XR_NAMES_MAX_OBJECTS; i++) {
    int s = LOADING;
    if (!(loading_here && i == loading_object))
      __atomic_compare_exchange_n(&table_state[i], &s, EMPTY, false,
                                  __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    s = LOADING;
    if (!own_objects)
      __atomic_compare_exchange_n(&option[i].state, &s, EMPTY, false,
                                  __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  }
  if (!loading_here && !own_objects && xr_lock_is_held(&arena.lock)) {
    arena.next = arena.end = NULL; /* maybe half updated: a fresh chunk */
    xr_lock_after_fork(&arena.lock);
  }
}

void xr_names_forget_object(int object) {
  if (object <= 0 || object >= XR_NAMES_MAX_OBJECTS)
    return;
  int s = LOADED;
  /* The old table's memory is never unmapped: a reader that already holds
   * it (a handler, a signal handler) keeps valid strings. */
  if (__atomic_compare_exchange_n(&table_state[object], &s, LOADING, false,
                                  __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
    __atomic_store_n(&tables[object].count, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&option[object].state, EMPTY, __ATOMIC_RELEASE);
    __atomic_store_n(&table_state[object], EMPTY, __ATOMIC_RELEASE);
  }
}

static void object_replaced(int32_t id) { xr_names_forget_object(id); }
const struct xr_object_events xr_names_events = {.replaced = object_replaced,
                                                 .after_fork = after_fork};

int xr_names_table(int object, const struct xr_name_table **out) {
  if (object < 0 || object >= XR_NAMES_MAX_OBJECTS || out == NULL)
    return XR_NAMES_INVALID;
  if (__atomic_load_n(&table_state[object], __ATOMIC_ACQUIRE) != LOADED) {
    if (!xr_runtime_initialized())
      return XR_NAMES_NO_MAP;
    int status;
    struct xr_object_info info;
    if (object == 0)
      status = xr_names_add_object(0, &xr_self_map, NULL, xr_symbols_self_bias());
    else if (xr_object_info(object, &info)) /* a shared object: its own file */
      status = xr_names_add_object(object, info.map, info.path, info.base);
    else
      return XR_NAMES_INVALID; /* never registered */
    if (status != XR_NAMES_OK)
      return status;
  }
  *out = &tables[object];
  return XR_NAMES_OK;
}

/* ---- patterns -------------------------------------------------------- */

/* A pattern as written and in the canonical spelling (match/spelling.h). */
struct spelled_pattern {
  struct xr_pattern written, canonical;
  bool respelled; /* the canonical spelling differs */
  bool exact;     /* no wildcard: it names functions (glob.h) */
};

/* The pattern matches the name as the table spells it, or both respelled:
 * a wildcard inside a construct the demanglers write differently
 * ("*{lambda(*)#1}*") still matches in the table's spelling. */
static bool pattern_matches(const struct spelled_pattern *p, const struct xr_name_entry *e) {
  if (xr_glob_match(p->written.text, p->written.len, e->name))
    return true;
  const char *canonical = e->canonical != NULL ? e->canonical : e->name;
  return (p->respelled || canonical != e->name) &&
         xr_glob_match(p->canonical.text, p->canonical.len, canonical);
}

/* xr_names_mark, or with exact_only only its patterns without wildcards. */
static size_t mark(const struct xr_name_table *t, const char *patterns, uint8_t *selected,
                   uint8_t value, size_t *hits, bool exact_only) {
  size_t n = xr_pattern_count(patterns);
  if (n == 0)
    return 0;
  /* The patterns, then their canonical texts (each no longer than it). */
  size_t list_bytes = n * sizeof(struct spelled_pattern);
  size_t bytes = list_bytes + strlen(patterns) + n;
  struct spelled_pattern *list = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (list == MAP_FAILED)
    return 0;
  const char *cursor = patterns;
  char *respelled = (char *)list + list_bytes;
  for (size_t k = 0; k < n; k++) {
    struct spelled_pattern *p = &list[k];
    xr_pattern_next(&cursor, &p->written);
    p->canonical.text = respelled;
    p->canonical.len = xr_spelling_canonical(p->written.text, p->written.len, respelled);
    p->respelled = p->canonical.len != p->written.len ||
                   memcmp(respelled, p->written.text, p->written.len) != 0;
    respelled += p->canonical.len + 1;
    p->exact = xr_glob_is_exact(p->written.text, p->written.len);
    if (hits != NULL)
      hits[k] = 0;
  }
  /* Every pattern is tried on every name (no early exit) so that each
   * pattern's own hits are counted for the "matches nothing" messages. */
  size_t any = 0;
  for (size_t i = 0; i < t->count; i++) {
    bool matched = false;
    for (size_t k = 0; k < n; k++) {
      if ((exact_only && !list[k].exact) || !pattern_matches(&list[k], &t->entries[i]))
        continue;
      matched = true;
      if (hits == NULL)
        break;
      hits[k]++;
    }
    if (matched) {
      selected[i] = value;
      any++;
    }
  }
  munmap(list, bytes);
  return any;
}

size_t xr_names_mark(const struct xr_name_table *t, const char *patterns,
                     uint8_t *selected, uint8_t value, size_t *hits) {
  return mark(t, patterns, selected, value, hits, false);
}

size_t xr_names_mark_exact(const struct xr_name_table *t, const char *patterns,
                           uint8_t *selected, uint8_t value) {
  return mark(t, patterns, selected, value, NULL, true);
}

/* Whether the list holds a pattern without wildcards. */
static bool has_exact_pattern(const char *patterns) {
  struct xr_pattern p;
  while (xr_pattern_next(&patterns, &p))
    if (xr_glob_is_exact(p.text, p.len))
      return true;
  return false;
}

/* ---- the xray_patch / xray_skip options ------------------------------ */

/* Which patterns some object matched: one bit per pattern, read by
 * names_check.c, which names the patterns no object matched (a typo would
 * otherwise silently trace nothing, or everything). An option value holds
 * at most 4095 bytes, so at most 2048 patterns ("a;b;..."); bits past that
 * (never reached) are simply not kept. */
enum { MAX_PATTERNS = sizeof xr_flags.xray_patch / 2 };
static uint8_t matched[2][MAX_PATTERNS]; /* [XR_OPTION_PATCH / _SKIP][pattern] */
static bool applied;                     /* some object's selection was built */

bool xr_names_pattern_matched(int which, size_t k) {
  return k < MAX_PATTERNS && __atomic_load_n(&matched[which][k], __ATOMIC_RELAXED);
}
bool xr_names_options_applied(void) { return __atomic_load_n(&applied, __ATOMIC_RELAXED); }

/* Marks with one option's patterns, keeping which matched. */
static int apply_option(const struct xr_name_table *t, int which, const char *patterns,
                        uint8_t *selected, uint8_t value) {
  size_t n = xr_pattern_count(patterns);
  if (n == 0)
    return XR_NAMES_OK;
  size_t *hits = arena_alloc(n * sizeof(size_t));
  if (hits == NULL)
    return XR_NAMES_NO_MEMORY;
  xr_names_mark(t, patterns, selected, value, hits);
  __atomic_store_n(&applied, true, __ATOMIC_RELAXED);
  for (size_t k = 0; k < n && k < MAX_PATTERNS; k++)
    if (hits[k] != 0)
      __atomic_store_n(&matched[which][k], 1, __ATOMIC_RELAXED);
  return XR_NAMES_OK;
}

static int build_option_selection(int object) {
  const struct xr_name_table *t;
  int status = xr_names_table(object, &t);
  if (status != XR_NAMES_OK)
    return status;
  uint8_t *selected = arena_alloc(t->count + 1);
  if (selected == NULL)
    return XR_NAMES_NO_MEMORY;
  /* No xray_patch patterns: start from everything. */
  memset(selected, xr_pattern_count(xr_flags.xray_patch) == 0, t->count);
  status = apply_option(t, XR_OPTION_PATCH, xr_flags.xray_patch, selected, 1);
  if (status == XR_NAMES_OK)
    status = apply_option(t, XR_OPTION_SKIP, xr_flags.xray_skip, selected, 0);
  if (status != XR_NAMES_OK)
    return status;
  /* What an exact xray_patch pattern chose, unless xray_skip took it out:
   * the budget never culls it (patch_api.c pins it when it patches). */
  uint8_t *pinned = NULL;
  if (has_exact_pattern(xr_flags.xray_patch)) {
    pinned = arena_alloc(t->count + 1);
    if (pinned == NULL)
      return XR_NAMES_NO_MEMORY;
    memset(pinned, 0, t->count);
    xr_names_mark_exact(t, xr_flags.xray_patch, pinned, 1);
    for (size_t i = 0; i < t->count; i++)
      pinned[i] &= selected[i];
  }
  size_t chosen = 0;
  for (size_t i = 0; i < t->count; i++)
    chosen += selected[i];
  xr_report(XR_INFO, "xray_patch/xray_skip select %zu of %zu instrumented "
            "functions in '%s'", chosen, t->count, t->object_path);
  option[object].selected = selected;
  option[object].pinned = pinned;
  return XR_NAMES_OK;
}

bool xr_names_option_active(void) {
  return xr_pattern_count(xr_flags.xray_patch) != 0 ||
         xr_pattern_count(xr_flags.xray_skip) != 0;
}

const uint8_t *xr_names_option_selection(int object, int *status) {
  *status = XR_NAMES_OK;
  if (!xr_names_option_active())
    return NULL;
  if (object < 0 || object >= XR_NAMES_MAX_OBJECTS) {
    *status = XR_NAMES_INVALID;
    return NULL;
  }
  for (;;) {
    int s = EMPTY;
    if (__atomic_compare_exchange_n(&option[object].state, &s, LOADING, false,
                                    __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
      break;
    if (s == LOADED) {
      *status = option[object].status;
      return option[object].selected;
    }
    sched_yield();
  }
  option[object].selected = option[object].pinned = NULL;
  option[object].status = build_option_selection(object);
  *status = option[object].status;
  /* A failure is final too: the messages are not repeated at every call. */
  __atomic_store_n(&option[object].state, LOADED, __ATOMIC_RELEASE);
  return option[object].selected;
}

const uint8_t *xr_names_option_pins(int object) {
  if (object < 0 || object >= XR_NAMES_MAX_OBJECTS ||
      __atomic_load_n(&option[object].state, __ATOMIC_ACQUIRE) != LOADED)
    return NULL;
  return option[object].pinned;
}

const char *xr_names_get_name(void *ctx, int32_t id) {
  (void)ctx;
  /* Packed ids (shared objects): object in the top 8 bits, function in the
   * low 24; the executable's ids are unpacked (object 0). */
  const struct xr_name_table *t;
  int32_t object = xr_id_object(id), fn = xr_id_function(id);
  if (xr_names_table(object, &t) == XR_NAMES_OK && fn >= 1 && (size_t)fn <= t->count)
    return t->entries[fn - 1].name;
  static char unknown[24];
  snprintf(unknown, sizeof unknown, "fn%d", (int)id);
  return unknown;
}
