/* Where the sleds of a function with argument capture go. The
 * executable's sleds call the argument trampolines (arch/arch.h) directly,
 * as they call the usual ones. A shared object's sleds reach only
 * XR_ARCH_CALL_REACH bytes from its code (a rel32 call, a `bl`), and the
 * executable is usually farther: so each such object gets a page of its
 * own within that reach (xr_maps_map_near), holding two jump stubs (entry, exit) that jump on
 * to the executable's trampolines, written while the page is RW, then made
 * RX. An object with no such page keeps the usual trampolines (said once). */
#include "core/patch/args_targets.h"

#include "arch/arch.h"
#include "core/base/proc_maps.h"
#include "core/base/report.h"

#include <sys/mman.h>
#include <unistd.h>

#define EXIT_STUB 64 /* the exit stub's offset in the page */
#define LOWEST_PAGE ((uintptr_t)1 << 20) /* above any mmap_min_addr */

static struct {
  void *page;
  bool said;
} stubs[XR_MAX_OBJECTS];

static void choose_paths(void) {
  xr_vector_state_init();
  unsigned path = xr_arch_full_path();
  __atomic_store_n(&xr_args_dispatch[XR_T_ENTRY], xr_args_paths[XR_T_ENTRY][path],
                   __ATOMIC_RELEASE);
  __atomic_store_n(&xr_args_dispatch[XR_T_EXIT], xr_args_paths[XR_T_EXIT][path],
                   __ATOMIC_RELEASE);
}

/* A page of stubs that every sled of o reaches (two pages of margin for
 * the sled's own length); NULL when none can be had. */
static void *stub_page(const struct xr_object *o, size_t page) {
  uintptr_t reach = XR_ARCH_CALL_REACH - 2 * page;
  uintptr_t lo = o->map->max_sled > reach + LOWEST_PAGE ? o->map->max_sled - reach : LOWEST_PAGE;
  uintptr_t hi = o->map->min_sled + reach > o->map->min_sled ? o->map->min_sled + reach
                                                              : UINTPTR_MAX - page;
  lo = (lo + page - 1) & ~(uintptr_t)(page - 1);
  hi &= ~(uintptr_t)(page - 1);
  void *p = xr_maps_map_near(lo, hi, o->map->min_sled, page);
  if (p == NULL)
    return NULL;
  xr_arch_jump_stub(p, (uintptr_t)&xr_args_entry_trampoline);
  xr_arch_jump_stub((char *)p + EXIT_STUB, (uintptr_t)&xr_args_exit_trampoline);
  if (mprotect(p, page, PROT_READ | PROT_EXEC) == 0)
    return p;
  munmap(p, page);
  return NULL;
}

bool xr_args_targets(const struct xr_object *o, size_t wanted, uintptr_t out[2]) {
  choose_paths(); /* before any sled can reach them, each time (a test clears CPU bits) */
  if (o->id == 0) {
    out[0] = (uintptr_t)&xr_args_entry_trampoline;
    out[1] = (uintptr_t)&xr_args_exit_trampoline;
    return true;
  }
  if (stubs[o->id].page == NULL)
    stubs[o->id].page = stub_page(o, (size_t)sysconf(_SC_PAGESIZE));
  if (stubs[o->id].page == NULL) {
    if (!stubs[o->id].said)
      xr_report(XR_INFO, "object %d ('%s'): no free page within %lu MiB of its code for "
                "the argument trampolines' stubs: its %zu functions with argument capture "
                "keep the usual trampolines (their values are not captured)", o->id, o->path,
                (unsigned long)(XR_ARCH_CALL_REACH >> 20), wanted);
    stubs[o->id].said = true;
    return false;
  }
  out[0] = (uintptr_t)stubs[o->id].page;
  out[1] = (uintptr_t)stubs[o->id].page + EXIT_STUB;
  return true;
}

void xr_args_targets_free(int32_t id) {
  if (stubs[id].page != NULL)
    munmap(stubs[id].page, (size_t)sysconf(_SC_PAGESIZE));
  stubs[id].page = NULL;
  stubs[id].said = false;
}
