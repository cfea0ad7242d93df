/* A shared object's functions through the argument trampolines: its sleds
 * reach only XR_ARCH_CALL_REACH bytes, so they call a stub on a page the
 * runtime maps near the object, which jumps on to the executable's
 * trampolines. Checks, in order:
 *  1. the values of lib_fn's calls exactly, with its packed id; lib_plain
 *     at the usual handler exactly;
 *  2. the entry sled's target: a stub in an anonymous r-x page within
 *     reach, jumping to xr_args_entry_trampoline;
 *  3. dlclose: the page goes with the object; loaded again, a new page;
 *  4. no page to be had (every free range within reach of the object
 *     that the runtime would take reserved here): said once, and the
 *     function keeps the usual
 *     trampolines; the ranges freed, the next xr_patch_set_args captures
 *     it again.
 * Prints one line per check; notes (stderr) say how far the executable's
 * trampolines are. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <xray/xray_interface.h>

#include "arch/arch.h"                /* runtime-internal: the trampolines, the reach */
#include "core/dispatch/hot_tables.h" /* xr_args_hook */
#include "core/patch/patch_api.h"     /* xr_patch_set_args */

#define NOX __attribute__((xray_never_instrument, noinline))
/* The executable's one instrumented function, so that it has a map. */
__attribute__((xray_always_instrument, noinline)) int exe_fn(int a) { return a; }

static int failures;
#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("  MISMATCH (line %d): ", __LINE__);                              \
      printf(__VA_ARGS__);                                                     \
      printf("\n");                                                            \
      failures++;                                                              \
    }                                                                          \
  } while (0)

static int hook_calls;
static int32_t hook_ids[2];
static struct xr_arg_regs hook_regs[2];
NOX static void hook(int32_t id, int type, const struct xr_arg_regs *r) {
  if (hook_calls < 2) {
    hook_ids[hook_calls] = id;
    hook_regs[hook_calls] = *r;
  }
  hook_calls += type == XR_T_ENTRY || type == XR_T_EXIT;
}
static int usual_calls[2];
static int32_t fn_id, plain_id;
NOX static void usual(int32_t id, XRayEntryType type) {
  (void)type;
  if (id == fn_id || id == plain_id)
    usual_calls[id == plain_id]++;
}

static void *lib;
static long (*lib_fn)(long, double), (*lib_plain)(long);
static int32_t object;
static size_t count;

NOX static void load(void) {
  lib = dlopen("./libargs.so", RTLD_NOW);
  if (lib == NULL) {
    printf("dlopen: %s\n", dlerror());
    exit(2);
  }
  lib_fn = (long (*)(long, double))dlsym(lib, "lib_fn");
  lib_plain = (long (*)(long))dlsym(lib, "lib_plain");
  object = (int32_t)__xray_num_objects() - 1;
  count = __xray_max_function_id_in_object(object);
  fn_id = plain_id = -1;
  for (size_t f = 1; f <= count; f++) {
    uintptr_t a = __xray_function_address_in_object((int32_t)f, object);
    if (a == (uintptr_t)lib_fn)
      fn_id = __xray_pack_id((int32_t)f, object);
    if (a == (uintptr_t)lib_plain)
      plain_id = __xray_pack_id((int32_t)f, object);
  }
  if (fn_id < 0 || plain_id < 0) {
    printf("the object's functions not found\n");
    exit(2);
  }
}

NOX static int set_bits(uint8_t bits) {
  uint8_t *want = calloc(count, 1);
  want[__xray_unpack_function_id(fn_id) - 1] = bits;
  int s = xr_patch_set_args(object, want, count);
  free(want);
  return s;
}

/* One call of each; how many events the hook and the usual handler saw. */
NOX static void call_both(void) {
  hook_calls = 0;
  usual_calls[0] = usual_calls[1] = 0;
  EXPECT(lib_fn(-21, 0.75) == -42, "lib_fn result");
  EXPECT(lib_plain(1) == 0, "lib_plain result");
}

/* Where the entry sled of lib_fn calls now. */
NOX static uintptr_t sled_target(void) {
  uintptr_t a = (uintptr_t)lib_fn;
#if defined(__x86_64__)
  int32_t rel;
  memcpy(&rel, (void *)(a + 7), 4);
  return a + 11 + (uintptr_t)(intptr_t)rel;
#else
  uint32_t bl;
  memcpy(&bl, (void *)(a + 12), 4);
  int64_t off = (int64_t)((uint64_t)(bl & 0x03FFFFFFu) << 38) >> 36; /* imm26 * 4 */
  return a + 12 + (uintptr_t)off;
#endif
}

/* The mapping holding address a: its permissions and path ("" anonymous);
 * false when none. */
NOX static int mapping_of(uintptr_t a, char perms[5], char path[256]) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    unsigned long s, e;
    path[0] = '\0';
    if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %255s", &s, &e, perms, path) >= 3 && a >= s &&
        a < e)
      found = 1;
  }
  fclose(f);
  return found;
}

NOX static void check_stub(const char *what) {
  uintptr_t t = sled_target();
  char perms[5] = "", path[256] = "";
  EXPECT(mapping_of(t, perms, path) && strcmp(perms, "r-xp") == 0 && path[0] == '\0',
         "%s: the sled calls %#lx, in a mapping '%s' '%s'", what, (unsigned long)t, perms, path);
  uintptr_t dest;
#if defined(__x86_64__)
  EXPECT(memcmp((void *)t, "\xFF\x25\0\0\0\0", 6) == 0, "%s: not a jmp *0(%%rip)", what);
  memcpy(&dest, (void *)(t + 6), 8);
#else
  EXPECT(((uint32_t *)t)[0] == 0x58000050u && ((uint32_t *)t)[1] == 0xD61F0200u,
         "%s: not ldr x16; br x16", what);
  memcpy(&dest, (void *)(t + 8), 8);
#endif
  EXPECT(dest == (uintptr_t)xr_args_entry_trampoline, "%s: the stub jumps to %#lx", what,
         (unsigned long)dest);
  uintptr_t a = (uintptr_t)lib_fn;
  EXPECT((t > a ? t - a : a - t) < XR_ARCH_CALL_REACH, "%s: stub out of reach", what);
}

