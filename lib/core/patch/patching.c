/* Rewriting one object's sleds (the API is in patch_api.c): which sleds, and
 * page protection.
 *
 * W^X: only the pages that hold the affected sleds change protection, merged
 * into runs of adjacent pages; each run is made RWX (not just RW: other
 * threads may be running code on those pages), its sleds are rewritten, and
 * then exactly the protection it had before is restored. So when a call
 * returns no page is writable and executable. That holds on failure too: if
 * an mprotect fails part-way through a run, the parts already made RWX are
 * put back before the call returns FAILED (open_run); restoring never stops
 * at the first failure (close_run).
 *
 * The original protections are found once and cached (the runtime is the only
 * one that changes them): from the program headers of the module holding the
 * sleds (dl_iterate_phdr, no I/O), which is exactly what the loader mapped
 * when each sled page lies in one PT_LOAD segment whose pages it shares with
 * no other segment and no PT_GNU_RELRO range covers them; otherwise from
 * /proc/self/maps (about 23 us here). The one case the headers cannot see is
 * a program that itself changed the protection of its code pages before the
 * first patching call; we restore the loader's protection then (never W+X
 * unless the segment says so). */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include "core/patch/patching.h"

#include "core/patch/args_targets.h"
#include "core/base/mmap_array.h"
#include "core/base/proc_maps.h"
#include "core/base/report.h"
#include "core/objects/objects.h"
#include "core/options/options.h"
#include "core/thread/quiesce.h"
#include "core/thread/thread.h"
#include "xray/xray_interface.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A range of pages that holds sleds, with its original protection: one
 * mapping of /proc/self/maps or one PT_LOAD segment. */
struct prot_segment {
  uintptr_t start, end;
  int prot;
};

struct segments {
  struct prot_segment *v;
  size_t count, capacity;
  bool loaded;
};

/* A run of pages and the sleds [first, last) that lie on them. */
struct run {
  uintptr_t start, end;
  size_t first, last;
  int32_t first_id; /* function id of sleds[first] */
};

/* The runs of the whole map, found by the first whole-map call and kept:
 * patching everything is the common call and should cost little more than
 * the sled writes. page = the page size they were computed for (0: none). */
struct all_runs {
  struct run *v;
  size_t count, capacity, page;
  bool populated; /* their pages were faulted in writable once */
};

/* What patching keeps per object (mmap'd at its first patching call, freed
 * when the object is deregistered), by object id, under the registry lock.
 * want: XR_WANT_* bits by function (NULL: none); retargeted: bits were set
 * once, so enabling takes the retargeting steps (patching.h). */
struct patch_state {
  struct segments segments;
  struct all_runs all_runs;
  uint8_t *want;
  size_t want_count;
  bool retargeted, no_targets; /* no_targets: the last rewrite found none */
};
static struct patch_state *states[XR_MAX_OBJECTS];

/* The object being patched: set by xr_patch_object_functions, which runs
 * with the registry lock held, so one at a time. */
static struct xr_object *cur;
static struct segments *cur_segments(void) { return &states[cur->id]->segments; }
static struct all_runs *cur_runs(void) { return &states[cur->id]->all_runs; }
/* The trampolines of cur's sleds by their function's want bits (0..3). */
static uintptr_t cur_targets[4][XR_T_CALL_COUNT];

/* Set by the first call that enables sleds. */
static bool ever_enabled;

bool xr_patching_ever_enabled(void) {
  return __atomic_load_n(&ever_enabled, __ATOMIC_RELAXED);
}

/* Sled sizes are the port's: xr_arch_sled_size and XR_ARCH_MAX_SLED_BYTES
 * (lib/arch/arch.h). */

static bool add_segment(uintptr_t start, uintptr_t end, int prot) {
  struct segments *s = cur_segments();
  struct prot_segment *v = xr_mmap_array_grow(s->v, &s->capacity, s->count, sizeof(*v), 256);
  if (v == NULL)
    return false;
  s->v = v;
  s->v[s->count++] = (struct prot_segment){start, end, prot};
  return true;
}

