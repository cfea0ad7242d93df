/* The instrumentation map: every sled and every function, decoded once. */
#ifndef XR_SLED_MAP_H
#define XR_SLED_MAP_H

#include "core/base/common.h"

struct xr_sled {
  uintptr_t address;  /* first byte of the sled */
  uintptr_t function; /* start of the function it belongs to */
  uint8_t kind;       /* enum XRayEntryType */
  uint8_t always_instrument;
  uint8_t version;
};

struct xr_function {
  uintptr_t address;   /* function start */
  uint32_t first_sled; /* index into sleds[] */
  uint32_t sled_count;
};

struct xr_sled_map {
  struct xr_sled *sleds;         /* section order */
  size_t sled_count;
  struct xr_function *functions; /* functions[id - 1], ids 1..function_count */
  size_t function_count;
  uintptr_t min_sled, max_sled;  /* lowest and highest sled address */
  int fn_idx_format;             /* enum xr_fn_idx_format: what the cross-check saw */
};

/* xray_fn_idx, as found by xr_sled_map_decode (never needed for decoding). */
enum xr_fn_idx_format {
  XR_FN_IDX_ABSENT = 0,
  XR_FN_IDX_ABSOLUTE = 1,      /* {begin, end} pointers (clang 14 -flto) */
  XR_FN_IDX_RELATIVE = 2,      /* {begin - &begin, sled count} (clang 19) */
  XR_FN_IDX_INCONSISTENT = -1  /* present but disagrees with the map: ignored */
};

/* Decodes the raw bytes of xray_instr_map [begin, end) (32-byte entries, any
 * alignment; versions 0/1 absolute, 2 PC-relative to each field) and the
 * optional xray_fn_idx [idx_begin, idx_end) (may be NULL; absolute or
 * relative-with-count; used only as a cross-check). Function ids are assigned
 * exactly as `llvm-xray extract` does. Memory comes from mmap. Returns 0, or
 * -1 when the bytes are not a valid map (out is then zeroed). */
XR_HIDDEN int xr_sled_map_decode(const void *begin, const void *end,
                                 const void *idx_begin, const void *idx_end,
                                 struct xr_sled_map *out);
XR_HIDDEN void xr_sled_map_free(struct xr_sled_map *map);

/* The process's own map (filled by xr_sled_map_load_self at init; stays
 * empty, zero functions, when the executable has none). */
XR_HIDDEN extern struct xr_sled_map xr_self_map;
/* Loads the executable's map: 0 when it has one, XR_SELF_MAP_NONE when it
 * has none (an uninstrumented host: not an error, not reported here), -1
 * when its map is not valid (reported at verbosity 1). */
enum { XR_SELF_MAP_NONE = 1 };
XR_HIDDEN int xr_sled_map_load_self(void);

#endif
