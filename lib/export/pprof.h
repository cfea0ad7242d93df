/* A streaming writer of pprof's profile.proto (google/pprof
 * proto/profile.proto), uncompressed: pprof gunzips only input that starts
 * with the gzip magic, so the plain message is accepted as it is.
 *
 * The top-level Profile is a sequence of fields, and repeated fields keep
 * their order however they interleave, so the writer emits each string,
 * mapping, function, location and sample as soon as it is given: memory is
 * one scratch buffer sized for the deepest sample, whatever the profile's
 * size. String indexes are assigned in emission order (index 0 is "").
 *
 * Every profile has two sample types, calls/count and time/nanoseconds, with
 * time the default. Ids are the caller's: non-zero and unique per kind. */
#ifndef XR_EXPORT_PPROF_H
#define XR_EXPORT_PPROF_H

#include "core/base/common.h"

/* Where bytes go; a failing sink records its own error. */
typedef void (*xr_put_fn)(void *ctx, const void *data, size_t n);

struct xr_pprof_info {
  uint64_t time_nanos;     /* start of the profile, ns since the epoch */
  uint64_t duration_nanos; /* length of the profiled run */
  const char *comment;     /* one comment line, or NULL */
};

struct xr_pprof_mapping {
  uint64_t id; /* non-zero */
  uint64_t memory_start;
  uint64_t memory_limit;
  uint64_t file_offset;
  const char *filename; /* or NULL */
  const char *build_id; /* hex digits, or NULL */
};

struct xr_pprof {
  xr_put_fn put;
  void *ctx;
  uint64_t next_string; /* index the next emitted string gets */
  uint8_t *scratch;     /* one message at a time */
  size_t scratch_cap;
  bool too_big; /* a message did not fit the scratch buffer (a bug) */
};

/* Starts a profile whose samples have at most max_frames locations: takes
 * the scratch buffer (mmap) and writes the header fields (string 0, the
 * sample types, default type, times and comment). Returns 0, or -1 when no
 * memory is available (nothing written). */
XR_HIDDEN int xr_pprof_begin(struct xr_pprof *w, xr_put_fn put, void *ctx,
                             size_t max_frames, const struct xr_pprof_info *info);

/* One mapping (an executable or shared object). has_functions is set: the
 * profile carries names, so pprof does not look for the binary. */
XR_HIDDEN void xr_pprof_mapping(struct xr_pprof *w,
                                const struct xr_pprof_mapping *m);

/* One function and its location, both with this id; the location points at
 * address inside mapping_id (0: none). system_name NULL: same as name. */
XR_HIDDEN void xr_pprof_function(struct xr_pprof *w, uint64_t id,
                                 const char *name, const char *system_name,
                                 uint64_t address, uint64_t mapping_id);

/* One sample: the path as location ids, leaf first, and its two values. */
XR_HIDDEN void xr_pprof_sample(struct xr_pprof *w, const uint64_t *location_ids,
                               size_t n, uint64_t calls, uint64_t nanoseconds);

/* Releases the scratch buffer. Returns 0, or -1 if a message was too big to
 * be written (never expected: sizes are checked at begin). */
XR_HIDDEN int xr_pprof_end(struct xr_pprof *w);

#endif