/* The mappings of /proc/self/maps that intersect [lo, hi). */
struct maps_search {
  uintptr_t lo, hi;
  bool ok;
};

static int maps_segment(const struct xr_maps_entry *e, void *arg) {
  struct maps_search *q = arg;
  if (e->end > q->lo && e->start < q->hi)
    q->ok = q->ok && add_segment(e->start, e->end, e->prot);
  return 0;
}

/* Reads the protections of the mappings that intersect [lo, hi). */
static bool load_segments(uintptr_t lo, uintptr_t hi) {
  struct maps_search q = {lo, hi, true};
  return xr_maps_each(maps_segment, &q) == 0 && q.ok &&
         cur_segments()->count > 0;
}

/* Protections from the program headers. The module is the one with a
 * PT_LOAD segment holding the lowest sled. Its PT_LOAD segments that meet
 * [lo, hi) become the segments, if that is exact (see the head comment);
 * else `exact` stays false and nothing is added. */
struct phdr_search {
  uintptr_t lo, hi, first_sled, last_sled;
  size_t page;
  bool found, exact;
};

static bool in_segment(const struct dl_phdr_info *info, const ElfW(Phdr) *ph,
                       uintptr_t a) {
  uintptr_t start = info->dlpi_addr + ph->p_vaddr;
  return ph->p_type == PT_LOAD && a >= start && a < start + ph->p_memsz;
}

static int phdr_module(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct phdr_search *q = arg;
  bool has_first = false, has_last = false;
  for (size_t i = 0; i < info->dlpi_phnum; i++) {
    has_first = has_first || in_segment(info, &info->dlpi_phdr[i], q->first_sled);
    has_last = has_last || in_segment(info, &info->dlpi_phdr[i], q->last_sled);
  }
  if (!has_first)
    return 0; /* not this module */
  q->found = true;
  if (!has_last)
    return 1; /* sleds in two modules? not ours to guess */
  uintptr_t mask = q->page - 1, prev_end = 0;
  for (size_t i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t start = (info->dlpi_addr + ph->p_vaddr) & ~mask;
    uintptr_t end = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + mask) & ~mask;
    if (ph->p_type == PT_GNU_RELRO && start < q->hi && end > q->lo)
      return 1; /* protection changed after loading */
    if (ph->p_type != PT_LOAD || ph->p_memsz == 0)
      continue;
    if (start < prev_end)
      return 1; /* a page shared by two segments, or out of order */
    prev_end = end;
    if (start >= q->hi || end <= q->lo)
      continue;
    int prot = (ph->p_flags & PF_R ? PROT_READ : 0) | (ph->p_flags & PF_W ? PROT_WRITE : 0) |
               (ph->p_flags & PF_X ? PROT_EXEC : 0);
    if (!add_segment(start, end, prot))
      return 1;
  }
  q->exact = cur_segments()->count > 0;
  return 1;
}

/* The original protections of [lo, hi): program headers, else /proc/self/maps. */
static bool load_protections(uintptr_t lo, uintptr_t hi) {
  const struct xr_sled_map *m = cur->map;
  struct phdr_search q = {lo, hi, m->min_sled, m->max_sled, (size_t)sysconf(_SC_PAGESIZE),
                          false, false};
  cur_segments()->count = 0;
  /* Not in a fork child: a parent thread inside dlopen or dlclose at the
   * fork leaves the lock dl_iterate_phdr takes held there for ever (glibc
   * resets only the loader's other locks; docs/reliability.md, Fork). The
   * maps say the same, as no patching call was in progress at the fork
   * (fork_locks.c). */
  if (q.page && !(q.page & (q.page - 1)) &&
      !__atomic_load_n(&xr_process_forked, __ATOMIC_RELAXED))
    dl_iterate_phdr(phdr_module, &q);
  if (q.exact)
    return true;
  cur_segments()->count = 0;
  return load_segments(lo, hi);
}

