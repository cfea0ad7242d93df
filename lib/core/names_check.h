/* The "pattern matches nothing" messages of xray_patch / xray_skip
 * (docs/names.md): a pattern is named when no function of any object
 * matched it, first right before main (the executable and the linked
 * shared objects) and, when objects registered after that, at exit. */
#ifndef XR_NAMES_CHECK_H
#define XR_NAMES_CHECK_H

#include "common.h"

enum { XR_OPTION_PATCH = 0, XR_OPTION_SKIP = 1 };

/* One object's selection was built: hits[k] is the number of its functions
 * pattern k of option `which` matched (n patterns). Thread-safe. */
XR_HIDDEN void xr_names_check_hits(int which, const size_t *hits, size_t n);

/* What the options were matched against so far. */
struct xr_options_scope {
  size_t shared_objects; /* instrumented shared objects ever registered */
  size_t functions;      /* their functions and the executable's */
  uint32_t registrations; /* successful registrations so far (reloads too) */
  bool incomplete;        /* an object's names could not be read (no
                             memory): its matches are unknown, so no
                             pattern is said to match nothing */
};

/* Builds the xray_patch / xray_skip selection of every registered object
 * that has none yet (so each pattern's bit is final for these objects) and
 * fills *out (objects.c; takes the registry lock). */
XR_HIDDEN void xr_objects_match_options(struct xr_options_scope *out);

#endif
