/* compiler-rt's profile format (compiler-rt's
 * xray_profile_collector.cpp writes it, LLVM's lib/XRay/Profile.cpp reads it), built in memory:
 *   file header, 32 bytes: u64 magic "xrayprof" as 0x7872617970726f66,
 *                          u64 version 0x20180424, u64 timestamp, u64 pid
 *   block header, 16 bytes: u32 block size (header included), u32 block
 *                           number (0, 1, ... across the file), u64 tid
 *   records, one per trie node in pre-order: i32 function ids leaf -> root,
 *                           i32 0, u64 call count, u64 total time (ticks)
 * One block per thread trie; a trie whose records exceed max_block_bytes
 * continues in further blocks with the same tid. */
#ifndef XR_PROFILING_PROFILE_BLOCKS_H
#define XR_PROFILING_PROFILE_BLOCKS_H

#include "profiling/call_trie.h"

#define XR_PROFILE_MAGIC 0x7872617970726f66ull
#define XR_PROFILE_VERSION 0x20180424ull
#define XR_PROFILE_HEADER_BYTES 32u
#define XR_PROFILE_BLOCK_HEADER_BYTES 16u
#define XR_PROFILE_DEFAULT_MAX_BLOCK (1u << 30)

struct xr_profile_header_info {
  uint64_t timestamp_ns; /* CLOCK_REALTIME at finalize */
  uint64_t pid;
};

/* Exact byte size of the profile of these tries. */
XR_HIDDEN size_t xr_profile_size(struct xr_trie *const *tries, size_t n,
                                 size_t max_block_bytes);

/* Writes the profile into buf (size from xr_profile_size). Returns the number
 * of bytes written (== size) . */
XR_HIDDEN size_t xr_profile_write(void *buf, size_t size,
                                  struct xr_trie *const *tries, size_t n,
                                  size_t max_block_bytes,
                                  const struct xr_profile_header_info *info);

#endif
