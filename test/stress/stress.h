/* Helpers shared by the stress programs (reliability area). Every helper is
 * excluded from instrumentation so event counts cover only the functions a
 * test declares as its workload. */
#ifndef XRAY_STRESS_H
#define XRAY_STRESS_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <glob.h>

#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

#define NOINST __attribute__((xray_never_instrument, noinline, unused))
#define WORK __attribute__((xray_always_instrument, noinline))

/* Keeps a call whose result is unused: clang drops calls to functions it
 * proves pure, noinline or not (and their events with them). */
static volatile long stress_sink __attribute__((unused));
#define USE(call) (stress_sink = (long)(call))

/* Fails the test with a message (the test program, never the runtime, may
 * exit). */
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond))                                                               \
      stress_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                     \
  } while (0)

NOINST __attribute__((noreturn, format(printf, 4, 5))) static void
stress_fail(const char *file, int line, const char *cond, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "FAIL %s:%d: %s: %s\n", file, line, cond, msg);
  fflush(stderr);
  _exit(1);
}

NOINST static uint64_t stress_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The XRay id of a function, found through __xray_function_address; -1 when
 * the function has no sleds. */
NOINST static int32_t stress_id_of(void *fn) {
  size_t max = __xray_max_function_id();
  for (size_t id = 1; id <= max; id++)
    if (__xray_function_address((int32_t)id) == (uintptr_t)fn)
      return (int32_t)id;
  return -1;
}

/* Modes: "handler" (a user handler, installed by the test) or the name of a
 * built-in mode, initialised with config. */
NOINST static bool stress_is_mode(const char *mode) {
  return strncmp(mode, "xray-", 5) == 0;
}

NOINST static void stress_start_mode(const char *mode, const char *config) {
  if (!stress_is_mode(mode))
    return;
  XRayLogInitStatus st = __xray_log_init_mode(mode, config);
  CHECK(st == XRAY_LOG_INITIALIZED, "init %s(%s) returned %d", mode, config,
        (int)st);
}

NOINST static void stress_stop_mode(const char *mode) {
  if (!stress_is_mode(mode))
    return;
  XRayLogInitStatus f = __xray_log_finalize();
  CHECK(f == XRAY_LOG_FINALIZED, "finalize %s returned %d", mode, (int)f);
  XRayLogFlushStatus fl = __xray_log_flushLog();
  CHECK(fl == XRAY_LOG_FLUSHED, "flush %s returned %d", mode, (int)fl);
}

/* A per-mode config with no duration threshold (so every call is kept) and
 * files under the working directory. */
NOINST static const char *stress_default_config(const char *mode) {
  if (strcmp(mode, "xray-basic") == 0)
    return "func_duration_threshold_us=0";
  if (strcmp(mode, "xray-fdr") == 0)
    return "func_duration_threshold_us=0 grace_period_ms=0 buffer_max=400"; /* 6.4 MB: exact counts need no overwrite */
  if (strcmp(mode, "xray-profiling") == 0)
    return "grace_period_ms=0";
  return "";
}

/* Peak resident set (VmHWM) in kB from /proc/self/status. */
NOINST static long stress_vm_hwm_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
      break;
  if (f)
    fclose(f);
  return kb;
}

/* Sum of the call counts of records whose leaf is `id` in a profiling file
 * (compiler-rt's xray_profile_collector.cpp:
 * header 32 B; blocks {u32 size, u32 number, u64 tid}
 * then records {i32 ids leaf->root, i32 0, u64 count, u64 time}). */
NOINST static long stress_profile_calls(const char *path, int32_t id, int *blocks) {
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL, "open %s", path);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc((size_t)size);
  CHECK(fread(b, 1, (size_t)size, f) == (size_t)size, "read %s", path);
  fclose(f);
  long calls = 0, off = 32;
  *blocks = 0;
  while (off < size) {
    uint32_t bsize;
    memcpy(&bsize, b + off, 4);
    CHECK(bsize >= 16 && off + bsize <= size, "block size %u at %ld", bsize, off);
    long p = off + 16, end = off + bsize;
    while (p < end) {
      int32_t leaf, v;
      memcpy(&leaf, b + p, 4);
      do {
        CHECK(p + 4 <= end, "record runs past its block");
        memcpy(&v, b + p, 4);
        p += 4;
      } while (v != 0);
      CHECK(p + 16 <= end, "record counters past the block");
      uint64_t count;
      memcpy(&count, b + p, 8);
      p += 16;
      if (leaf == id)
        calls += (long)count;
    }
    off = end;
    (*blocks)++;
  }
  free(b);
  return calls;
}

/* The profiling file (not a .folded/.txt sibling) whose name starts with
 * prefix, or NULL. The caller frees the result. */
NOINST static char *stress_find_profile(const char *prefix) {
  glob_t g;
  char pattern[256];
  snprintf(pattern, sizeof pattern, "%s*", prefix);
  char *found = NULL;
  if (glob(pattern, 0, NULL, &g) != 0)
    return NULL;
  for (size_t i = 0; i < g.gl_pathc; i++)
    if (strchr(g.gl_pathv[i] + strlen(prefix), '.') == strrchr(g.gl_pathv[i], '.'))
      found = strdup(g.gl_pathv[i]);
  globfree(&g);
  return found;
}

#endif