/* The part of [start, end) that segment i covers, in [*a, *b); false if
 * none. */
static bool segment_part(size_t i, uintptr_t start, uintptr_t end, uintptr_t *a,
                         uintptr_t *b) {
  const struct prot_segment *seg = &cur_segments()->v[i];
  *a = start > seg->start ? start : seg->start;
  *b = end < seg->end ? end : seg->end;
  return *a < *b;
}

/* Gives the parts of [start, end) in segments [0, upto) their original
 * protection back. Tries every part even after a failure (each one left
 * undone stays writable and executable: said once per part). Returns 0, or
 * -1 if any failed. */
static int close_run(uintptr_t start, uintptr_t end, size_t upto) {
  int status = 0;
  uintptr_t a, b;
  for (size_t i = 0; i < upto; i++) {
    if (!segment_part(i, start, end, &a, &b))
      continue;
    if (mprotect((void *)a, b - a, cur_segments()->v[i].prot)) {
      xr_report(XR_ERROR, "cannot restore the protection of code pages %#lx-%#lx "
                          "(mprotect: %s): they stay writable; XRay patching failed",
                (unsigned long)a, (unsigned long)b, strerror(errno));
      status = -1;
    }
  }
  return status;
}

/* Makes the mapped parts of [start, end) RWX, one mprotect per segment. If
 * one fails, the parts already changed get their original protection back
 * (close_run), the failing one included: Linux may have applied a failed
 * mprotect to part of its range. So a failed call leaves every page as it
 * was. Returns 0 or -1. */
static int open_run(uintptr_t start, uintptr_t end) {
  uintptr_t a, b;
  for (size_t i = 0; i < cur_segments()->count; i++) {
    if (!segment_part(i, start, end, &a, &b))
      continue;
    if (mprotect((void *)a, b - a, PROT_READ | PROT_WRITE | PROT_EXEC)) {
      xr_report(XR_ERROR, "cannot change the protection of code pages %#lx-%#lx "
                          "(mprotect: %s); XRay patching failed",
                (unsigned long)a, (unsigned long)b, strerror(errno));
      (void)close_run(start, end, i + 1);
      return -1;
    }
  }
  return 0;
}

/* xr_patch_sled, or a retargeting step (patching.h). */
enum write_step { WRITE_PLAIN, WRITE_RETARGET, WRITE_FINISH };

/* selected: NULL for every sled of the run, else only the sleds of
 * functions whose selected[id - 1] is set; of those, the kinds in `kinds`,
 * and with only_on, those enabled now. Each sled calls its function's
 * trampoline for its want bits (cur_targets) when cur has any. Returns how
 * many sleds wait for WRITE_FINISH. Inlined into its callers, so the cached
 * whole-map runs (no selection, every kind, plain writes) test neither per
 * sled. */
static XR_ALWAYS_INLINE size_t write_sleds(const struct run *r, bool enable,
                                           const uint8_t *selected, unsigned kinds,
                                           bool only_on, enum write_step step,
                                           size_t *failed) {
  const struct xr_sled_map *m = cur->map;
  const uintptr_t *trampolines = cur->trampolines; /* loaded once, not per sled */
  const uint8_t *want = states[cur->id]->want;
  int32_t object = cur->id;
  int32_t id = r->first_id;
  size_t id_end = m->functions[id - 1].first_sled + m->functions[id - 1].sled_count;
  size_t pending = 0;
  for (size_t i = r->first; i < r->last; i++) {
    while (i >= id_end) {
      id++;
      id_end = m->functions[id - 1].first_sled + m->functions[id - 1].sled_count;
    }
    if (selected != NULL && !selected[id - 1])
      continue;
    const struct xr_sled *sled = &m->sleds[i];
    if (kinds != XR_SLEDS_ALL && !(kinds >> sled->kind & 1))
      continue;
    if (only_on && !xr_sled_enabled(sled))
      continue;
    unsigned bits = want != NULL ? want[id - 1] : 0;
    if (bits & XR_WANT_EXIT && sled->kind == XR_T_EXIT && !xr_sled_before_return(sled))
      bits &= ~(unsigned)XR_WANT_EXIT; /* a tail call's (AArch64): no result there */
    const uintptr_t *t = want != NULL ? cur_targets[bits] : trampolines;
    int32_t packed = xr_pack_id(id, object);
    int rc = step == WRITE_PLAIN      ? xr_patch_sled(sled, packed, t, enable)
             : step == WRITE_RETARGET ? xr_patch_sled_retarget(sled, packed, t)
                                      : xr_patch_sled_retarget_finish(sled, packed, t);
    if (rc < 0)
      (*failed)++;
    pending += rc > 0;
  }
  return pending;
}

