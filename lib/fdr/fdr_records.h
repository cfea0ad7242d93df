/* Encoders of every FDR record kind (LLVM's docs/XRayFDRFormat.rst; compiler-rt's
 * xray_fdr_log_records.h).
 *
 * Pure functions: each writes one record at `p` and returns the position
 * after it. They are inline so the lean hot path (compiled with
 * -mgeneral-regs-only) gets them without a call; every store is an unaligned
 * 8-byte general-register store, so no vector register and no libc call is
 * ever involved. A metadata record is 16 bytes: byte 0 = (kind << 1) | 1,
 * then up to 15 payload bytes, unused bytes zero. A function record is 8
 * bytes: u32 (id << 4 | kind << 1), u32 TSC delta. */
#ifndef XR_FDR_RECORDS_H
#define XR_FDR_RECORDS_H

#include "core/base/common.h"

enum xr_fdr_meta_kind {
  XR_FDR_NEW_BUFFER = 0,
  XR_FDR_END_OF_BUFFER = 1, /* version 1 only */
  XR_FDR_NEW_CPU = 2,
  XR_FDR_TSC_WRAP = 3,
  XR_FDR_WALLTIME = 4,
  XR_FDR_CUSTOM_EVENT = 5,
  XR_FDR_CALL_ARGUMENT = 6,
  XR_FDR_BUFFER_EXTENTS = 7, /* version >= 2 */
  XR_FDR_TYPED_EVENT = 8,    /* version 5 */
  XR_FDR_PID = 9             /* version >= 3 */
};

enum xr_fdr_function_kind {
  XR_FDR_FN_ENTER = 0,
  XR_FDR_FN_EXIT = 1,
  XR_FDR_FN_TAIL_EXIT = 2,
  XR_FDR_FN_ENTER_ARG = 3
};

enum {
  XR_FDR_META_SIZE = 16,
  XR_FDR_FN_SIZE = 8,
  XR_FDR_FILE_HEADER_SIZE = 32,
  /* NewBuffer + Walltime (+ Pid in v5) + NewCPUId written at buffer start. */
  XR_FDR_PREAMBLE_V5 = 4 * XR_FDR_META_SIZE,
  XR_FDR_PREAMBLE_V1 = 3 * XR_FDR_META_SIZE
};

typedef uint64_t xr_fdr_u64u __attribute__((may_alias, aligned(1)));
typedef uint32_t xr_fdr_u32u __attribute__((may_alias, aligned(1)));

static XR_ALWAYS_INLINE void xr_fdr_put64(uint8_t *p, uint64_t v) {
  *(xr_fdr_u64u *)p = v;
}
static XR_ALWAYS_INLINE uint64_t xr_fdr_get64(const uint8_t *p) {
  return *(const xr_fdr_u64u *)p;
}
static XR_ALWAYS_INLINE uint32_t xr_fdr_get32(const uint8_t *p) {
  return *(const xr_fdr_u32u *)p;
}

/* One metadata record: `payload` holds bytes 1..15 (little-endian, bit 0 of
 * the integer is the first byte of the payload). */
static XR_ALWAYS_INLINE uint8_t *xr_fdr_meta(uint8_t *p,
                                             enum xr_fdr_meta_kind kind,
                                             unsigned __int128 payload) {
  xr_fdr_put64(p, ((uint64_t)kind << 1) | 1u | ((uint64_t)payload << 8));
  xr_fdr_put64(p + 8, (uint64_t)(payload >> 56));
  return p + XR_FDR_META_SIZE;
}

