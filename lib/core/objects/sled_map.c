/* Decodes xray_instr_map (and checks xray_fn_idx) into the function table.
 *
 * Entry layout (compiler-rt's XRaySledEntry in
 * xray_interface_internal.h; LLVM's InstrumentationMap.cpp): 32 bytes, no alignment guaranteed (the
 * section is 1-aligned), so every field is read with memcpy.
 *   +0 u64 sled address   v0/v1 absolute; v2 relative to the field itself
 *   +8 u64 function       v0/v1 absolute; v2 relative to the field itself
 *   +16 u8 kind, +17 u8 always_instrument, +18 u8 version, 13 bytes padding
 * Ids: walk the entries in order; a new id starts whenever the decoded
 * function differs from the previous entry's (what `llvm-xray extract` does). */
#include "core/objects/sled_map.h"

#include "core/base/report.h"

#include <string.h>
#include <sys/mman.h>

#define ENTRY_SIZE 32
#define FN_IDX_ENTRY_SIZE 16
#define MAX_KIND 5    /* TYPED_EVENT */
#define MAX_VERSION 2

struct xr_sled_map xr_self_map;

static uint64_t load_u64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* Decodes one entry; returns -1 when it cannot be a sled entry. */
static int decode_entry(const unsigned char *e, struct xr_sled *out) {
  uint64_t address = load_u64(e), function = load_u64(e + 8);
  out->kind = e[16];
  out->always_instrument = e[17];
  out->version = e[18];
  if (out->kind > MAX_KIND || out->version > MAX_VERSION)
    return -1;
  if (out->version >= 2) { /* relative to each field's own address */
    address += (uint64_t)(uintptr_t)e;
    function += (uint64_t)(uintptr_t)(e + 8);
  }
  if (address == 0 || function == 0)
    return -1;
  out->address = (uintptr_t)address;
  out->function = (uintptr_t)function;
  return 0;
}

static size_t round_to_page(size_t n) { return (n + 4095) & ~(size_t)4095; }

void xr_sled_map_free(struct xr_sled_map *map) {
  if (map->sleds)
    munmap(map->sleds, round_to_page(map->sled_count * sizeof(struct xr_sled) +
                                     map->function_count * sizeof(struct xr_function)));
  memset(map, 0, sizeof *map);
}

/* Does fn_idx element k describe function k? `first` is the element's first
 * sled entry, `count` its number of entries. */
static bool fn_idx_matches(const unsigned char *map_begin, size_t entries,
                           const struct xr_function *f, uintptr_t first,
                           uint64_t count) {
  uintptr_t base = (uintptr_t)map_begin;
  if (first < base || (first - base) % ENTRY_SIZE)
    return false;
  uint64_t index = (first - base) / ENTRY_SIZE;
  return index < entries && count <= entries - index &&
         index == f->first_sled && count == f->sled_count;
}

static int check_fn_idx(const unsigned char *map_begin, size_t entries,
                        const struct xr_sled_map *map, const unsigned char *idx,
                        const unsigned char *idx_end) {
  if (!idx || !idx_end || idx_end <= idx)
    return XR_FN_IDX_ABSENT;
  size_t bytes = (size_t)(idx_end - idx);
  if (bytes % FN_IDX_ENTRY_SIZE || bytes / FN_IDX_ENTRY_SIZE != map->function_count)
    return XR_FN_IDX_INCONSISTENT;
  bool absolute = true, relative = true;
  for (size_t k = 0; k < map->function_count; k++) {
    const unsigned char *e = idx + k * FN_IDX_ENTRY_SIZE;
    uint64_t w0 = load_u64(e), w1 = load_u64(e + 8);
    if (absolute)
      absolute = w1 > w0 && (w1 - w0) % ENTRY_SIZE == 0 &&
                 fn_idx_matches(map_begin, entries, &map->functions[k],
                                (uintptr_t)w0, (w1 - w0) / ENTRY_SIZE);
    if (relative)
      relative = fn_idx_matches(map_begin, entries, &map->functions[k],
                                (uintptr_t)e + (uintptr_t)w0, w1);
    if (!absolute && !relative)
      return XR_FN_IDX_INCONSISTENT;
  }
  return absolute ? XR_FN_IDX_ABSOLUTE : XR_FN_IDX_RELATIVE;
}

