/* Basic mode's argument sink (basic_args.c): how the values argument
 * capture takes (core/modes/args_sink.h) reach the basic log. */
#ifndef XR_BASIC_ARGS_H
#define XR_BASIC_ARGS_H

#include "core/base/common.h"

/* Installs the sink (init, once the mode's state is ready). */
XR_HIDDEN void xr_basic_args_start(void);
/* Removes it when it is installed (before the mode stops its handlers). */
XR_HIDDEN void xr_basic_args_stop(void);

#endif