NOX static void check_capture(const char *what) {
  int before = failures;
  call_both();
  EXPECT(hook_calls == 2 && hook_ids[0] == fn_id && hook_ids[1] == fn_id,
         "%s: hook calls %d (ids %#x %#x)", what, hook_calls, hook_ids[0], hook_ids[1]);
  double x = 0.75;
  uint64_t xb;
  memcpy(&xb, &x, 8);
  EXPECT(hook_regs[0].gpr[0] == (uint64_t)-21L && hook_regs[0].fpr[0] == xb, "%s: arguments",
         what);
  EXPECT(hook_regs[1].gpr[0] == (uint64_t)-42L, "%s: result", what);
  EXPECT(usual_calls[0] == 0 && usual_calls[1] == 2, "%s: usual %d/%d", what, usual_calls[0],
         usual_calls[1]);
  check_stub(what);
  printf("%s: %s\n", what, failures > before ? "FAILED" : "ok");
}

/* Reserves every free range within reach of the object but the 64 MiB
 * above the heap and below the stack (which grow there, and which the
 * runtime leaves alone for that reason): returns how many, in r[]. */
struct range {
  uintptr_t start, end;
};
NOX static size_t reserve_reach(struct range *r, size_t max) {
  uintptr_t a = (uintptr_t)lib_fn, room = (uintptr_t)64 << 20;
  uintptr_t page = 1 << 16; /* beyond any page size */
  uintptr_t lo = (a > XR_ARCH_CALL_REACH ? a - XR_ARCH_CALL_REACH : 0x100000) & ~(page - 1);
  uintptr_t hi = (a + XR_ARCH_CALL_REACH + page - 1) & ~(page - 1);
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  uintptr_t prev_end = 0;
  int prev_heap = 0;
  size_t n = 0;
  while (fgets(line, sizeof line, f) && n < max) {
    unsigned long s, e;
    char path[256] = "";
    if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &s, &e, path) < 2)
      continue;
    uintptr_t gs = prev_end + (prev_heap ? room : 0);
    uintptr_t ge = strcmp(path, "[stack]") == 0 ? s - room : s;
    gs = gs > lo ? gs : lo;
    ge = ge < hi ? ge : hi;
    prev_end = e;
    prev_heap = strcmp(path, "[heap]") == 0;
    if (gs < ge)
      r[n++] = (struct range){gs, ge};
  }
  fclose(f);
  for (size_t i = 0; i < n; i++)
    if (mmap((void *)r[i].start, r[i].end - r[i].start, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1,
             0) != (void *)r[i].start) {
      printf("cannot reserve %#lx-%#lx\n", (unsigned long)r[i].start, (unsigned long)r[i].end);
      exit(2);
    }
  return n;
}

NOX int main(void) {
  xr_args_hook = hook;
  __xray_set_handler(usual);
  load();
  uintptr_t far = (uintptr_t)lib_fn - (uintptr_t)xr_args_entry_trampoline;
  fprintf(stderr, "the object is %s of the executable's trampolines\n",
          far + XR_ARCH_CALL_REACH < 2 * XR_ARCH_CALL_REACH ? "within reach" : "out of reach");
  if (__xray_patch() != SUCCESS || set_bits(XR_ARGS_AT_ENTRY | XR_ARGS_AT_EXIT) != SUCCESS)
    return 2;
  check_capture("captured through the near stub");

  uintptr_t old_stub = sled_target();
  dlclose(lib);
  char perms[5], path[256];
  EXPECT(!mapping_of(old_stub, perms, path), "the stub page outlived its object");
  load();
  EXPECT(__xray_patch_object(object) == SUCCESS && set_bits(XR_ARGS_AT_ENTRY | XR_ARGS_AT_EXIT) ==
                                                        SUCCESS,
         "patching the reloaded object");
  check_capture("loaded again");
  set_bits(0);
  dlclose(lib);
  load();
  if (__xray_patch_object(object) != SUCCESS)
    return 2;

  static struct range reserved[4096];
  size_t n = reserve_reach(reserved, 4096);
  int s1 = set_bits(XR_ARGS_AT_ENTRY);
  int s2 = set_bits(XR_ARGS_AT_ENTRY | XR_ARGS_AT_EXIT);
  call_both();
  EXPECT(s1 == SUCCESS && s2 == SUCCESS, "no page: statuses %d %d", s1, s2);
  EXPECT(hook_calls == 0 && usual_calls[0] == 2 && usual_calls[1] == 2,
         "no page: hook %d, usual %d/%d", hook_calls, usual_calls[0], usual_calls[1]);
  printf("no page within reach: %s\n", failures ? "FAILED" : "ok");
  for (size_t i = 0; i < n; i++)
    munmap((void *)reserved[i].start, reserved[i].end - reserved[i].start);
  /* The same bits again: the page is tried again for them. */
  EXPECT(set_bits(XR_ARGS_AT_ENTRY | XR_ARGS_AT_EXIT) == SUCCESS, "set again");
  check_capture("a page once more");
  return failures != 0;
}
