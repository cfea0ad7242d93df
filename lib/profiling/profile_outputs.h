/* The files profiling mode writes at flush: the compiler-rt blocks and the
 * readable views (folded stacks, report, pprof). Cold path. */
#ifndef XR_PROFILING_PROFILE_OUTPUTS_H
#define XR_PROFILING_PROFILE_OUTPUTS_H

#include "profiling/call_trie.h"
#include "profiling/profiling_options.h"

/* What a finalized session hands to the writers. */
struct xr_prof_run {
  const struct xr_profiling_flags *flags;
  unsigned outputs;   /* XR_PROF_OUT_* */
  bool folded_calls;  /* folded_value=calls */
  struct xr_trie *const *tries; /* one per collected thread */
  size_t trie_count;
  uint64_t not_collected; /* threads busy at finalize */
  uint64_t lost_events;   /* events of threads that got no trie */
  const void *blocks;     /* compiler-rt blocks, or NULL */
  size_t blocks_size;
  uint64_t start_ns, end_ns; /* CLOCK_REALTIME at init and at finalize */
};

/* profiling_output's words ("xray+folded", "report,pprof") -> XR_PROF_OUT_*
 * bits, from the table of views; 0 when a word is unknown or none given. */
XR_HIDDEN unsigned xr_prof_outputs_parse(const char *s);
/* The words and the file each writes, for help and messages (a struct
 * xr_option's words function). */
XR_HIDDEN void xr_prof_outputs_help(char *buf, size_t cap);

/* Writes every file the run asks for, named after the log file; failures
 * are reported, never fatal; losses are reported at the end. */
XR_HIDDEN void xr_prof_write_outputs(const struct xr_prof_run *run);

#endif
