/* Basic and FDR logs (docs/formats.md: ours and compiler-rt's, every
 * version llvm-xray reads) decoded into the runtime's event stream
 * (lib/export/trace_event.h): each thread's events in time order, threads
 * possibly interleaved, exactly what the runtime's own writers are fed.
 *
 * Memory: the input's buffer, plus for FDR an index of its blocks (32
 * bytes each: one per thread in our logs, one per buffer in compiler-rt's);
 * nothing grows with the number of events. Basic logs are read in one pass;
 * FDR logs in two: the block headers first (version 1: its records, which
 * have no block lengths), then each thread's blocks in time order, as
 * llvm-xray orders them (compiler-rt writes them in queue order). */
#ifndef XRAYCTL_TRACE_READ_H
#define XRAYCTL_TRACE_READ_H

#include "export/trace_event.h"
#include "trace_input.h"

enum ctl_trace_kind { CTL_TRACE_BASIC, CTL_TRACE_FDR, CTL_TRACE_PROFILE };

struct ctl_trace_info {
  enum ctl_trace_kind kind;
  int version;           /* of the basic or FDR log; the profile's is fixed */
  uint64_t frequency_hz; /* ticks per second (a profile has none: 0) */
  uint64_t pid;          /* the profile's header names its process */
  uint64_t start_tsc;    /* the first record's timestamp (a log's earliest in
                            the runtime's logs): time 0 of converted files */
};

/* Reads the header: which format, which version. 0, or -1 (in's error set:
 * too short, no known magic, an unknown version). */
int ctl_trace_identify(struct ctl_in *in, struct ctl_trace_info *info);

/* One decoded event of thread (pid, tid). */
typedef void (*ctl_event_fn)(void *ctx, int32_t pid, int32_t tid,
                             const struct xr_tev *e);

/* Decodes a basic or FDR log into fn. The runtime's own marks are turned
 * back into what they say: FDR's "xray-sync" opening a thread's block is
 * dropped, and "xray-unwound N" is dropped and flags the thread's next N
 * exits unwound, as the basic log's flag byte does. 0, or -1 at the first
 * malformed byte (in's error set; events before it were delivered). */
int ctl_trace_events(struct ctl_in *in, const struct ctl_trace_info *info,
                     ctl_event_fn fn, void *ctx);

/* A run of n plain function records of an FDR log (entries without an
 * argument, exits and tail exits, none unwound) of thread (pid, tid),
 * handed over as the file holds them: 8 bytes each, a little-endian u32
 * word (function id << 4 | kind << 1, kind 0 entry, 1 exit, 2 tail exit)
 * and a u32 delta of ticks from the record before, the first's from tsc.
 * Returns the last record's timestamp (tsc plus every delta). What fn
 * would get one by one, at once: the report decodes and accounts them in
 * one loop, its hot path. */
typedef uint64_t (*ctl_calls_fn)(void *ctx, int32_t pid, int32_t tid,
                                 const uint8_t *recs, size_t n, uint64_t tsc);

/* The same on up to `parts` threads: an FDR log's threads are shared out
 * (each of the trace's threads whole, in time order, to one part; part k's
 * events go to fn with ctxs[k], from its own thread, so fn and ctxs[k]
 * must not share state between parts); a basic log, whose threads come
 * interleaved, is read in one pass to ctxs[0]. Part k > 0 reads through a
 * buffer of its own. The error said is the first in the file. calls, when
 * not NULL, takes the runs of plain function records of an FDR log; fn
 * the rest, in the same order. */
#define CTL_TRACE_PARTS_MAX 8
int ctl_trace_events_split(struct ctl_in *in, const struct ctl_trace_info *info,
                           unsigned parts, ctl_event_fn fn, ctl_calls_fn calls,
                           void *const *ctxs);

#endif