static XR_ALWAYS_INLINE uint8_t *xr_fdr_new_buffer(uint8_t *p, int32_t tid) {
  return xr_fdr_meta(p, XR_FDR_NEW_BUFFER, (uint32_t)tid);
}
static XR_ALWAYS_INLINE uint8_t *xr_fdr_end_of_buffer(uint8_t *p) {
  return xr_fdr_meta(p, XR_FDR_END_OF_BUFFER, 0);
}
/* u16 cpu at byte 1, u64 absolute TSC at byte 3. */
static XR_ALWAYS_INLINE uint8_t *xr_fdr_new_cpu(uint8_t *p, uint16_t cpu,
                                                uint64_t tsc) {
  return xr_fdr_meta(p, XR_FDR_NEW_CPU,
                     (unsigned __int128)cpu | ((unsigned __int128)tsc << 16));
}
static XR_ALWAYS_INLINE uint8_t *xr_fdr_tsc_wrap(uint8_t *p, uint64_t tsc) {
  return xr_fdr_meta(p, XR_FDR_TSC_WRAP, tsc);
}
/* i64 seconds at byte 1, i32 microseconds at byte 9. */
static XR_ALWAYS_INLINE uint8_t *xr_fdr_walltime(uint8_t *p, int64_t sec,
                                                 int32_t usec) {
  return xr_fdr_meta(p, XR_FDR_WALLTIME,
                     (unsigned __int128)(uint64_t)sec |
                         ((unsigned __int128)(uint32_t)usec << 64));
}
static XR_ALWAYS_INLINE uint8_t *xr_fdr_pid(uint8_t *p, int32_t pid) {
  return xr_fdr_meta(p, XR_FDR_PID, (uint32_t)pid);
}
static XR_ALWAYS_INLINE uint8_t *xr_fdr_call_argument(uint8_t *p,
                                                      uint64_t arg) {
  return xr_fdr_meta(p, XR_FDR_CALL_ARGUMENT, arg);
}
static XR_ALWAYS_INLINE uint8_t *xr_fdr_buffer_extents(uint8_t *p,
                                                       uint64_t bytes) {
  return xr_fdr_meta(p, XR_FDR_BUFFER_EXTENTS, bytes);
}
/* Version 5: i32 size, i32 TSC delta; `size` payload bytes follow. */
static XR_ALWAYS_INLINE uint8_t *xr_fdr_custom_event(uint8_t *p, int32_t size,
                                                     int32_t delta) {
  return xr_fdr_meta(p, XR_FDR_CUSTOM_EVENT,
                     (unsigned __int128)(uint32_t)size |
                         ((unsigned __int128)(uint32_t)delta << 32));
}
/* Version 1: i32 size, u64 absolute TSC; `size` payload bytes follow. */
static XR_ALWAYS_INLINE uint8_t *xr_fdr_custom_event_v1(uint8_t *p,
                                                        int32_t size,
                                                        uint64_t tsc) {
  return xr_fdr_meta(p, XR_FDR_CUSTOM_EVENT,
                     (unsigned __int128)(uint32_t)size |
                         ((unsigned __int128)tsc << 32));
}
/* Version 5: i32 size, i32 TSC delta, u16 type; `size` bytes follow. */
static XR_ALWAYS_INLINE uint8_t *xr_fdr_typed_event(uint8_t *p, int32_t size,
                                                    int32_t delta,
                                                    uint16_t type) {
  return xr_fdr_meta(p, XR_FDR_TYPED_EVENT,
                     (unsigned __int128)(uint32_t)size |
                         ((unsigned __int128)(uint32_t)delta << 32) |
                         ((unsigned __int128)type << 64));
}

/* The function record keeps 28 bits of id: FDR's handlers take dense ids
 * (core/objects/objects.h: id base + function, all below 2^28), never packed ones,
 * so no record names the wrong object. */
static XR_ALWAYS_INLINE uint32_t xr_fdr_function_word(int32_t id,
                                                      unsigned kind) {
  return ((uint32_t)id << 4) | (kind << 1);
}
static XR_ALWAYS_INLINE uint8_t *xr_fdr_function(uint8_t *p, int32_t id,
                                                 unsigned kind,
                                                 uint32_t delta) {
  xr_fdr_put64(p, xr_fdr_function_word(id, kind) | ((uint64_t)delta << 32));
  return p + XR_FDR_FN_SIZE;
}

/* Copies n bytes with general-register loads and stores (no libc memcpy:
 * it may use vector registers the lean trampolines do not save). */
static XR_ALWAYS_INLINE uint8_t *xr_fdr_copy(uint8_t *dst, const void *src,
                                             size_t n) {
  const uint8_t *s = (const uint8_t *)src;
  for (; n >= 8; n -= 8, s += 8, dst += 8)
    xr_fdr_put64(dst, xr_fdr_get64(s));
  for (; n > 0; n--)
    *dst++ = *s++;
  return dst;
}

/* Out of line (fdr_records.c), used by the cold paths and the unit tests. */

/* The 32-byte file header: version, type 1 (FDR), TSC bits, frequency, the
 * configured per-buffer size in bytes 16-23 and the runtime's stamp in
 * 24-31 (core/output/output.h). */
XR_HIDDEN void xr_fdr_file_header(uint8_t out[XR_FDR_FILE_HEADER_SIZE],
                                  uint16_t version, bool constant_tsc,
                                  bool nonstop_tsc, uint64_t frequency,
                                  uint64_t buffer_size);

/* The records a fresh buffer starts with: NewBuffer, Walltime, Pid (v5 only),
 * NewCPUId. Returns the position after them (XR_FDR_PREAMBLE_V5 or _V1 bytes
 * further). */
XR_HIDDEN uint8_t *xr_fdr_preamble(uint8_t *p, int version, int32_t tid,
                                   int32_t pid, int64_t wall_sec,
                                   int32_t wall_usec, uint16_t cpu,
                                   uint64_t tsc);

/* The custom event put before the exits of calls that unwinding (longjmp,
 * exceptions) skipped, by the handlers when the next event finds them
 * gone and by the log writer when an exit below them arrives:
 * "xray-unwound N", the next N exits of the thread. The text into out
 * (XR_FDR_UNWOUND_MAX bytes, no terminator); returns its length. Inline
 * and without libc: the lean handlers write it. */
#define XR_FDR_UNWOUND_MAX 40
static XR_ALWAYS_INLINE int32_t xr_fdr_unwound_text(char *out, uint64_t n) {
  static const char prefix[] = "xray-unwound ";
  char *p = (char *)xr_fdr_copy((uint8_t *)out, prefix, sizeof prefix - 1);
  char digits[20];
  int k = 0;
  do
    digits[k++] = (char)('0' + n % 10);
  while ((n /= 10) != 0);
  while (k > 0)
    *p++ = digits[--k];
  return (int32_t)(p - out);
}
/* N of such a payload, or 0 when it is not one. */
XR_HIDDEN uint64_t xr_fdr_unwound_count(const uint8_t *data, size_t size);

#endif
