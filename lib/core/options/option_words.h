/* Option values that are lists of words from a table (trace_output,
 * profiling_output): the table's rows are the words, so the parser, the
 * option's help text and its messages all read the one table, and a new
 * word is one new row. */
#ifndef XR_OPTION_WORDS_H
#define XR_OPTION_WORDS_H

#include "core/base/common.h"

/* A list of words joined by ',', '+', '|', ';' or ' ' ("xray+chrome"):
 * bit i set for words[i]. 0 when a word is unknown or none is given. */
XR_HIDDEN unsigned xr_options_word_set(const char *s, const char *const *words,
                                       size_t count);

/* The words as text, "a (note a), b and c (note c)", in buf (cap bytes,
 * always terminated, cut when too small); notes may be NULL or hold NULLs
 * (no note). For help texts and messages. */
XR_HIDDEN void xr_options_word_list(char *buf, size_t cap,
                                    const char *const *words,
                                    const char *const *notes, size_t count);

#endif
