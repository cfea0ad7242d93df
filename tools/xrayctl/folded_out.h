/* Folded stacks from a trace or a profile file: the format of the
 * profiling mode's `.folded` view (docs/formats.md "Folded stacks"): one
 * line per call path, all threads merged, names from the root to the leaf
 * joined by ';', a space, and the time spent in the path's last function
 * itself (callees excluded) in nanoseconds; lines depth first, children in
 * the order they were first called; recursion folded (a call to a function
 * already on the path is merged into that earlier frame).
 *
 * A trace's calls are matched as the runtime's Chrome writer matches them:
 * an exit ends the innermost open call of its function and, first, the
 * calls above it (their exits were skipped); an exit without an open call
 * is left out; calls still open at the end end at their thread's last
 * event. Memory: one node per distinct folded path, one stack per thread. */
#ifndef XRAYCTL_FOLDED_OUT_H
#define XRAYCTL_FOLDED_OUT_H

#include "export/trace_event.h"
#include "profile_read.h"

/* The stream writer (open, event, close: the shape of the runtime's trace
 * formats); close writes the file. */
extern const struct xr_trace_format ctl_folded_format;

/* A profile's node, in file order, instead of events (w from open). */
void ctl_folded_node(void *w, const struct ctl_profile_node *n);

#endif
