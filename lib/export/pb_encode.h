/* Protocol-buffer wire encoding, the small part the writers need: varints,
 * field keys, length-delimited fields and packed varint lists. A message is
 * assembled in a caller-owned buffer (struct xr_pb_buf), then emitted as a
 * length-delimited field of its parent; the top-level message is a stream of
 * fields, so writers can emit it piece by piece in bounded memory.
 * Pure functions: no allocation, no I/O. */
#ifndef XR_EXPORT_PB_ENCODE_H
#define XR_EXPORT_PB_ENCODE_H

#include "core/base/common.h"

#define XR_PB_WIRE_VARINT 0u
#define XR_PB_WIRE_I64 1u /* fixed64, double: 8 little-endian bytes */
#define XR_PB_WIRE_LEN 2u
#define XR_PB_VARINT_MAX 10u /* bytes of the longest 64-bit varint */

/* A message being built. A put that does not fit sets `overflow` and leaves
 * the buffer as it was; the caller sizes buffers so that this never happens
 * and checks the flag once. */
struct xr_pb_buf {
  uint8_t *data;
  size_t len;
  size_t cap;
  bool overflow;
};

/* Bytes of v as a varint (1..10). */
XR_HIDDEN size_t xr_pb_varint_size(uint64_t v);
/* Writes v as a varint to dst (room for XR_PB_VARINT_MAX); returns its size. */
XR_HIDDEN size_t xr_pb_varint_encode(uint8_t *dst, uint64_t v);

XR_HIDDEN void xr_pb_init(struct xr_pb_buf *b, void *data, size_t cap);
/* Field `field` as a varint (int64/uint64/bool/enum). Writes it even when v
 * is 0, so callers decide which defaults to leave out. */
XR_HIDDEN void xr_pb_uint(struct xr_pb_buf *b, unsigned field, uint64_t v);
/* Field `field` as length-delimited bytes (string, bytes, sub-message). */
XR_HIDDEN void xr_pb_bytes(struct xr_pb_buf *b, unsigned field,
                           const void *data, size_t n);
/* Field `field` as a packed list of varints (repeated uint64/int64). */
XR_HIDDEN void xr_pb_packed(struct xr_pb_buf *b, unsigned field,
                            const uint64_t *v, size_t n);
/* Key and length of a length-delimited field whose n bytes the caller
 * writes next (to stream long strings without copying them). */
XR_HIDDEN void xr_pb_len_prefix(struct xr_pb_buf *b, unsigned field, size_t n);

#endif
