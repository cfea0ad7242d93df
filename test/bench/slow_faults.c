/* Costly page faults, simulated for the benchmark (run.sh --slow-faults US;
 * never linked into the runtime). LD_PRELOADed into a benchmark program,
 * it registers every large anonymous read-write mapping the program makes
 * through libc's mmap (our runtime's FDR buffers; compiler-rt maps with raw
 * system calls and is not affected) with userfaultfd, and serves each first
 * touch of a page after SLOW_FAULT_US microseconds (default 20): what a
 * first touch costs on VMs whose faults exit to the hypervisor. The thread
 * that touched the page waits that long while a handler thread spins (a
 * CPU is held, as the faulting vCPU is on such a VM); up to HANDLERS
 * faults are served at once, as on as many vCPUs. Mapped without MAP_POPULATE, at least MIN_BYTES, not a stack.
 * What it cannot show: huge pages (the kernel fills a registered range 4 KiB
 * at a time) and the file system's own pages.
 * Needs userfaultfd for this user (root, or vm.unprivileged_userfaultfd=1);
 * without it, it says so on stderr and changes nothing.
 * SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MIN_BYTES ((size_t)1 << 20)
#define HANDLERS 2

static int uffd = -1;
static long delay_ns = 20000;
static char zero_page[4096] __attribute__((aligned(4096)));
static unsigned long served; /* atomic */

static void *serve(void *arg) {
  (void)arg;
  for (;;) {
    struct uffd_msg msg;
    ssize_t n = read(uffd, &msg, sizeof msg);
    if (n != sizeof msg) {
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      return NULL;
    }
    if (msg.event != UFFD_EVENT_PAGEFAULT)
      continue;
    /* Spun, not slept: a sleep of 20 us takes 50 or more, and on a VM the
     * faulting vCPU is held too, as this handler's CPU is. */
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
      clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) <
           delay_ns);
    struct uffdio_copy copy = {
        .dst = msg.arg.pagefault.address & ~(uint64_t)4095,
        .src = (uintptr_t)zero_page,
        .len = 4096,
        .mode = 0};
    /* EEXIST: served already by another handler (two touches of one page). */
    if (ioctl(uffd, UFFDIO_COPY, &copy) != 0 && errno == EEXIST) {
      struct uffdio_range r = {copy.dst, 4096};
      ioctl(uffd, UFFDIO_WAKE, &r);
    }
    __atomic_fetch_add(&served, 1, __ATOMIC_RELAXED);
  }
}

static void report(void) {
  if (getenv("SLOW_FAULT_REPORT"))
    fprintf(stderr, "slow_faults: %lu first touches served after %ld us\n",
            __atomic_load_n(&served, __ATOMIC_RELAXED), delay_ns / 1000);
}

__attribute__((constructor)) static void start(void) {
  const char *us = getenv("SLOW_FAULT_US");
  if (us && *us)
    delay_ns = atol(us) * 1000;
  int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "slow_faults: no userfaultfd (%s): faults are not slowed\n",
            strerror(errno));
    return;
  }
  struct uffdio_api api = {.api = UFFD_API, .features = 0};
  if (ioctl(fd, UFFDIO_API, &api) != 0) {
    fprintf(stderr, "slow_faults: UFFDIO_API: %s\n", strerror(errno));
    close(fd);
    return;
  }
  uffd = fd;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  for (int i = 0; i < HANDLERS; i++) {
    pthread_t t;
    pthread_create(&t, NULL, serve, NULL);
    pthread_detach(t);
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  atexit(report);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  long r = syscall(SYS_mmap, addr, len, prot, flags, fd, off);
  if (r < 0 && r > -4096) {
    errno = (int)-r;
    return MAP_FAILED;
  }
  void *p = (void *)r;
  if (uffd >= 0 && len >= MIN_BYTES && prot == (PROT_READ | PROT_WRITE) &&
      (flags & (MAP_ANONYMOUS | MAP_PRIVATE)) == (MAP_ANONYMOUS | MAP_PRIVATE) &&
      !(flags & (MAP_STACK | MAP_POPULATE))) {
    struct uffdio_register reg = {
        .range = {(uintptr_t)p, (len + 4095) & ~(size_t)4095},
        .mode = UFFDIO_REGISTER_MODE_MISSING};
    if (ioctl(uffd, UFFDIO_REGISTER, &reg) != 0)
      fprintf(stderr, "slow_faults: UFFDIO_REGISTER: %s\n", strerror(errno));
  }
  return p;
}
void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
    __attribute__((alias("mmap")));
