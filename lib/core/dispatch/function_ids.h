/* Function ids as handlers see them. The executable is object 0, each
 * shared object 1..255 (core/objects/objects.h hands the ids out); a packed
 * id is (object << 24) | function, so the executable's ids are its
 * compiler-given ones. */
#ifndef XR_FUNCTION_IDS_H
#define XR_FUNCTION_IDS_H

#include "core/base/common.h"

#define XR_MAX_OBJECTS 256 /* object ids 0..255 */
#define XR_OBJECT_SHIFT 24
#define XR_FUNCTION_MASK 0x00FFFFFFu

static inline int32_t xr_pack_id(int32_t fn, int32_t obj) {
  return (int32_t)(((uint32_t)obj << XR_OBJECT_SHIFT) | ((uint32_t)fn & XR_FUNCTION_MASK));
}
static inline int32_t xr_id_object(int32_t packed) {
  return (int32_t)((uint32_t)packed >> XR_OBJECT_SHIFT);
}
static inline int32_t xr_id_function(int32_t packed) {
  return (int32_t)((uint32_t)packed & XR_FUNCTION_MASK);
}

/* Dense ids: every object's functions laid end to end, for a mode whose
 * records hold fewer than 32 bits of id (FDR: 28). An object's id base is
 * given once, when its id is first handed out (the executable's is 0, so its
 * dense ids are its packed ids); dense id = id base + function. A file
 * loaded again gets its object id, and so its base, back; bases are never
 * reused, so a dense id names one function for the whole process. Objects
 * whose functions do not fit below XR_DENSE_ID_LIMIT get XR_NO_ID_BASE. */
#define XR_DENSE_ID_LIMIT (1u << 28)
#define XR_NO_ID_BASE 0xFFFFFFFFu

#endif
