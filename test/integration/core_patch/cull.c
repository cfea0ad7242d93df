/* The overhead budget's door (core/patch/patch_api.h): xr_patch_cull's
 * three steps and xr_patch_function_states, through a user handler that
 * counts every event per function and kind, on a real instrumented program.
 *
 * argv[1] "pins" (run with XRAY_OPTIONS="xray_patch=opt_exact;opt_wild*"):
 * each pin rule, each step, the user's choice over the budget's, ONGOING
 * both ways, W^X after every step, a fork child's marks; the output is
 * compared with cull.expected.
 * "all" (no options): __xray_patch and __xray_patch_object pin nothing.
 * "dso" PATH: a shared object culled, dlclosed and loaded again starts
 * clean. Every line printed is exact; CHECK stops the program otherwise. */
#define _GNU_SOURCE
#include "recorder.h"
#include "core/patch/patch_api.h"
#include "xray/xray_names.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- events, per object, function and kind ------------------------------ */
static unsigned long counts[4][64][4]; /* [object][function][XRayEntryType] */
NOXRAY static void count_event(int32_t id, XRayEntryType type) {
  int32_t object = id >> 24, fn = id & 0xffffff;
  if (object < 4 && fn < 64 && (unsigned)type < 4)
    counts[object][fn][type]++;
}

/* ---- mprotect, interposed (the program's definition wins over libc's in
 * the static link of libxray.a): every call recorded; one may run a
 * patching call of the other kind while the first holds the busy flag. --- */
struct call { uintptr_t addr; size_t len; int prot; };
static struct call calls[256];
static int ncalls;
static void (*reenter)(void);

NOXRAY int mprotect(void *addr, size_t len, int prot) {
  if (ncalls < 256)
    calls[ncalls++] = (struct call){(uintptr_t)addr, len, prot};
  if (reenter) {
    void (*f)(void) = reenter;
    reenter = NULL;
    f();
  }
  return (int)syscall(SYS_mprotect, addr, len, prot);
}

/* No mapping is writable and executable; every RWX call was undone by the
 * next call on the same range with the pages' old protection (r-x text). */
NOXRAY static void check_wx(void) {
  char line[1024], perms[8];
  FILE *f = fopen("/proc/self/maps", "r");
  CHECK(f);
  while (fgets(line, sizeof line, f))
    CHECK(!(sscanf(line, "%*s %7s", perms) == 1 && perms[1] == 'w' && perms[2] == 'x'));
  fclose(f);
  CHECK(ncalls % 2 == 0);
  for (int i = 0; i < ncalls; i += 2) {
    CHECK(calls[i].prot == (PROT_READ | PROT_WRITE | PROT_EXEC));
    CHECK(calls[i + 1].addr == calls[i].addr && calls[i + 1].len == calls[i].len);
    CHECK(calls[i + 1].prot == (PROT_READ | PROT_EXEC));
  }
}

/* ---- the program's functions ---------------------------------------------- */
volatile int sink;
static void inside(void);
/* Chosen by exact name or id: pinned. */
TRACED int opt_exact(int x) { sink = x; return x + 1; }      /* xray_patch=opt_exact */
TRACED int by_name(int x) { sink = x; return x + 1; }        /* __xray_patch_matching */
TRACED int by_name_list(int x) { sink = x; return x + 1; }   /* an exact name of a list */
TRACED int by_id(int x) { sink = x; return x + 1; }          /* __xray_patch_function */
TRACED int by_id_in_object(int x) { sink = x; return x + 1; }
TRACED int by_range_a(int x) { sink = x; return x + 1; }     /* __xray_patch_function_range */
TRACED int by_range_b(int x) { sink = x; return x + 1; }
/* Chosen by a wildcard: the budget's to cull. */
TRACED int opt_wild_1(int x) { sink = x; return x + 1; }     /* xray_patch=opt_wild* */
TRACED int list_wild_1(int x) { sink = x; return x + 1; }    /* the list's wildcard */
/* cand_* from here. cand_plain logs a custom event (x86-64: clang's AArch64
 * event sled needs a frame, docs/design.md): event sleds are not the
 * budget's, culling leaves it. */
static unsigned long custom_events;
NOXRAY static void count_custom(void *data, size_t size) {
  (void)data;
  custom_events += size == 1;
}
TRACED int cand_plain(int x) {
  sink = x;
#if defined(__x86_64__)
  __xray_customevent("c", 1);
#endif
  return x + 1;
}
__attribute__((xray_always_instrument, xray_log_args(1), noinline))
int cand_args(int x) { sink = x; return x + 1; }
TRACED int cand_leaf(int x) { sink = x; return x * 2; }
TRACED int cand_tail(int x) { sink = x; return cand_leaf(x + 1); } /* a tail call at -O2 */
TRACED int cand_inflight(int x) { sink = x; inside(); return x + 1; }
/* Never patched. */
TRACED int unpatched_fn(int x) { sink = x; return x + 1; }

