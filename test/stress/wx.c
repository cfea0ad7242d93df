/* W^X: after every patch and unpatch call returns, /proc/self/maps has no
 * mapping that is both writable and executable, and every page that holds
 * instrumented code has exactly the protection it had before any patching.
 *
 * The workload spreads instrumented functions over several pages (page-
 * aligned functions) so partial patching touches some pages and not others.
 * Calls: patch all, unpatch all, each function alone, twice in a row, bad
 * ids, in every order; after each: the maps check, then a call through each
 * function (the code still runs, whatever its state). */
#include "stress.h"

#define PAGE_FN(n)                                                             \
  __attribute__((aligned(4096))) WORK int page_fn##n(int x) {                  \
    return x * (n + 3) + n;                                                     \
  }
PAGE_FN(0)
PAGE_FN(1)
PAGE_FN(2)
PAGE_FN(3)
PAGE_FN(4)
PAGE_FN(5)
WORK int small_a(int x) { return x + 11; }
WORK int small_b(int x) { return small_a(x) * 2; }

static int (*const fns[])(int) = {page_fn0, page_fn1, page_fn2, page_fn3,
                                   page_fn4, page_fn5, small_a, small_b};
enum { NFN = sizeof fns / sizeof fns[0], MAX_PAGES = 256 };

struct page_prot {
  uintptr_t page;
  char perms[5];
};
static struct page_prot pages[MAX_PAGES];
static int npages;
static long checks;

/* perms of the mapping holding addr ("r-xp"), from /proc/self/maps; also
 * fails on any writable+executable mapping. */
NOINST static void scan_maps(uintptr_t addr, char out[5]) {
  char buf[1 << 16];
  int fd = open("/proc/self/maps", O_RDONLY);
  CHECK(fd >= 0, "open maps: %s", strerror(errno));
  size_t n = 0;
  ssize_t r;
  while ((r = read(fd, buf + n, sizeof buf - 1 - n)) > 0)
    n += (size_t)r;
  close(fd);
  buf[n] = 0;
  if (out)
    out[0] = 0;
  for (char *line = buf; line && *line;) {
    char *next = strchr(line, '\n');
    if (next)
      *next++ = 0;
    unsigned long lo, hi;
    char perms[5];
    if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3) {
      CHECK(!(perms[1] == 'w' && perms[2] == 'x'),
            "writable and executable mapping: %s", line);
      if (out && addr >= lo && addr < hi)
        memcpy(out, perms, 5);
    }
    line = next;
  }
}

NOINST static void record_pages(void) {
  long ps = sysconf(_SC_PAGESIZE);
  for (int32_t id = 1; id <= (int32_t)__xray_max_function_id(); id++) {
    uintptr_t f = __xray_function_address(id);
    CHECK(f != 0, "no address for id %d", id);
    /* The function's first page and the next one (exit sleds). */
    for (uintptr_t p = f & ~(uintptr_t)(ps - 1); p <= ((f + 64) & ~(uintptr_t)(ps - 1)); p += ps) {
      bool seen = false;
      for (int i = 0; i < npages; i++)
        seen |= pages[i].page == p;
      if (seen || npages == MAX_PAGES)
        continue;
      pages[npages].page = p;
      scan_maps(p, pages[npages].perms);
      CHECK(pages[npages].perms[0], "page %#lx not mapped", (unsigned long)p);
      npages++;
    }
  }
}

NOINST static void check_wx(const char *after) {
  for (int i = 0; i < npages; i++) {
    char now[5];
    scan_maps(pages[i].page, now);
    CHECK(strcmp(now, pages[i].perms) == 0, "after %s: page %#lx is %s, was %s",
          after, (unsigned long)pages[i].page, now, pages[i].perms);
  }
  for (int i = 0; i < NFN; i++)
    CHECK(fns[i](5) == (i < 6 ? 5 * (i + 3) + i : i == 6 ? 16 : 32),
          "after %s: function %d computes wrong", after, i);
  checks++;
}

static long events;
NOINST static void on_event(int32_t id, XRayEntryType t) {
  (void)id;
  (void)t;
  __atomic_add_fetch(&events, 1, __ATOMIC_RELAXED);
}

#define STEP(call, want)                                                       \
  do {                                                                         \
    XRayPatchingStatus s_ = (call);                                            \
    CHECK(s_ == (want), "%s returned %d", #call, (int)s_);                     \
    check_wx(#call);                                                           \
  } while (0)

int main(int argc, char **argv) {
  const bool expect_fail = argc > 1 && strcmp(argv[1], "bad-page-size") == 0;
  const int32_t max = (int32_t)__xray_max_function_id();
  CHECK(max >= NFN, "max id %d", max);
  record_pages();
  check_wx("start");
  CHECK(__xray_set_handler(on_event) == 1, "set_handler");
  if (expect_fail) {
    /* xray_page_size_override is not a power of two: patching fails and
     * leaves every page as it was. */
    STEP(__xray_patch(), FAILED);
    STEP(__xray_patch_function(1), FAILED);
    printf("checks: %ld\n", checks);
    return 0;
  }
  for (int round = 0; round < 3; round++) {
    STEP(__xray_patch(), SUCCESS);
    STEP(__xray_patch(), SUCCESS);
    STEP(__xray_unpatch(), SUCCESS);
    STEP(__xray_unpatch(), SUCCESS);
    for (int32_t id = 1; id <= max; id++) {
      STEP(__xray_patch_function(id), SUCCESS);
      STEP(__xray_patch_function(id), SUCCESS);
    }
    for (int32_t id = 1; id <= max; id += 2)
      STEP(__xray_unpatch_function(id), SUCCESS);
    STEP(__xray_patch(), SUCCESS);
    for (int32_t id = max; id >= 1; id--)
      STEP(__xray_unpatch_function(id), SUCCESS);
    STEP(__xray_patch_function(0), FAILED);
    STEP(__xray_patch_function(-1), FAILED);
    STEP(__xray_patch_function(max + 1), FAILED);
    STEP(__xray_unpatch_function(INT32_MAX), FAILED);
    STEP(__xray_unpatch(), SUCCESS);
  }
  STEP(__xray_patch(), SUCCESS);
  events = 0;
  for (int i = 0; i < NFN; i++)
    USE(fns[i](1));
  CHECK(__xray_unpatch() == SUCCESS, "unpatch");
  /* 8 calls, small_b calls small_a: 9 entries + 9 exits. */
  CHECK(events == 18, "events with everything patched: %ld", events);
  printf("checks: %ld over %d pages\n", checks, npages);
  return 0;
}
