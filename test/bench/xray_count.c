/* Counts what an XRay log file holds, so the benchmark can prove that each
 * runtime recorded every event it was timed on.
 *
 * Usage: xray_count FILE
 * Reads the three formats by their header: basic ("naive", version 1-3),
 * FDR (version 5, BufferExtents-framed) and the profiling format. Prints
 *   basic/FDR:  E enter N / E exit N / E tail N / E args N
 *   FDR also:   E custom N / E typed N (custom and typed event records)
 *   profiling:  E paths N / E calls N   (records, and the sum of call counts)
 * Exits 1 if the file is malformed (a record crosses its buffer or the file).
 * SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *data;
static size_t size;

static uint64_t rd(size_t off, int bytes) {
  uint64_t v = 0;
  memcpy(&v, data + off, (size_t)bytes);
  return v;
}

static int bad(const char *why, size_t off) {
  fprintf(stderr, "xray_count: %s at offset %zu\n", why, off);
  return 1;
}

static long kinds[4]; /* enter, exit, tail, enter-with-arg */
static long custom_events, typed_events;

static void print_kinds(void) {
  printf("E enter %ld\nE exit %ld\nE tail %ld\nE args %ld\n",
         kinds[0] + kinds[3], kinds[1], kinds[2], kinds[3]);
}

/* Basic: 32-byte header, then 32-byte records; type 0 = function record. */
static int count_basic(void) {
  if (size % 32)
    return bad("size not a multiple of 32", size);
  for (size_t off = 32; off < size; off += 32) {
    unsigned rtype = (unsigned)rd(off, 2);
    if (rtype == 0) {
      unsigned kind = data[off + 3];
      if (kind > 3)
        return bad("unknown function record kind", off);
      kinds[kind]++;
    } else if (rtype != 1) {
      return bad("unknown record type", off);
    }
  }
  print_kinds();
  return 0;
}

/* FDR v3+: after the header, BufferExtents(size) + exactly size bytes of
 * records, repeated. Metadata records are 16 bytes (custom and typed events
 * carry their payload after); function records are 8 bytes. */
static int count_fdr(void) {
  size_t off = 32;
  while (off < size) {
    if (off + 16 > size || data[off] != 0x0F)
      return bad("expected BufferExtents", off);
    size_t end = off + 16 + (size_t)rd(off + 1, 8);
    if (end > size)
      return bad("buffer past end of file", off);
    off += 16;
    while (off < end) {
      unsigned char b = data[off];
      size_t len;
      if (b & 1) {
        unsigned kind = b >> 1;
        len = 16;
        if (kind == 5 || kind == 8)
          len += (size_t)(int32_t)rd(off + 1, 4);
        custom_events += kind == 5;
        typed_events += kind == 8;
      } else {
        if (off + 8 > end)
          return bad("function record crosses buffer", off);
        kinds[(rd(off, 4) >> 1) & 3]++;
        len = 8;
      }
      if (off + len > end)
        return bad("record crosses buffer", off);
      off += len;
    }
  }
  print_kinds();
  printf("E custom %ld\nE typed %ld\n", custom_events, typed_events);
  return 0;
}

/* Profiling: 32-byte header; blocks of {u32 size, u32 number, u64 tid} then
 * records {i32 ids..., i32 0, u64 count, u64 time}. */
static int count_profile(void) {
  long paths = 0, calls = 0;
  size_t off = 32;
  while (off < size) {
    if (off + 16 > size)
      return bad("truncated block header", off);
    size_t end = off + (size_t)rd(off, 4);
    if (end > size || end < off + 16)
      return bad("bad block size", off);
    off += 16;
    while (off < end) {
      while (off + 4 <= end && rd(off, 4) != 0)
        off += 4;
      if (off + 20 > end)
        return bad("record crosses block", off);
      calls += (long)rd(off + 4, 8);
      paths++;
      off += 20;
    }
  }
  printf("E paths %ld\nE calls %ld\n", paths, calls);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: xray_count FILE\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 2;
  }
  fseek(f, 0, SEEK_END);
  size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  data = malloc(size ? size : 1);
  if (!data || fread(data, 1, size, f) != size) {
    fprintf(stderr, "xray_count: cannot read %s\n", argv[1]);
    return 2;
  }
  fclose(f);
  if (size < 32)
    return bad("file shorter than a header", 0);
  if (rd(0, 8) == 0x7872617970726f66ULL)
    return count_profile();
  unsigned version = (unsigned)rd(0, 2), type = (unsigned)rd(2, 2);
  if (type == 0 && version >= 1 && version <= 3)
    return count_basic();
  if (type == 1 && version >= 3 && version <= 5)
    return count_fdr();
  return bad("unknown header", 0);
}