static const char *const names[] = {
    "opt_exact", "by_name", "by_name_list", "by_id", "by_id_in_object", "by_range_a",
    "by_range_b", "opt_wild_1", "list_wild_1", "cand_plain", "cand_args", "cand_leaf",
    "cand_tail", "cand_inflight", "unpatched_fn"};
enum { NFN = sizeof names / sizeof names[0] };

NOXRAY static void call_all(void) {
  CHECK(opt_exact(1) == 2 && by_name(1) == 2 && by_name_list(1) == 2 && by_id(1) == 2);
  CHECK(by_id_in_object(1) == 2 && by_range_a(1) == 2 && by_range_b(1) == 2);
  CHECK(opt_wild_1(1) == 2 && list_wild_1(1) == 2 && cand_plain(1) == 2 && cand_args(1) == 2);
  CHECK(cand_tail(1) == 4 && cand_inflight(1) == 2 && unpatched_fn(1) == 2);
}

NOXRAY static int32_t id_of(const char *name) {
  int32_t id = 0;
  CHECK(__xray_function_ids(name, &id, 1) == 1);
  return id;
}

/* The state letters: P entry patched, X exits patched, N pinned, C culled. */
NOXRAY static const char *letters(uint8_t s) {
  static char out[5];
  out[0] = s & XR_FN_PATCHED ? 'P' : '.';
  out[1] = s & XR_FN_EXITS_PATCHED ? 'X' : '.';
  out[2] = s & XR_FN_PINNED ? 'N' : '.';
  out[3] = s & XR_FN_CULLED ? 'C' : '.';
  out[4] = 0;
  return out;
}

static uint8_t states[64];
NOXRAY static void read_states(void) {
  size_t max = __xray_max_function_id();
  CHECK(max < 64);
  memset(states, 0xff, sizeof states);
  /* Asking for more than there are fills exactly the function count. */
  CHECK(xr_patch_function_states(0, states + 1, 63) == (long)max);
  CHECK(states[max + 1] == 0xff);
}

/* The custom events of the last report's calls (n per call_all: x86-64). */
#if defined(__x86_64__)
#define CHECK_CUSTOM(n) CHECK(custom_events == (n))
#else
#define CHECK_CUSTOM(n) CHECK(custom_events == 0)
#endif

/* One line per function: its events since the last report and its state. */
NOXRAY static void report(const char *title) {
  read_states();
  printf("[%s]\n", title);
  for (int i = 0; i < NFN; i++) {
    int32_t id = id_of(names[i]);
    unsigned long *c = counts[0][id];
    printf("%-16s enter %lu exit %lu tail %lu args %lu  %s\n", names[i], c[ENTRY], c[EXIT],
           c[TAIL], c[LOG_ARGS_ENTRY], letters(states[id]));
  }
  memset(counts, 0, sizeof counts);
  custom_events = 0;
}

/* A selection of the executable's functions by name (NULL ends). */
static uint8_t selected[64];
NOXRAY static const uint8_t *pick(const char *first, ...) {
  memset(selected, 0, sizeof selected);
  va_list ap;
  va_start(ap, first);
  for (const char *n = first; n != NULL; n = va_arg(ap, const char *))
    selected[id_of(n) - 1] = 1;
  va_end(ap);
  return selected;
}
NOXRAY static const uint8_t *every(void) {
  memset(selected, 1, sizeof selected);
  return selected;
}

static const char *const step_names[] = {"entries", "exits", "uncull"};
/* One culling step of the executable's functions: SUCCESS, then W^X. */
NOXRAY static size_t cull(const uint8_t *sel, enum xr_cull_step step) {
  size_t changed = 99;
  ncalls = 0;
  CHECK(xr_patch_cull(0, sel, step, &changed) == SUCCESS);
  check_wx();
  printf("cull %s: %zu changed\n", step_names[step], changed);
  return changed;
}

/* ---- the function in flight while its entries are culled ----------------- */
static int cull_inside;
NOXRAY static void inside(void) {
  if (!cull_inside)
    return;
  cull_inside = 0;
  /* One function, one entry sled: one run, its page. */
  CHECK(cull(pick("cand_inflight", NULL), XR_CULL_ENTRIES) == 1);
  long page = sysconf(_SC_PAGESIZE);
  uintptr_t at = __xray_function_address(id_of("cand_inflight"));
  CHECK(ncalls == 2 && calls[0].addr == (at & ~(uintptr_t)(page - 1)));
  read_states();
  printf("inside cand_inflight: %s\n", letters(states[id_of("cand_inflight")]));
}

