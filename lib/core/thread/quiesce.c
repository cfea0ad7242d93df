/* The quiesce protocol's controller side (see quiesce.h for the protocol
 * and its ordering argument). */
#include "core/thread/quiesce.h"
#include "arch/arch.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int membarrier_cmd; /* 0: none works here */

void xr_quiesce_setup(void) {
  static int done;
  if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
    return;
  long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  int cmd = 0;
  /* The expedited command must be registered before its first use. */
  if (cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
      syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
    cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
  else if (cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL)) /* slower, as sure */
    cmd = MEMBARRIER_CMD_GLOBAL;
  __atomic_store_n(&membarrier_cmd, cmd, __ATOMIC_RELEASE);
}

void xr_quiesce_fence(void) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  int cmd = __atomic_load_n(&membarrier_cmd, __ATOMIC_ACQUIRE);
  if (cmd != 0 && syscall(SYS_membarrier, cmd, 0, 0) == 0)
    return;
  struct timespec ts = {0, XR_QUIESCE_PAUSE_NS};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

uint32_t xr_quiesce_bound_ms(int32_t grace_period_ms) {
  if (grace_period_ms < XR_QUIESCE_BOUND_MIN_MS)
    return XR_QUIESCE_BOUND_MIN_MS;
  if (grace_period_ms > XR_QUIESCE_BOUND_MAX_MS)
    return XR_QUIESCE_BOUND_MAX_MS;
  return (uint32_t)grace_period_ms;
}

static uint64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t xr_quiesce_deadline(uint64_t timeout_ns) {
  return monotonic_ns() + timeout_ns;
}

bool xr_quiesce_wait_step(unsigned *steps, uint64_t deadline_ns) {
  if ((*steps)++ < 64) {
    xr_arch_pause();
    return true;
  }
  if (monotonic_ns() > deadline_ns)
    return false;
  sched_yield();
  return true;
}