/* populate: fault the run's pages in writable with one madvise
 * (MADV_POPULATE_WRITE, Linux 5.14; ignored where missing) instead of one
 * copy-on-write fault per page at the first sled write (faster; figures in
 * docs/performance.md, "Measurements behind design choices"). Only worth it
 * once. Enabling the sleds of an object retargeted once takes the two
 * retargeting steps, xr_quiesce_fence between them when a sled waits. */
static XR_ALWAYS_INLINE int rewrite_run(const struct run *r, bool enable,
                                        const uint8_t *selected, unsigned kinds, bool only_on,
                                        size_t *failed, bool populate) {
  if (open_run(r->start, r->end))
    return -1;
  if (populate)
    (void)madvise((void *)r->start, r->end - r->start, XR_MADV_POPULATE_WRITE);
  if (!enable || !states[cur->id]->retargeted) {
    write_sleds(r, enable, selected, kinds, false, WRITE_PLAIN, failed);
  } else if (write_sleds(r, true, selected, kinds, only_on, WRITE_RETARGET, failed)) {
    xr_quiesce_fence();
    write_sleds(r, true, selected, kinds, false, WRITE_FINISH, failed);
  }
  return close_run(r->start, r->end, cur_segments()->count);
}

/* Each object's sleds call that object's own trampolines (a shared
 * object's are its own position-independent copies: the executable's are
 * usually out of a sled call's reach). The sled kinds index the tables
 * directly, on every port, and the trampolines pass their number to the
 * handler as its entry type: the trampoline numbers are XRayEntryType's
 * (arch/trampoline_numbers.h, which the assembly reads too). */
_Static_assert(XR_T_ENTRY == (int)ENTRY && XR_T_EXIT == (int)EXIT && XR_T_TAIL == (int)TAIL &&
                   XR_T_ARG == (int)LOG_ARGS_ENTRY && XR_T_CUSTOM == (int)CUSTOM_EVENT &&
                   XR_T_TYPED == (int)TYPED_EVENT,
               "trampoline numbers are XRayEntryType's");

static size_t page_size(void) {
  uint64_t override = xr_flags.xray_page_size_override;
  if (override == 0)
    return (size_t)sysconf(_SC_PAGESIZE);
  if (override & (override - 1)) {
    static int once;
    xr_report_once(&once, XR_ERROR, "xray_page_size_override=%llu is not a power "
                                    "of two; XRay patching failed",
                   (unsigned long long)override);
    return 0;
  }
  return (size_t)override;
}

/* Walks the sleds of functions first_id..last_id in map order (only those
 * of selected functions when selected is not NULL, and of the kinds in
 * `kinds`), grouping them into runs
 * of adjacent pages, and calls emit(run) for each (stopping at the first
 * non-zero return). A sled whose first page lies in or right after the
 * current run grows it; any other (a gap, or an out-of-order sled below the
 * run) starts a new run, so runs stay exact in any order (two runs may then
 * share a page: each is restored before the next is opened). Without a
 * selection, function ids are looked up only where a run starts, by moving
 * a cursor forward (ids follow sled order): one pass over the sleds plus
 * one over the functions. */