int xr_sled_map_decode(const void *begin, const void *end, const void *idx_begin,
                       const void *idx_end, struct xr_sled_map *out) {
  memset(out, 0, sizeof *out);
  const unsigned char *b = begin, *e = end;
  if (!b || !e || e <= b || (size_t)(e - b) % ENTRY_SIZE)
    return -1;
  size_t entries = (size_t)(e - b) / ENTRY_SIZE;
  if (entries > UINT32_MAX)
    return -1;

  /* Pass 1: validate and count functions. */
  size_t functions = 0;
  uintptr_t previous = 0;
  for (size_t i = 0; i < entries; i++) {
    struct xr_sled s;
    if (decode_entry(b + i * ENTRY_SIZE, &s))
      return -1;
    if (i == 0 || s.function != previous)
      functions++;
    previous = s.function;
  }

  size_t bytes = entries * sizeof(struct xr_sled) + functions * sizeof(struct xr_function);
  void *mem = mmap(NULL, round_to_page(bytes), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    return -1;
  out->sleds = mem;
  out->functions = (struct xr_function *)(out->sleds + entries);
  out->sled_count = entries;
  out->function_count = functions;

  /* Pass 2: fill. */
  size_t f = 0;
  for (size_t i = 0; i < entries; i++) {
    struct xr_sled *s = &out->sleds[i];
    decode_entry(b + i * ENTRY_SIZE, s);
    if (i == 0 || s->function != out->sleds[i - 1].function) {
      out->functions[f].address = s->function;
      out->functions[f].first_sled = (uint32_t)i;
      f++;
    }
    out->functions[f - 1].sled_count++;
    if (i == 0 || s->address < out->min_sled)
      out->min_sled = s->address;
    if (s->address > out->max_sled)
      out->max_sled = s->address;
  }
  out->fn_idx_format = check_fn_idx(b, entries, out, idx_begin, idx_end);
  if (out->fn_idx_format == XR_FN_IDX_INCONSISTENT)
    xr_report(XR_DEBUG, "xray_fn_idx disagrees with xray_instr_map; ignoring it");
  return 0;
}

/* Synthesized by the linker when the sections exist; weak so that a program
 * without instrumentation still links (they are then NULL). Hidden, so they
 * are resolved in the executable at link time: a weak reference left to the
 * loader (a dynamic symbol of the executable) would bind to the first
 * shared object that exports these names and take its map for ours. */
#define XR_OWN_SECTION __attribute__((weak, visibility("hidden")))
extern const unsigned char __start_xray_instr_map[] XR_OWN_SECTION;
extern const unsigned char __stop_xray_instr_map[] XR_OWN_SECTION;
extern const unsigned char __start_xray_fn_idx[] XR_OWN_SECTION;
extern const unsigned char __stop_xray_fn_idx[] XR_OWN_SECTION;

int xr_sled_map_load_self(void) {
  if (xr_self_map.sleds)
    return 0;
  const unsigned char *b = __start_xray_instr_map, *e = __stop_xray_instr_map;
  if (!b || !e || b == e)
    return XR_SELF_MAP_NONE; /* a host for instrumented shared objects, or nothing */
  if (xr_sled_map_decode(b, e, __start_xray_fn_idx, __stop_xray_fn_idx,
                         &xr_self_map)) {
    xr_report(XR_INFO, "the instrumentation map (xray_instr_map, %zu bytes) is "
                       "not valid: XRay stays uninitialised",
              (size_t)(e - b));
    return -1;
  }
  xr_report(XR_DEBUG, "instrumentation map: %zu sleds, %zu functions, xray_fn_idx %d",
            xr_self_map.sled_count, xr_self_map.function_count,
            xr_self_map.fn_idx_format);
  return 0;
}
