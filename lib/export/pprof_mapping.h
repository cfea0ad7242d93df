/* Mappings of the running program for pprof profiles. Cold path. */
#ifndef XR_EXPORT_PPROF_MAPPING_H
#define XR_EXPORT_PPROF_MAPPING_H

#include "export/pprof.h"

/* Mapping 1: the executable's code segment, its path (/proc/self/exe) and
 * GNU build-id in hex, written into the caller's buffers (left NULL in *m
 * when unknown). */
XR_HIDDEN void xr_pprof_self_mapping(struct xr_pprof_mapping *m, char *path,
                                     size_t path_cap, char *build_id,
                                     size_t build_id_cap);

#endif
