/* libFuzzer target: the sled-map decoder (lib/core/objects/sled_map.c) fed arbitrary
 * bytes as the xray_instr_map and xray_fn_idx sections.
 *
 * Input: byte 0: bits 0-2 misalign the map copy by 0..7 bytes (the real
 * section has alignment 1), bit 3: pass the tail as xray_fn_idx; bytes 1-2
 * (little-endian) the length of the map part; the rest: map bytes, then idx
 * bytes. The decoder must never read outside the two ranges (ASan sees the
 * exact-size heap copies) and never dereference decoded addresses.
 * Checks on success: every function's sled range lies inside sleds[], the
 * ranges cover sleds[] in order without gaps, consecutive functions differ,
 * and min/max_sled bound every sled. */
#include "core/objects/sled_map.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_map(const struct xr_sled_map *m) {
  uint32_t next = 0;
  for (size_t f = 0; f < m->function_count; f++) {
    const struct xr_function *fn = &m->functions[f];
    assert(fn->sled_count > 0);
    assert(fn->first_sled == next);
    assert((size_t)fn->first_sled + fn->sled_count <= m->sled_count);
    next = fn->first_sled + fn->sled_count;
    for (uint32_t s = fn->first_sled; s < next; s++)
      assert(m->sleds[s].function == m->sleds[fn->first_sled].function);
    if (f > 0)
      assert(m->sleds[fn->first_sled].function != m->sleds[fn->first_sled - 1].function);
  }
  assert(next == m->sled_count);
  for (size_t s = 0; s < m->sled_count; s++) {
    assert(m->sleds[s].address >= m->min_sled);
    assert(m->sleds[s].address <= m->max_sled);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3)
    return 0;
  const unsigned flags = data[0];
  size_t map_len = (size_t)data[1] | (size_t)data[2] << 8;
  data += 3;
  size -= 3;
  if (map_len > size)
    map_len = size;
  const size_t idx_len = size - map_len;
  const size_t misalign = flags & 7;

  /* Exact-size copies: any read past a section end is an ASan report. */
  uint8_t *map_copy = malloc(misalign + map_len + 1);
  memcpy(map_copy + misalign, data, map_len);
  uint8_t *idx_copy = malloc(idx_len + 1);
  memcpy(idx_copy, data + map_len, idx_len);

  const uint8_t *begin = map_copy + misalign, *end = begin + map_len;
  const void *ib = NULL, *ie = NULL;
  if (flags & 8) {
    ib = idx_copy;
    ie = idx_copy + idx_len;
  }
  struct xr_sled_map m;
  memset(&m, 0x5A, sizeof m);
  int rc = xr_sled_map_decode(begin, end, ib, ie, &m);
  assert(rc == 0 || rc == -1);
  if (rc == 0) {
    check_map(&m);
  } else {
    /* Documented: out is zeroed on failure. */
    assert(m.sleds == NULL && m.sled_count == 0);
    assert(m.functions == NULL && m.function_count == 0);
  }
  xr_sled_map_free(&m);
  free(map_copy);
  free(idx_copy);
  return 0;
}
