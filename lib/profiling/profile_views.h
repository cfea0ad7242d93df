/* What every readable view of a call trie takes (profile_folded.h,
 * profile_report.h, profile_pprof.h): the callbacks that name a function
 * and convert its times. Types only. */
#ifndef XR_PROFILING_PROFILE_VIEWS_H
#define XR_PROFILING_PROFILE_VIEWS_H

#include "core/base/common.h"

/* Name of a function id; never NULL (unknown ids get a made-up name). */
typedef const char *(*xr_name_fn)(void *ctx, int32_t fid);
/* Converts ticks to nanoseconds. */
typedef uint64_t (*xr_to_ns_fn)(uint64_t ticks);

#endif
