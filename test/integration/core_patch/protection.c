/* Patching statuses and page protection. mprotect is interposed (the
 * program's definition wins over libc's in the static link of libxray.a) to
 * record every call, to fail one on purpose and to re-enter the patcher from
 * inside a patching call (ONGOING).
 * argv[1] == "page-size": only report what __xray_patch returns (the script
 * sets xray_page_size_override).
 * argv[1] == "rollback": an mprotect that fails part-way through a run. The
 * program picks a page size override that makes the run of its sleds reach a
 * neighbouring mapping of the executable (tens of KiB in a small program,
 * MiBs with a sanitizer runtime linked in) and re-executes itself with it in
 * XRAY_OPTIONS. */
#define _GNU_SOURCE
#include "recorder.h"

#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct call { uintptr_t addr; size_t len; int prot; };
static struct call calls[256];
static int ncalls, fail_next, fail_at, reenter_next;
static XRayPatchingStatus reentered[2];

NOXRAY int mprotect(void *addr, size_t len, int prot) {
  if (ncalls < 256)
    calls[ncalls++] = (struct call){(uintptr_t)addr, len, prot};
  if (fail_next || (fail_at && ncalls == fail_at)) {
    fail_next = fail_at = 0;
    errno = EACCES;
    return -1;
  }
  if (reenter_next) {
    reenter_next = 0;
    reentered[0] = __xray_patch();
    reentered[1] = __xray_unpatch_function(1);
  }
  return (int)syscall(SYS_mprotect, addr, len, prot);
}

/* The protection of every page of the executable's mappings, as
 * "start-end perms" lines with adjacent equal ranges merged (the kernel
 * may keep a VMA split after a protection round trip; what matters is the
 * protection of each page). */
NOXRAY static void exe_maps(char *out, size_t cap) {
  char exe[512], line[1024], perms[8];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  CHECK(n > 0);
  exe[n] = 0;
  FILE *f = fopen("/proc/self/maps", "r");
  CHECK(f);
  size_t used = 0;
  unsigned long start, end, run_start = 0, run_end = 0;
  char run_perms[8] = "";
  out[0] = 0;
  for (;;) {
    int more = fgets(line, sizeof line, f) != NULL;
    if (more && !strstr(line, exe))
      continue;
    if (more)
      CHECK(sscanf(line, "%lx-%lx %7s", &start, &end, perms) == 3);
    if (more && run_end == start && strcmp(perms, run_perms) == 0) {
      run_end = end;
      continue;
    }
    if (run_end)
      used += (size_t)snprintf(out + used, cap - used, "%lx-%lx %s\n", run_start, run_end,
                               run_perms);
    if (!more)
      break;
    run_start = start;
    run_end = end;
    strcpy(run_perms, perms);
  }
  fclose(f);
}

/* No mapping of the process is writable and executable. */
NOXRAY static int writable_and_executable(void) {
  char line[1024], perms[8];
  int bad = 0;
  FILE *f = fopen("/proc/self/maps", "r");
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "%*s %7s", perms) == 1 && perms[1] == 'w' && perms[2] == 'x')
      bad++;
  fclose(f);
  return bad;
}

/* Every RWX call was undone by a later call on the same range with the
 * protection the pages had before (r-x for text). */
NOXRAY static void check_calls_balanced(void) {
  CHECK(ncalls % 2 == 0 && ncalls > 0);
  for (int i = 0; i < ncalls; i += 2) {
    CHECK(calls[i].prot == (PROT_READ | PROT_WRITE | PROT_EXEC));
    CHECK(calls[i + 1].addr == calls[i].addr && calls[i + 1].len == calls[i].len);
    CHECK(calls[i + 1].prot == (PROT_READ | PROT_EXEC));
  }
}

volatile int sink;
TRACED int f1(int x) { sink = x; return x + 1; }
TRACED int f2(int x) { sink = x; return f1(x) + 1; }
TRACED int f3(int x) { sink = x; return x + 3; }

static const struct named fns[] = {
    {"f1", (void *)f1}, {"f2", (void *)f2}, {"f3", (void *)f3}};

