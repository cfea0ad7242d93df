/* Parsers of what /proc says of a process, for proc_target.c. The
 * process's owner shapes much of it (its name, its environment; inside a
 * user namespace its uid_map): bounded, strict, no allocation, fuzzed
 * (test/fuzz/fuzz_proc_parse.c). */
#ifndef XRAYCTL_PROC_PARSE_H
#define XRAYCTL_PROC_PARSE_H

#include <stdbool.h>
#include <stddef.h>

/* The n-th number (0-based; -1: the last) after "<key>:" on its line of a
 * NUL-terminated /proc/PID/status text, into *out (0..INT_MAX). False when
 * the line is missing, a field is not a number, or there is no n-th. */
bool ctl_status_field(const char *status, const char *key, int n, long long *out);

/* `uid` (as seen from the parent namespace) inside the user namespace whose
 * NUL-terminated uid_map this is ("<inside> <outside> <count>" lines); -1
 * when it is not mapped there or the map does not parse. */
long ctl_uid_inside(const char *map, long uid);

/* The value of `name` in the first n bytes of a /proc/PID/environ image
 * (NUL-separated NAME=VALUE entries), copied NUL-terminated into out (cap
 * bytes); NULL when absent, cut at the end of the image, or longer than
 * cap - 1. */
const char *ctl_environ_value(const char *env, size_t n, const char *name,
                              char *out, size_t cap);

#endif
