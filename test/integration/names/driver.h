/* The driver shared by names_c.c and names_cxx.cc: a handler that records
 * every event (and symbolizes it from inside the handler), and the modes the
 * test scripts run. The program supplies work(), which calls every one of
 * its instrumented functions once.
 *   work         work() only (for a mode started by XRAY_OPTIONS)
 *   run          handler on, work(), print the event sequence and the ids
 *   run-patch    the same after __xray_patch() (XRAY_OPTIONS filters apply)
 *   names        name <-> id round trip for every id; print "id<TAB>name"
 *   unlinked     the same after deleting the executable file
 *   api P U      __xray_patch_matching(P), work, __xray_unpatch_matching(U),
 *                work, then the statuses of bad arguments
 *   symbols      "id<TAB>symbol" for every id ("-": none)
 *   ids NAME     the ids __xray_function_ids(NAME) gives, as "ids: 1 2",
 *                or "status: <negative status>" */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xray/xray_interface.h"
#include "xray/xray_names.h"

#define NEVER __attribute__((xray_never_instrument))
#define MAX_EVENTS 4096

static struct {
  int32_t id;
  int type;
  const char *name; /* from __xray_symbolize, inside the handler */
} events[MAX_EVENTS];
static int event_count;

NEVER static void record(int32_t id, XRayEntryType type) {
  if (event_count >= MAX_EVENTS)
    return;
  XRaySymbolInfo info;
  const char *name = __xray_symbolize(id, &info) ? info.function : "?";
  events[event_count].id = id;
  events[event_count].type = type;
  events[event_count].name = name;
  event_count++;
}

NEVER static void print_events(const char *title) {
  printf("%s:\n", title);
  for (int i = 0; i < event_count; i++)
    printf("  %c %s\n", events[i].type == ENTRY ? '>' : '<', events[i].name);
  event_count = 0;
}

/* The set of ids that had an event: the patched functions, as work() calls
 * every function (main's exit too). */
NEVER static void print_ids(void) {
  static char seen[65536];
  for (int i = 0; i < event_count; i++)
    if (events[i].id > 0 && events[i].id < 65536)
      seen[events[i].id] = 1;
  printf("ids:");
  for (int i = 1; i < 65536; i++)
    if (seen[i])
      printf(" %d", i);
  printf("\n");
}

NEVER static int fail(const char *what, int32_t id) {
  fprintf(stderr, "names: %s (id %d)\n", what, (int)id);
  return 1;
}

struct walk {
  int32_t next;
  int bad;
};
NEVER static int visit(void *context, int32_t id, const char *name,
                       const char *symbol, uintptr_t address) {
  struct walk *w = (struct walk *)context;
  char buf[1024];
  if (id != w->next++ || address != __xray_function_address(id) ||
      __xray_function_name(id, buf, sizeof buf) < 0 || strcmp(buf, name) != 0 ||
      (symbol != NULL && symbol[0] == '\0'))
    w->bad++;
  return 0;
}

NEVER static int round_trip(void) {
  int32_t max = (int32_t)__xray_max_function_id();
  if (max < 1)
    return fail("no functions", 0);
  for (int32_t id = 1; id <= max; id++) {
    char name[1024];
    int len = __xray_function_name(id, name, sizeof name);
    if (len < 0 || (size_t)len >= sizeof name)
      return fail("__xray_function_name", id);
    int32_t ids[16];
    int n = __xray_function_ids(name, ids, 16);
    int found = 0;
    for (int i = 0; i < n && i < 16; i++)
      found |= ids[i] == id;
    if (n < 1 || !found)
      return fail("__xray_function_ids does not give the id back", id);
    XRaySymbolInfo info;
    if (!__xray_symbolize(id, &info) || info.function_id != id ||
        strcmp(info.function, name) != 0 ||
        info.address != __xray_function_address(id) || info.object == NULL)
      return fail("__xray_symbolize", id);
    if (info.symbol != NULL && strcmp(info.symbol, name) != 0) {
      /* the mangled spelling finds the same function */
      n = __xray_function_ids(info.symbol, ids, 16);
      found = 0;
      for (int i = 0; i < n && i < 16; i++)
        found |= ids[i] == id;
      if (!found)
        return fail("__xray_function_ids by symbol", id);
    }
    /* truncation: the length of the whole name, a NUL-terminated prefix */
    char small[4];
    if (__xray_function_name(id, small, sizeof small) != len ||
        strlen(small) != (len < 3 ? (size_t)len : 3u) ||
        strncmp(small, name, strlen(small)) != 0)
      return fail("truncated __xray_function_name", id);
    printf("%d\t%s\n", (int)id, name);
  }
  struct walk w = {1, 0};
  if (__xray_for_each_function(visit, &w) != 0 || w.bad != 0 || w.next != max + 1)
    return fail("__xray_for_each_function", w.next);
  return 0;
}

