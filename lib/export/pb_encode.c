/* Protocol-buffer wire encoding. See pb_encode.h. */
#include "export/pb_encode.h"

#include <string.h>

size_t xr_pb_varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

size_t xr_pb_varint_encode(uint8_t *dst, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    dst[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  dst[n++] = (uint8_t)v;
  return n;
}

void xr_pb_init(struct xr_pb_buf *b, void *data, size_t cap) {
  b->data = data;
  b->len = 0;
  b->cap = cap;
  b->overflow = false;
}

static bool room(struct xr_pb_buf *b, size_t n) {
  if (b->overflow || b->cap - b->len < n) {
    b->overflow = true;
    return false;
  }
  return true;
}

static void put_varint(struct xr_pb_buf *b, uint64_t v) {
  b->len += xr_pb_varint_encode(b->data + b->len, v);
}

static uint64_t key(unsigned field, unsigned wire) {
  return ((uint64_t)field << 3) | wire;
}

/* A key and one varint after it (the value, or a length), or nothing when
 * they do not fit. */
static void put_key_varint(struct xr_pb_buf *b, unsigned field, unsigned wire,
                           uint64_t v) {
  uint64_t k = key(field, wire);
  if (!room(b, xr_pb_varint_size(k) + xr_pb_varint_size(v)))
    return;
  put_varint(b, k);
  put_varint(b, v);
}

void xr_pb_uint(struct xr_pb_buf *b, unsigned field, uint64_t v) {
  put_key_varint(b, field, XR_PB_WIRE_VARINT, v);
}

void xr_pb_len_prefix(struct xr_pb_buf *b, unsigned field, size_t n) {
  put_key_varint(b, field, XR_PB_WIRE_LEN, n);
}

void xr_pb_bytes(struct xr_pb_buf *b, unsigned field, const void *data,
                 size_t n) {
  uint64_t k = key(field, XR_PB_WIRE_LEN);
  if (!room(b, xr_pb_varint_size(k) + xr_pb_varint_size(n) + n))
    return;
  put_varint(b, k);
  put_varint(b, n);
  if (n != 0)
    memcpy(b->data + b->len, data, n);
  b->len += n;
}

void xr_pb_packed(struct xr_pb_buf *b, unsigned field, const uint64_t *v,
                  size_t n) {
  size_t body = 0;
  for (size_t i = 0; i < n; i++)
    body += xr_pb_varint_size(v[i]);
  uint64_t k = key(field, XR_PB_WIRE_LEN);
  if (!room(b, xr_pb_varint_size(k) + xr_pb_varint_size(body) + body))
    return;
  put_varint(b, k);
  put_varint(b, body);
  for (size_t i = 0; i < n; i++)
    put_varint(b, v[i]);
}
