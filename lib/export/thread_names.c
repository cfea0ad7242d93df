/* Remembered names of exited threads. See thread_names.h. */
#include "export/thread_names.h"
#include "core/thread/lock.h"
#include "core/thread/thread.h"

#include <string.h>
#include <sys/prctl.h>

enum { SLOTS = 4096 };

struct entry {
  int32_t pid, tid;
  char name[16];
};

static struct entry table[SLOTS];
static uint32_t next_slot;
static xr_lock lock;

void xr_thread_names_after_fork(void) { xr_lock_after_fork(&lock); }

void xr_thread_names_remember(void) {
  char name[16] = {0};
  if (prctl(PR_GET_NAME, name, 0, 0, 0) != 0)
    return;
  xr_lock_take(&lock);
  struct entry *e = &table[next_slot++ % SLOTS];
  e->pid = xr_pid();
  e->tid = xr_tid();
  memcpy(e->name, name, sizeof name);
  e->name[15] = '\0';
  xr_lock_release(&lock);
}

const char *xr_thread_names_find(int32_t pid, int32_t tid, char buf[16]) {
  const char *found = NULL;
  xr_lock_take(&lock);
  uint32_t n = next_slot < SLOTS ? next_slot : SLOTS;
  for (uint32_t i = 0; i < n; i++) {
    if (table[i].tid == tid && table[i].pid == pid) {
      memcpy(buf, table[i].name, 16);
      found = buf; /* later entries (a reused tid) win */
    }
  }
  xr_lock_release(&lock);
  return found;
}