/* ---- ONGOING both ways ------------------------------------------------------ */
static int ongoing_cull;
static XRayPatchingStatus ongoing_user[2];
static int32_t ongoing_id; /* looked up before: names take the registry lock */
NOXRAY static void cull_while_user_patches(void) {
  size_t changed = 99;
  ongoing_cull = xr_patch_cull(0, every(), XR_CULL_ENTRIES, &changed);
  CHECK(changed == 0);
}
NOXRAY static void user_patches_while_culling(void) {
  ongoing_user[0] = __xray_patch();
  ongoing_user[1] = __xray_unpatch_function(ongoing_id);
}

NOXRAY static int pins(void) {
  CHECK(__xray_set_handler(count_event) == 1);
  CHECK(__xray_set_customevent_handler(count_custom) == 1);
  CHECK(__xray_max_function_id() == NFN);
  report("nothing patched");

  /* The option selects opt_exact (pinned) and opt_wild_1 (not). */
  CHECK(__xray_patch() == SUCCESS);
  CHECK(__xray_patch_matching("by_name") == 1);
  CHECK(__xray_patch_matching("by_name_list; list_wild*") == 2);
  CHECK(__xray_patch_function(id_of("by_id")) == SUCCESS);
  CHECK(__xray_patch_function_in_object(id_of("by_id_in_object"), 0) == SUCCESS);
  CHECK(id_of("by_range_b") == id_of("by_range_a") + 1);
  CHECK(__xray_patch_function_range(id_of("by_range_a"), id_of("by_range_b")) == SUCCESS);
  CHECK(__xray_patch_matching("cand_*") == 5);
  call_all();
  CHECK_CUSTOM(1);
  report("patched: each pin rule, and wildcards");

  /* Entries culled while a call runs: its exit still comes. */
  cull_inside = 1;
  CHECK(cand_inflight(1) == 2);
  report("cand_inflight culled during its call");
  CHECK(cand_inflight(1) == 2);
  report("cand_inflight called again: its exit only");

  CHECK(cull(every(), XR_CULL_ENTRIES) == 6);
  call_all();
  CHECK_CUSTOM(1);
  report("entries culled: pinned ones whole, the others exits only");
  CHECK(cull(every(), XR_CULL_ENTRIES) == 0);

  CHECK(cull(every(), XR_CULL_EXITS) == 7);
  call_all();
  CHECK_CUSTOM(1);
  report("exits culled: nothing from the culled");
  CHECK(cull(every(), XR_CULL_EXITS) == 0);

  CHECK(cull(pick("cand_plain", "opt_wild_1", "by_name", NULL), XR_UNCULL) == 2);
  call_all();
  report("two let back (by_name was never culled)");
  CHECK(cull(every(), XR_UNCULL) == 5);
  call_all();
  report("all let back");
  CHECK(cull(every(), XR_UNCULL) == 0);

  /* The user's choice wins: patching or unpatching a culled function
   * clears culled; unpatching clears pinned; a wildcard patch pins nothing
   * and leaves a pin. */
  CHECK(cull(every(), XR_CULL_ENTRIES) == 7);
  CHECK(__xray_patch_matching("cand_pl*") == 1);
  CHECK(__xray_unpatch_matching("cand_args") == 1);
  CHECK(__xray_unpatch_function(id_of("by_id")) == SUCCESS);
  CHECK(__xray_unpatch_matching("by_name") == 1);
  CHECK(__xray_patch_matching("by_nam?") == 1);
  CHECK(__xray_patch_matching("by_name_*") == 1);
  CHECK(__xray_unpatch_function_range(id_of("by_range_a"), id_of("by_range_a")) == SUCCESS);
  CHECK(__xray_patch_function_range(id_of("by_range_a"), id_of("by_range_a")) == SUCCESS);
  call_all();
  report("the user patched and unpatched");
  CHECK(cull(every(), XR_UNCULL) == 5);
  CHECK(cull(every(), XR_CULL_ENTRIES) == 7);
  call_all();
  report("culled again: by_name is not pinned any more, by_range_a is again");
  CHECK(cull(every(), XR_UNCULL) == 7);

  /* A culling step while a user's patching call runs, and the other way. */
  ncalls = 0;
  reenter = cull_while_user_patches;
  CHECK(__xray_patch_matching("cand_plai?") == 1);
  CHECK(ongoing_cull == ONGOING);
  reenter = user_patches_while_culling;
  ongoing_id = id_of("by_id_in_object");
  CHECK(cull(every(), XR_CULL_ENTRIES) == 7);
  CHECK(ongoing_user[0] == ONGOING && ongoing_user[1] == ONGOING);
  report("ONGOING both ways: the culling step that ran is whole");

  /* A fork child keeps the marks. */
  read_states();
  uint8_t parent[64];
  memcpy(parent, states, sizeof parent);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    read_states();
    _exit(memcmp(parent, states, sizeof parent) == 0 ? 0 : 3);
  }
  int status;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status));
  printf("fork child's states: %s\n", WEXITSTATUS(status) == 0 ? "the parent's" : "OTHER");

  CHECK(__xray_unpatch() == SUCCESS);
  call_all();
  CHECK(custom_events == 0);
  report("__xray_unpatch: no pin, no cull left");
  CHECK(cull(every(), XR_UNCULL) == 0);

  /* Bad calls. */
  size_t changed = 99;
  uint8_t one;
  CHECK(xr_patch_cull(7, every(), XR_CULL_ENTRIES, &changed) == FAILED && changed == 0);
  CHECK(xr_patch_function_states(7, &one, 1) == -1);
  return 0;
}

