/* FDR's argument sink (fdr_args.c): set by fdr_mode.c while FDR records. */
#ifndef XR_FDR_ARGS_H
#define XR_FDR_ARGS_H

#include "core/base/common.h"
#include "core/modes/args_sink.h"

/* Writes a call's captured values into the thread's FDR buffer with its
 * entry or exit (docs/formats.md, "Argument values in FDR logs"). */
XR_HIDDEN extern const struct xr_args_sink xr_fdr_args_sink;

#endif
