/* A known call tree, run by main or by N threads, profiled through the API
 * (main itself runs before __xray_patch, so paths start at worker):
 *   ./calltree THREADS CONFIG
 * Valid C and C++, so the same source also builds against compiler-rt.
 * Prints the in-memory profile (from __xray_log_process_buffers) parsed by
 * its own reader, one record per line "id;id;id count", then flushes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xray/xray_interface.h"
#include "xray/xray_log_interface.h"

#define NOINLINE __attribute__((noinline))

static volatile int sink;
NOINLINE int lex(int x) { sink += x; return x * 3 + 1; }
NOINLINE int parse(int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += lex(i);
  return s;
}
NOINLINE int eval(int n) { return parse(n) + lex(n); }
NOINLINE void tree(void) {
  sink += eval(3);
  sink += parse(2);
}
NOINLINE void *worker(void *arg) {
  (void)arg;
  tree();
  tree();
  return NULL;
}

/* In-memory reader: header, then blocks; records leaf->root ids, 0, count,
 * time. Prints paths root->leaf. */
static int buffers, bad;
static void reader(const char *mode, XRayBuffer b) {
  const unsigned char *p = (const unsigned char *)b.Data;
  if (strcmp(mode, "xray-profiling") != 0)
    bad = 1;
  if (buffers++ == 0) {
    unsigned long long magic;
    memcpy(&magic, p, 8);
    if (b.Size != 32 || magic != 0x7872617970726f66ull)
      bad = 1;
    return;
  }
  unsigned size, number;
  memcpy(&size, p, 4);
  memcpy(&number, p + 4, 4);
  if (size != b.Size || number != (unsigned)(buffers - 2))
    bad = 1;
  printf("block %u\n", number);
  size_t off = 16;
  while (off < size) {
    int ids[64], n = 0, id;
    do {
      memcpy(&id, p + off, 4);
      off += 4;
      if (id != 0 && n < 64)
        ids[n++] = id;
    } while (id != 0);
    unsigned long long count;
    memcpy(&count, p + off, 8);
    off += 16;
    for (int i = n - 1; i >= 0; i--)
      printf("%d%s", ids[i], i ? ";" : "");
    printf(" %llu\n", count);
  }
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 0;
  const char *config = argc > 2 ? argv[2] : "";
  /* selecting first also makes compiler-rt's runtime accept the init */
  __xray_log_select_mode("xray-profiling");
  if (__xray_log_init_mode("xray-profiling", config) != XRAY_LOG_INITIALIZED)
    return 2;
  if (__xray_patch() != SUCCESS)
    return 3;
  if (threads == 0) {
    worker(NULL);
  } else {
    pthread_t t[16];
    for (int i = 0; i < threads && i < 16; i++)
      pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < threads && i < 16; i++)
      pthread_join(t[i], NULL);
  }
  if (__xray_log_finalize() != XRAY_LOG_FINALIZED)
    return 4;
  if (__xray_log_process_buffers(reader) != XRAY_LOG_FLUSHED || bad)
    return 5;
  fflush(stdout);
  if (__xray_log_flushLog() != XRAY_LOG_FLUSHED)
    return 6;
  /* after flush nothing is handed out and the mode can start again */
  buffers = 0;
  __xray_log_process_buffers(reader);
  if (buffers != 0)
    return 7;
  return 0;
}
