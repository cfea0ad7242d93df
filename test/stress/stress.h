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
    return "func_duration_threshold_us=0 grace_period_ms=0";
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

#endif
