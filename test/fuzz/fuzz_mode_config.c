/* libFuzzer target: each built-in mode's config string, through the public
 * API, as a program would pass it: __xray_log_init_mode(mode, config) (or
 * the _bin variant with an exact size and no NUL), then finalize, process
 * buffers, flush.
 *
 * Input: byte 0: bits 0-1 pick the mode (0 basic, 1 fdr, 2 profiling, 3
 * an unknown name), bit 2 uses __xray_log_init_mode_bin; the rest is the
 * config (grace_period_ms included: it bounds a wait for other threads
 * inside a handler, and the fuzzer has none, so it never sleeps). Checks: every status is a valid enum value; a mode that says INITIALIZED
 * finalizes to FINALIZED and flushes to FLUSHED (a stuck state machine would
 * refuse the next input); the unknown mode is refused. Files go to a private
 * temporary directory, emptied after every input. */
#include "core/options/options.h"
#include "xray/xray_log_interface.h"

#include <assert.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char log_dir[] = "/tmp/xray-fuzz-mode-XXXXXX";

static void empty_log_dir(void) {
  DIR *d = opendir(log_dir);
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    char path[sizeof log_dir + 300];
    snprintf(path, sizeof path, "%s/%s", log_dir, e->d_name);
    unlink(path);
  }
  if (d)
    closedir(d);
}

static void remove_log_dir(void) {
  empty_log_dir();
  rmdir(log_dir);
}

static bool log_dir_made;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  if (log_dir_made)
    return 0;
  log_dir_made = true;
  if (!mkdtemp(log_dir))
    abort();
  atexit(remove_log_dir);
  snprintf(xr_flags.xray_logfile_base, sizeof xr_flags.xray_logfile_base,
           "%s/", log_dir);
  return 0;
}

static size_t bytes_seen;
static void count_buffer(const char *mode, XRayBuffer b) {
  assert(mode != NULL);
  assert(b.Data != NULL);
  /* Touch every byte: ASan checks the buffer is what it claims. */
  const volatile uint8_t *p = b.Data;
  for (size_t i = 0; i < b.Size; i++)
    (void)p[i];
  bytes_seen += b.Size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const modes[] = {"xray-basic", "xray-fdr",
                                      "xray-profiling", "xray-no-such-mode"};
  if (size < 1)
    return 0;
  /* The replay driver does not call Initialize. (Testing the template's last
   * character instead was wrong: mkdtemp's random suffix may end in 'X'.) */
  LLVMFuzzerInitialize(NULL, NULL);
  const char *mode = modes[data[0] & 3];
  const bool bin = data[0] & 4;
  const size_t n = size - 1;
  char *config = malloc(n + 1);
  memcpy(config, data + 1, n);
  config[n] = '\0';

  XRayLogInitStatus st = bin ? __xray_log_init_mode_bin(mode, config, n)
                             : __xray_log_init_mode(mode, config);
  assert(st >= XRAY_LOG_UNINITIALIZED && st <= XRAY_LOG_FINALIZED);
  if ((data[0] & 3) == 3) {
    assert(st == XRAY_LOG_UNINITIALIZED);
    free(config);
    return 0;
  }
  XRayLogInitStatus fin = __xray_log_finalize();
  assert(fin >= XRAY_LOG_UNINITIALIZED && fin <= XRAY_LOG_FINALIZED);
  bytes_seen = 0;
  XRayLogFlushStatus pb = __xray_log_process_buffers(count_buffer);
  assert(pb == XRAY_LOG_NOT_FLUSHING || pb == XRAY_LOG_FLUSHED);
  XRayLogFlushStatus fl = __xray_log_flushLog();
  assert(fl >= XRAY_LOG_NOT_FLUSHING && fl <= XRAY_LOG_FLUSHED);
  if (st == XRAY_LOG_INITIALIZED) {
    assert(fin == XRAY_LOG_FINALIZED);
    assert(fl == XRAY_LOG_FLUSHED);
  }
  empty_log_dir();
  free(config);
  return 0;
}
