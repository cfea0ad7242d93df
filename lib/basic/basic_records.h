/* Basic mode's records (compiler-rt's xray_records.h), four little-endian
 * u64 each: their layout, their types and flags, and the encoders the lean
 * handlers inline. Types, macros and inline functions only (no .c): the
 * writer, the export, the handlers and the glue all use them. */
#ifndef XR_BASIC_RECORDS_H
#define XR_BASIC_RECORDS_H

#include "core/base/common.h"

struct xr_basic_record {
  uint64_t w[4];
};
_Static_assert(sizeof(struct xr_basic_record) == 32, "records are 32 bytes");

#define XR_BASIC_ENTRY 0u
#define XR_BASIC_EXIT 1u
#define XR_BASIC_TAIL 2u
#define XR_BASIC_ENTRY_ARGS 3u

/* Byte 24 of a normal record (the low byte of w[3]), padding to llvm-xray
 * and always 0 from compiler-rt: bit 0 marks an exit the runtime wrote
 * while unwinding (the call's own exit was skipped by longjmp or an
 * exception; docs/formats.md). */
#define XR_BASIC_FLAGS_OFFSET 24
#define XR_BASIC_FLAG_UNWOUND 1u

/* tid in the low half, pid in the high half: the order both record kinds
 * store them in. */
static XR_ALWAYS_INLINE uint64_t xr_basic_ids(int32_t tid, int32_t pid) {
  return (uint64_t)(uint32_t)tid | ((uint64_t)(uint32_t)pid << 32);
}

/* Normal record: u16 RecordType 0, u8 CPU, u8 Type, i32 FuncId, u64 TSC,
 * u32 TId, u32 PId, 8 zero bytes (byte 24, the first of them, is our
 * flags byte: XR_BASIC_FLAG_*, set only on some exits). */
static XR_ALWAYS_INLINE void xr_basic_put_normal(struct xr_basic_record *r,
                                                 int32_t fid, unsigned type,
                                                 uint8_t cpu, uint64_t tsc,
                                                 uint64_t ids) {
  r->w[0] = ((uint64_t)cpu << 16) | ((uint64_t)(type & 0xff) << 24) |
            ((uint64_t)(uint32_t)fid << 32);
  r->w[1] = tsc;
  r->w[2] = ids;
  r->w[3] = 0;
}

/* Argument payload: u16 RecordType 1, 2 zero bytes, i32 FuncId, u32 TId,
 * u32 PId, u64 argument, 8 zero bytes. */
static XR_ALWAYS_INLINE void xr_basic_put_arg(struct xr_basic_record *r,
                                              int32_t fid, uint64_t ids,
                                              uint64_t arg) {
  r->w[0] = 1u | ((uint64_t)(uint32_t)fid << 32);
  r->w[1] = ids;
  r->w[2] = arg;
  r->w[3] = 0;
}

#endif