/* Inlined into its two callers: the whole-map build, with no selection
 * and a known emit, then loses the per-sled selection test. */
static XR_ALWAYS_INLINE int for_each_run(int32_t first_id, int32_t last_id, const uint8_t *selected,
                        unsigned kinds, size_t page,
                        int (*emit)(const struct run *, void *), void *ctx) {
  const struct xr_sled *sleds = cur->map->sleds;
  const struct xr_function *fns = cur->map->functions;
  size_t begin = fns[first_id - 1].first_sled;
  size_t end = fns[last_id - 1].first_sled + fns[last_id - 1].sled_count;
  uintptr_t mask = page - 1;
  int32_t id = first_id; /* cursor: a function at or before sled i's */
  /* The current run, in locals (not a struct whose address emit takes, so
   * they stay in registers): sleds [first, i), pages [start, end_page). */
  size_t first = begin;
  int32_t run_id = first_id;
  uintptr_t start = 0, end_page = 0;
  uintptr_t reach = 0; /* end_page - start + page; 0: no run yet */
  for (size_t i = begin; i < end; i++) {
    if (selected != NULL) {
      while (id < last_id && i >= (size_t)fns[id - 1].first_sled + fns[id - 1].sled_count)
        id++;
      if (!selected[id - 1])
        continue; /* skipped here and by rewrite_run */
    }
    if (kinds != XR_SLEDS_ALL && !(kinds >> sleds[i].kind & 1))
      continue; /* so is a sled of another kind */
    uintptr_t a = sleds[i].address;
    /* Common case, 4 instructions: the sled starts in the run or on the page
     * right after it (unsigned, so a sled below start fails too). */
    if (a - start >= reach) {
      if (reach != 0 && emit(&(struct run){start, end_page, first, i, run_id}, ctx))
        return -1;
      while (id < last_id && i >= (size_t)fns[id - 1].first_sled + fns[id - 1].sled_count)
        id++;
      first = i;
      run_id = id;
      start = end_page = a & ~mask;
      reach = page;
    }
    if (a + XR_ARCH_MAX_SLED_BYTES > end_page) { /* may reach past the run: exact size */
      uintptr_t hi = (a + xr_arch_sled_size(sleds[i].kind) + mask) & ~mask;
      if (hi > end_page)
        end_page = hi;
      reach = end_page - start + page;
    }
  }
  return reach != 0 ? emit(&(struct run){start, end_page, first, end, run_id}, ctx) : 0;
}

static int collect_run(const struct run *r, void *ctx) {
  (void)ctx;
  struct all_runs *a = cur_runs();
  struct run *v = xr_mmap_array_grow(a->v, &a->capacity, a->count, sizeof(*v), 128);
  if (v == NULL)
    return -1;
  a->v = v;
  a->v[a->count++] = *r;
  return 0;
}

/* Builds all_runs for the whole map. Returns 0, or -1 when out of memory
 * (all_runs is then left invalid). */
static int build_all_runs(size_t page) {
  cur_runs()->count = 0;
  cur_runs()->page = 0;
  if (cur->map->sled_count != 0 &&
      for_each_run(1, (int32_t)cur->map->function_count, NULL, XR_SLEDS_ALL, page,
                   collect_run, NULL))
    return -1;
  cur_runs()->page = page;
  return 0;
}

struct rewrite_ctx {
  bool enable;
  const uint8_t *selected;
  unsigned kinds;
  bool only_on;
  size_t failed;
};
static int rewrite_emitted(const struct run *r, void *ctx) {
  struct rewrite_ctx *c = ctx;
  return rewrite_run(r, c->enable, c->selected, c->kinds, c->only_on, &c->failed, false);
}

/* cur_targets for cur's want bits: the argument trampolines' targets where
 * the bits ask for them and cur has them, else cur's own trampolines. */