NOXRAY static void call_all(void) { CHECK(f2(1) == 3 && f3(1) == 4); }

/* A page size override P under which the run of the sleds of f1..f3
 * covers the mapping that holds them and a neighbour: a power of two larger
 * than that mapping, so the P-aligned window around the sleds (what the
 * patcher makes one run of) extends past it on some side, wherever ASLR put
 * it (the program re-executes itself: another base); the mappings on both
 * sides must adjoin it. */
NOXRAY static unsigned long run_page_for_two_mappings(void) {
  uintptr_t f1 = __xray_function_address(1);
  unsigned long start, end, prev_end = 0, text_start = 0, text_end = 0, next_start = 0;
  int adjacent_before = 0;
  char line[1024];
  FILE *f = fopen("/proc/self/maps", "r");
  CHECK(f);
  while (fgets(line, sizeof line, f)) {
    CHECK(sscanf(line, "%lx-%lx", &start, &end) == 2);
    if (text_end && !next_start)
      next_start = start;
    if (start <= f1 && f1 < end) {
      text_start = start;
      text_end = end;
      adjacent_before = prev_end == start;
    }
    prev_end = end;
  }
  fclose(f);
  CHECK(text_end && adjacent_before && next_start == text_end);
  unsigned long p = (unsigned long)sysconf(_SC_PAGESIZE);
  while (p <= text_end - text_start)
    p *= 2;
  return p;
}

/* A run of pages spanning several mappings (each its own mprotect); the
 * second RWX call fails: the first must be undone before FAILED, the pages
 * be exactly as before and no sled patched. */
NOXRAY static int rollback(void) {
  static char before[8192], after[8192];
  const int rwx = PROT_READ | PROT_WRITE | PROT_EXEC;
  CHECK(__xray_set_handler(record_arg0) == 1);
  exe_maps(before, sizeof before);
  ncalls = 0;
  CHECK(__xray_patch() == SUCCESS);
  int opened = 0;
  while (opened < ncalls && calls[opened].prot == rwx)
    opened++;
  printf("first run opens %s mapping\n", opened >= 2 ? "more than one" : "one");
  CHECK(opened >= 2);
  int want_prot = -1; /* what the successful call restored on calls[0]'s range */
  for (int i = opened; i < ncalls; i++)
    if (calls[i].addr == calls[0].addr && calls[i].len == calls[0].len)
      want_prot = calls[i].prot;
  CHECK(want_prot != -1 && want_prot != rwx);
  struct call first = calls[0];
  CHECK(__xray_unpatch() == SUCCESS);

  ncalls = 0;
  fail_at = 2;
  CHECK(__xray_patch() == FAILED);
  printf("W+X mappings after the failure: %d\n", writable_and_executable());
  exe_maps(after, sizeof after);
  printf("protections after the failure: %s\n",
         strcmp(before, after) == 0 ? "as before" : "CHANGED");
  /* 1 opened, 2 failed, then both ranges put back (2 may be half-done). */
  fflush(stdout);
  CHECK(ncalls == 4);
  CHECK(calls[2].addr == first.addr && calls[2].len == first.len &&
        calls[2].prot == want_prot);
  CHECK(calls[3].addr == calls[1].addr && calls[3].len == calls[1].len &&
        calls[3].prot != rwx);
  call_all();
  print_and_clear("after the failure", fns, 3);
  CHECK(__xray_patch() == SUCCESS);
  call_all();
  print_and_clear("patched", fns, 3);
  CHECK(__xray_unpatch() == SUCCESS);
  CHECK(writable_and_executable() == 0);
  return 0;
}

