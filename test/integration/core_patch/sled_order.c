/* Sleds out of address order, a sled that crosses a page boundary and a page
 * without sleds between sled pages (see sled_order.S): __xray_patch and
 * __xray_unpatch of the whole map must reach every function, change the
 * protection of sled pages only, restore it exactly and leave nothing W+X.
 * mprotect is interposed to record the calls. Built without
 * -fxray-instrument: the hand-made sleds are the only ones. */
#define _GNU_SOURCE
#include "recorder.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char sled_pages[];
extern void fn_a(void), fn_c(void), fn_d(void), fn_cross(void);

struct call { uintptr_t addr; size_t len; int prot; };
static struct call calls[64];
static int ncalls;

NOXRAY int mprotect(void *addr, size_t len, int prot) {
  if (ncalls < 64)
    calls[ncalls++] = (struct call){(uintptr_t)addr, len, prot};
  return (int)syscall(SYS_mprotect, addr, len, prot);
}

/* "perms" of the page at p, from /proc/self/maps. */
NOXRAY static void perms_of(uintptr_t p, char out[5]) {
  char line[1024];
  unsigned long start, end;
  FILE *f = fopen("/proc/self/maps", "r");
  CHECK(f);
  strcpy(out, "none");
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "%lx-%lx %4s", &start, &end, out) == 3 && p >= start && p < end)
      break;
    else
      strcpy(out, "none");
  fclose(f);
}

/* Every call since the last check: pairs of RWX then r-x on the same range,
 * only on pages P0, P1 and P3; prints the pages each pair covered. */
NOXRAY static void check_calls(const char *what) {
  long page = sysconf(_SC_PAGESIZE);
  uintptr_t p0 = (uintptr_t)sled_pages;
  CHECK(ncalls % 2 == 0 && ncalls > 0);
  printf("%s:", what);
  for (int i = 0; i < ncalls; i += 2) {
    CHECK(calls[i].prot == (PROT_READ | PROT_WRITE | PROT_EXEC));
    CHECK(calls[i + 1].addr == calls[i].addr && calls[i + 1].len == calls[i].len);
    CHECK(calls[i + 1].prot == (PROT_READ | PROT_EXEC));
    for (uintptr_t a = calls[i].addr; a < calls[i].addr + calls[i].len; a += (uintptr_t)page) {
      CHECK(a >= p0 && a < p0 + 4 * (uintptr_t)page && a != p0 + 2 * (uintptr_t)page);
      printf(" P%d", (int)((a - p0) / (uintptr_t)page));
    }
    printf(";");
  }
  printf("\n");
  ncalls = 0;
}

static const struct named fns[] = {
    {"a", (void *)fn_a}, {"c", (void *)fn_c}, {"d", (void *)fn_d}, {"cross", (void *)fn_cross}};

NOXRAY static void call_all(void) {
  fn_a();
  fn_c();
  fn_d();
  fn_cross();
}

NOXRAY int main(void) {
  if (sysconf(_SC_PAGESIZE) != 4096) {
    printf("page size is not 4096\n");
    return 77;
  }
  CHECK(__xray_max_function_id() == 4);
  print_ids(fns, 4);
  char before[4][5], after[5];
  for (int p = 0; p < 4; p++)
    perms_of((uintptr_t)sled_pages + 4096u * (unsigned)p, before[p]);
  CHECK(__xray_set_handler(record_arg0) == 1);
  for (int round = 0; round < 2; round++) { /* first call builds the runs */
    CHECK(__xray_patch() == SUCCESS);
    check_calls("patch");
    call_all();
    print_and_clear("patched", fns, 4);
    CHECK(__xray_unpatch() == SUCCESS);
    check_calls("unpatch");
    call_all();
    print_and_clear("unpatched", fns, 4);
    for (int p = 0; p < 4; p++) {
      perms_of((uintptr_t)sled_pages + 4096u * (unsigned)p, after);
      CHECK(strcmp(before[p], after) == 0);
      CHECK(!(after[1] == 'w' && after[2] == 'x'));
    }
  }
  printf("P0..P3: %s %s %s %s\n", before[0], before[1], before[2], before[3]);
  return 0;
}