static void choose_targets(const uint8_t *want) {
  size_t wanted = 0;
  for (size_t i = 0; i < cur->map->function_count; i++)
    wanted += want[i] != 0;
  uintptr_t args[2];
  bool have = xr_args_targets(cur, wanted, args);
  states[cur->id]->no_targets = !have;
  for (unsigned bits = 0; bits < 4; bits++) {
    memcpy(cur_targets[bits], cur->trampolines, sizeof cur_targets[bits]);
    if (have && bits & XR_WANT_ENTRY)
      cur_targets[bits][XR_T_ENTRY] = cur_targets[bits][XR_T_ARG] = args[0];
    if (have && bits & XR_WANT_EXIT)
      cur_targets[bits][XR_T_EXIT] = args[1];
  }
}

/* Rewrites the sleds of the kinds in `kinds` of functions first_id..last_id
 * (valid ids), or only of those among them with selected[id - 1] set (and
 * with only_on, only the enabled ones). */
static XRayPatchingStatus rewrite_functions(int32_t first_id, int32_t last_id,
                                            const uint8_t *selected, unsigned kinds,
                                            bool enable, bool only_on) {
  const struct xr_sled_map *m = cur->map;
  size_t page = page_size();
  if (page == 0)
    return FAILED;
  if (enable && states[cur->id]->want != NULL)
    choose_targets(states[cur->id]->want);
  if (!cur_segments()->loaded) {
    uintptr_t lo = m->min_sled & ~(uintptr_t)(page - 1);
    uintptr_t hi = (m->max_sled + XR_ARCH_MAX_SLED_BYTES + page - 1) & ~(uintptr_t)(page - 1);
    if (!load_protections(lo, hi)) {
      xr_report(XR_ERROR, "cannot read /proc/self/maps: XRay patching failed");
      cur_segments()->count = 0;
      return FAILED;
    }
    cur_segments()->loaded = true;
  }

  bool everything = first_id == 1 && (size_t)last_id == m->function_count && !selected &&
                    kinds == XR_SLEDS_ALL;
  if (everything && cur_runs()->page != page && build_all_runs(page))
    cur_runs()->page = 0; /* out of memory: the slower walk below still works */
  struct rewrite_ctx ctx = {enable, selected, kinds, only_on, 0};
  if (everything && cur_runs()->page == page) { /* cached runs: one pass of writes */
    bool populate = enable && !cur_runs()->populated;
    cur_runs()->populated = cur_runs()->populated || populate;
    for (size_t i = 0; i < cur_runs()->count; i++)
      if (rewrite_run(&cur_runs()->v[i], enable, NULL, XR_SLEDS_ALL, false, &ctx.failed,
                      populate))
        return FAILED;
  } else {
    /* A range: find its runs while rewriting them (one pass). */
    if (for_each_run(first_id, last_id, selected, kinds, page, rewrite_emitted, &ctx))
      return FAILED;
  }
  if (ctx.failed) {
    xr_report(XR_INFO, "%zu sleds could not be %s (trampoline out of reach, or "
                       "a sled at an odd address)", ctx.failed,
              enable ? "patched" : "unpatched");
    return FAILED;
  }
  return SUCCESS;
}