/* ---- no options: the calls that patch everything pin nothing --------------- */
NOXRAY static int all(void) {
  CHECK(__xray_set_handler(count_event) == 1);
  CHECK(__xray_patch() == SUCCESS);
  CHECK(cull(every(), XR_CULL_ENTRIES) == NFN);
  CHECK(__xray_patch_object(0) == SUCCESS);
  read_states();
  for (int i = 1; i <= NFN; i++)
    CHECK(states[i] == (XR_FN_PATCHED | XR_FN_EXITS_PATCHED));
  CHECK(cull(every(), XR_CULL_ENTRIES) == NFN);
  CHECK(cull(every(), XR_CULL_EXITS) == NFN);
  call_all();
  for (int i = 1; i <= NFN; i++)
    CHECK(counts[0][i][0] + counts[0][i][1] + counts[0][i][2] + counts[0][i][3] == 0);
  CHECK(__xray_unpatch_object(0) == SUCCESS);
  read_states();
  for (int i = 1; i <= NFN; i++)
    CHECK(states[i] == 0);
  printf("all: nothing pinned\n");
  return 0;
}

/* ---- a shared object culled, closed and loaded again -------------------- */
NOXRAY static void report_dso(int32_t object, void *h, const char *title) {
  static const char *const so_names[] = {"so_plain", "so_pinned"};
  uint8_t s[8];
  long n = xr_patch_function_states(object, s, 8);
  printf("[%s] object %d: %ld functions\n", title, (int)object, n);
  for (int i = 0; i < 2 && n > 0; i++) {
    int32_t id = id_of(so_names[i]);
    CHECK(id >> 24 == object);
    int (*fn)(int) = (int (*)(int))dlsym(h, so_names[i]);
    CHECK(fn && fn(1) == 2);
    unsigned long *c = counts[object][id & 0xffffff];
    printf("%-9s enter %lu exit %lu  %s\n", so_names[i], c[ENTRY], c[EXIT],
           letters(s[(id & 0xffffff) - 1]));
  }
  memset(counts, 0, sizeof counts);
}

NOXRAY static int dso(const char *path) {
  CHECK(__xray_set_handler(count_event) == 1);
  void *h = dlopen(path, RTLD_NOW);
  CHECK(h);
  int32_t object = id_of("so_plain") >> 24;
  CHECK(object > 0 && object < 4);
  CHECK(__xray_patch_matching("so_plai?") == 1 &&
        __xray_patch_function(id_of("so_pinned")) == SUCCESS);
  uint8_t all[2] = {1, 1};
  size_t changed = 99;
  ncalls = 0;
  CHECK(xr_patch_cull(object, all, XR_CULL_ENTRIES, &changed) == SUCCESS && changed == 1);
  check_wx();
  report_dso(object, h, "culled");
  CHECK(dlclose(h) == 0);
  uint8_t s[2];
  CHECK(xr_patch_function_states(object, s, 2) == -1);
  CHECK(xr_patch_cull(object, all, XR_UNCULL, &changed) == FAILED && changed == 0);
  h = dlopen(path, RTLD_NOW);
  CHECK(h);
  CHECK(id_of("so_plain") >> 24 == object);
  report_dso(object, h, "loaded again: nothing patched, pinned or culled");
  CHECK(__xray_patch_matching("so_*") == 2);
  CHECK(xr_patch_cull(object, all, XR_UNCULL, &changed) == SUCCESS && changed == 0);
  report_dso(object, h, "patched by a wildcard");
  CHECK(dlclose(h) == 0);
  return 0;
}

NOXRAY int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "pins") == 0)
    return pins();
  if (argc > 1 && strcmp(argv[1], "all") == 0)
    return all();
  if (argc > 2 && strcmp(argv[1], "dso") == 0)
    return dso(argv[2]);
  fprintf(stderr, "usage: cull pins | all | dso PATH\n");
  return 2;
}
