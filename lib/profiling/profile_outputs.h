/* The files profiling mode writes at flush: the compiler-rt blocks and the
 * readable views (folded stacks, report, pprof), one row per
 * profiling_output word in the table of profile_outputs.c, which the
 * options (profiling_options.c) look words up in. Cold path. */
#ifndef XR_PROFILING_PROFILE_OUTPUTS_H
#define XR_PROFILING_PROFILE_OUTPUTS_H

#include "core/base/common.h"
#include "profiling/call_trie.h"

/* The profiling_output words, one bit each, in the table's row order. */
#define XR_PROF_OUT_XRAY 1u
#define XR_PROF_OUT_FOLDED 2u
#define XR_PROF_OUT_REPORT 4u
#define XR_PROF_OUT_PPROF 8u

/* What a finalized session hands to the writers. */
struct xr_prof_run {
  unsigned outputs;   /* XR_PROF_OUT_* */
  bool folded_calls;  /* folded_value=calls */
  bool fold_recursion; /* fold_recursion: the merged trie folds recursion */
  int32_t report_top;  /* report_top: rows of the report */
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