NEVER static void api(const char *patch, const char *unpatch) {
  __xray_set_handler(record);
  printf("patch '%s': %d\n", patch, __xray_patch_matching(patch));
  work();
  print_events("after patch");
  printf("unpatch '%s': %d\n", unpatch, __xray_unpatch_matching(unpatch));
  work();
  print_events("after unpatch");
  printf("unpatch '*': %d\n", __xray_unpatch_matching("*") > 0);
  work();
  print_events("after unpatch all");
  printf("NULL: %d\n", __xray_patch_matching(NULL));
  printf("empty: %d\n", __xray_patch_matching(""));
  printf("only separators: %d\n", __xray_patch_matching(" ; ;"));
  printf("unclosed [: %d\n", __xray_patch_matching("[nothing"));
  static char long_pattern[10001];
  memset(long_pattern, '*', 9999); /* 9999 stars and an 'x': no name ends so */
  long_pattern[9999] = 'x';
  printf("10000-byte pattern: %d\n", __xray_patch_matching(long_pattern));
  printf("binary garbage: %d\n", __xray_patch_matching("\xff\xfe[\x01\x7f?*\\"));
  printf("no such name: %d\n", __xray_function_ids("no such function", NULL, 0));
  char buf[8];
  printf("id 0: %d\n", __xray_function_name(0, buf, sizeof buf));
  printf("id max+1: %d\n",
         __xray_function_name((int32_t)__xray_max_function_id() + 1, buf, sizeof buf));
  printf("NULL buffer: %d\n", __xray_function_name(1, NULL, 8));
  printf("size 0: %d\n", __xray_function_name(1, NULL, 0) > 0);
  XRaySymbolInfo info;
  printf("symbolize 0: %d\n", __xray_symbolize(0, &info));
  printf("symbolize NULL: %d\n", __xray_symbolize(1, NULL));
  printf("visitor NULL: %d\n", __xray_for_each_function(NULL, NULL));
  __xray_remove_handler();
}

NEVER static int print_symbol(void *context, int32_t id, const char *name,
                              const char *symbol, uintptr_t address) {
  (void)context, (void)name, (void)address;
  printf("%d\t%s\n", (int)id, symbol != NULL ? symbol : "-");
  return 0;
}

NEVER static void print_function_ids(const char *name) {
  int32_t ids[64];
  int n = __xray_function_ids(name, ids, 64);
  if (n < 0) {
    printf("status: %d\n", n);
    return;
  }
  printf("ids:");
  for (int i = 0; i < n && i < 64; i++)
    printf(" %d", (int)ids[i]);
  printf("\n");
}

NEVER int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "work") == 0) {
    work(); /* for the modes (XRAY_OPTIONS) */
    return 0;
  }
  if (argc >= 2 && strcmp(argv[1], "unlinked") == 0) {
    /* the executable is deleted before the names are first read */
    if (unlink(argv[0]) != 0)
      return fail("unlink", 0);
    return round_trip();
  }
  if (argc >= 2 && strcmp(argv[1], "names") == 0)
    return round_trip();
  if (argc >= 2 && strcmp(argv[1], "symbols") == 0)
    return __xray_for_each_function(print_symbol, NULL) == 0 ? 0 : 1;
  if (argc >= 3 && strcmp(argv[1], "ids") == 0) {
    print_function_ids(argv[2]);
    return 0;
  }
  if (argc >= 4 && strcmp(argv[1], "api") == 0) {
    api(argv[2], argv[3]);
    return 0;
  }
  if (argc >= 2 && strncmp(argv[1], "run", 3) == 0) {
    __xray_set_handler(record);
    if (strcmp(argv[1], "run-patch") == 0)
      printf("__xray_patch: %d\n", (int)__xray_patch());
    work();
    __xray_remove_handler();
    print_ids();
    print_events("events");
    return 0;
  }
  fprintf(stderr, "usage: %s run|run-patch|names|symbols|ids NAME|api P U\n", argv[0]);
  return 2;
}