NOXRAY int main(int argc, char **argv) {
  if (argc > 2 && strcmp(argv[1], "rollback") == 0)
    return rollback();
  if (argc > 1 && strcmp(argv[1], "rollback") == 0) {
    unsigned long p = run_page_for_two_mappings();
    CHECK(p != 0);
    char opt[64];
    snprintf(opt, sizeof opt, "xray_page_size_override=%lu", p);
    CHECK(setenv("XRAY_OPTIONS", opt, 1) == 0);
    execl("/proc/self/exe", argv[0], "rollback", "with-override", (char *)NULL);
    CHECK(!"execl");
  }
  if (argc > 1 && strcmp(argv[1], "page-size") == 0) {
    printf("patch %d\n", (int)__xray_patch());
    printf("unpatch %d\n", (int)__xray_unpatch());
    printf("wx %d\n", writable_and_executable());
    return 0;
  }
  static char before[8192], after[8192];
  long page = sysconf(_SC_PAGESIZE);
  int max = (int)__xray_max_function_id();
  CHECK(max == 3);
  CHECK(__xray_set_handler(record_arg0) == 1);
  exe_maps(before, sizeof before);

  /* Patch all / unpatch all: protection restored exactly, nothing W+X. */
  CHECK(__xray_patch() == SUCCESS);
  check_calls_balanced();
  exe_maps(after, sizeof after);
  CHECK(strcmp(before, after) == 0);
  CHECK(writable_and_executable() == 0);
  call_all();
  print_and_clear("all patched", fns, 3);
  ncalls = 0;
  CHECK(__xray_unpatch() == SUCCESS);
  check_calls_balanced();
  exe_maps(after, sizeof after);
  CHECK(strcmp(before, after) == 0);
  CHECK(writable_and_executable() == 0);
  call_all();
  print_and_clear("all unpatched", fns, 3);

  /* One function: only the page(s) holding its sleds change. */
  ncalls = 0;
  CHECK(__xray_patch_function(2) == SUCCESS);
  check_calls_balanced();
  uintptr_t f2_page = __xray_function_address(2) & ~(uintptr_t)(page - 1);
  for (int i = 0; i < ncalls; i++)
    CHECK(calls[i].addr >= f2_page && calls[i].addr + calls[i].len <= f2_page + 2 * page);
  call_all();
  print_and_clear("f2 patched", fns, 3);
  CHECK(__xray_unpatch_function(2) == SUCCESS);
  CHECK(__xray_patch_function_range(1, 2) == SUCCESS);
  call_all();
  print_and_clear("f1..f2 patched", fns, 3);
  CHECK(__xray_unpatch_function_range(1, 2) == SUCCESS);
  CHECK(__xray_patch_function(3) == SUCCESS);
  call_all();
  print_and_clear("f3 patched", fns, 3);
  CHECK(__xray_unpatch_function(3) == SUCCESS);

  /* Bad ids. */
  CHECK(__xray_patch_function(0) == FAILED);
  CHECK(__xray_patch_function(-1) == FAILED);
  CHECK(__xray_patch_function(max + 1) == FAILED);
  CHECK(__xray_unpatch_function(max + 1) == FAILED);
  CHECK(__xray_unpatch_function(0) == FAILED);
  CHECK(__xray_patch_function_range(2, 1) == FAILED);
  CHECK(__xray_patch_function_range(0, 1) == FAILED);
  CHECK(__xray_patch_function_range(1, max + 1) == FAILED);
  CHECK(__xray_unpatch_function_range(-5, 2) == FAILED);
  CHECK(__xray_function_address(0) == 0);
  CHECK(__xray_function_address(max + 1) == 0);
  CHECK(__xray_function_address(-1) == 0);
  CHECK(__xray_patch_function(max) == SUCCESS);
  CHECK(__xray_unpatch_function(max) == SUCCESS);

  /* A patching call started while another runs: ONGOING. */
  ncalls = 0;
  reenter_next = 1;
  CHECK(__xray_patch() == SUCCESS);
  CHECK(reentered[0] == ONGOING && reentered[1] == ONGOING);
  CHECK(__xray_unpatch() == SUCCESS); /* the flag was released */

  /* mprotect fails: FAILED, no page left W+X, and the next call works. */
  fail_next = 1;
  CHECK(__xray_patch() == FAILED);
  CHECK(writable_and_executable() == 0);
  CHECK(__xray_patch() == SUCCESS);
  CHECK(writable_and_executable() == 0);
  CHECK(__xray_unpatch() == SUCCESS);
  exe_maps(after, sizeof after);
  CHECK(strcmp(before, after) == 0);
  printf("ok\n");
  return 0;
}