static bool alloc_state(void) {
  if (states[cur->id])
    return true;
  void *m = mmap(NULL, sizeof(struct patch_state), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return false;
  states[cur->id] = m; /* zeroed: nothing loaded, no runs */
  return true;
}

int xr_patch_object_functions(struct xr_object *o, int32_t first_id, int32_t last_id,
                              const uint8_t *selected, unsigned kinds, bool enable) {
  int32_t max = (int32_t)o->map->function_count;
  if (first_id < 1 || last_id > max || first_id > last_id) {
    xr_report(XR_INFO, "invalid function id range %d..%d in object %d (valid: 1..%d)",
              first_id, last_id, o->id, max);
    return FAILED;
  }
  if (enable)
    __atomic_store_n(&ever_enabled, true, __ATOMIC_RELAXED);
  cur = o;
  XRayPatchingStatus status =
      alloc_state() ? rewrite_functions(first_id, last_id, selected, kinds, enable, false)
                    : FAILED;
  cur = NULL;
  return status;
}

/* The new bits replace the old (freed once the sleds are rewritten); the
 * enabled entry, log-args and exit sleds of the functions whose bits
 * changed are retargeted now, a disabled one when it is enabled. */
int xr_patch_object_args(struct xr_object *o, const uint8_t *want, size_t count) {
  size_t n = o->map->function_count;
  if (n == 0)
    return SUCCESS;
  cur = o;
  uint8_t *fresh = mmap(NULL, 2 * n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (!alloc_state() || fresh == MAP_FAILED) {
    cur = NULL;
    xr_report(XR_ERROR, "no memory for the argument capture of object %d", o->id);
    return FAILED;
  }
  struct patch_state *p = states[o->id];
  uint8_t *old = p->want, *changed = fresh + n; /* changed: the functions to retarget */
  int32_t first = 0, last = 0;
  bool any = false;
  for (size_t i = 0; i < n; i++) {
    fresh[i] = i < count ? want[i] & (XR_WANT_ENTRY | XR_WANT_EXIT) : 0;
    any = any || fresh[i];
    changed[i] = fresh[i] != (old ? old[i] : 0) || (fresh[i] && p->no_targets); /* try again */
    last = changed[i] ? (int32_t)i + 1 : last;
    first = first ? first : last;
  }
  p->want = any ? fresh : NULL;
  p->retargeted = p->retargeted || any;
  XRayPatchingStatus status =
      first ? rewrite_functions(first, last, changed, XR_SLEDS_ENTRY | 1u << XR_T_EXIT, true, true)
            : SUCCESS;
  if (old != NULL)
    munmap(old, 2 * p->want_count);
  if (!any)
    munmap(fresh, 2 * n);
  p->want_count = n;
  cur = NULL;
  return status;
}

void xr_patch_state_free(struct xr_object *o) {
  struct patch_state *p = states[o->id];
  if (p == NULL)
    return;
  if (p->segments.v)
    munmap(p->segments.v, p->segments.capacity * sizeof(struct prot_segment));
  if (p->all_runs.v)
    munmap(p->all_runs.v, p->all_runs.capacity * sizeof(struct run));
  if (p->want)
    munmap(p->want, 2 * p->want_count);
  munmap(p, sizeof *p);
  xr_args_targets_free(o->id);
  states[o->id] = NULL;
}

/* Read from the sleds themselves, so whoever patched them counts
 * (XRAY_OPTIONS, the API, control) and patching keeps no book: the caller
 * holds the registry lock, under which sleds are written, and an unloaded
 * object's code is not read. */
size_t xr_patched_functions(const struct xr_object *o) {
  if (!o->loaded || o->map == NULL)
    return 0;
  const struct xr_sled_map *m = o->map;
  size_t patched = 0;
  for (size_t f = 0; f < m->function_count; f++) {
    const struct xr_function *fn = &m->functions[f];
    for (uint32_t i = 0; i < fn->sled_count; i++) {
      if (xr_sled_enabled(&m->sleds[fn->first_sled + i])) {
        patched++;
        break;
      }
    }
  }
  return patched;
}

struct xr_sled_states xr_function_sled_states(const struct xr_object *o, int32_t id) {
  const struct xr_function *fn = &o->map->functions[id - 1];
  struct xr_sled_states k = {0, 0};
  for (uint32_t i = 0; i < fn->sled_count; i++) {
    const struct xr_sled *sled = &o->map->sleds[fn->first_sled + i];
    if (xr_sled_enabled(sled))
      k.patched |= 1u << sled->kind;
    else
      k.unpatched |= 1u << sled->kind;
  }
  return k;
}
