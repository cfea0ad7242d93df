/* Which open calls of a thread are gone, by the stack pointer their sleds
 * had (core/dispatch/handlers.h, "The sled's stack pointer"). A call
 * opened at frame_sp is still running while the thread's events come from
 * below it (lower addresses: nested calls). An event at or above it means
 * the program left the call without its exit: a C++ exception, longjmp or
 * a noreturn call skipped it (at an exit, the call's own exit comes at
 * frame_sp itself, so only strictly above counts). The modes close such
 * calls as "unwound" (docs/modes.md).
 *
 * Only within a window: an event far above an open call runs on another
 * stack (a signal handler on an alternate stack, a fiber), and the calls
 * below it are still running. 64 MiB is more than any thread's stack
 * between a throw and its catch, and less than the distance between the
 * stacks a process maps for its threads and signal handlers, in practice;
 * docs/modes.md says what happens otherwise. */
#ifndef XR_CALL_FRAMES_H
#define XR_CALL_FRAMES_H

#include "core/base/common.h"

#define XR_FRAME_WINDOW ((uintptr_t)64 << 20)

/* Whether the call opened at frame_sp is gone at an event at sp: an entry,
 * or with at_exit an exit or tail exit. */
static XR_ALWAYS_INLINE bool xr_frame_gone(uintptr_t frame_sp, uintptr_t sp, bool at_exit) {
  return (at_exit ? frame_sp < sp : frame_sp <= sp) && sp - frame_sp < XR_FRAME_WINDOW;
}

#endif
