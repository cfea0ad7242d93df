/* The string copy (args_copy.h). */
#define _GNU_SOURCE /* process_vm_readv, pipe2 */
#include "args/args_copy.h"

#include "core/base/report.h"
#include "core/modes/arg_values.h"
#include "core/thread/thread.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/* The pieces are split at 4 KiB boundaries: those of any larger page size
 * are among them, so no piece spans two pages. */
enum { PIECE_ALIGN = 4096 };

/* 0: process_vm_readv; 1: it was refused here, the pipe from then on. */
static int use_pipe;

/* The range [addr, addr + n) as at most two pieces, split where a page
 * ends; returns how many. */
static int pieces(uint64_t addr, size_t n, struct iovec out[2]) {
  size_t first = PIECE_ALIGN - (size_t)(addr & (PIECE_ALIGN - 1));
  if (first >= n) {
    out[0] = (struct iovec){(void *)(uintptr_t)addr, n};
    return 1;
  }
  out[0] = (struct iovec){(void *)(uintptr_t)addr, first};
  out[1] = (struct iovec){(void *)(uintptr_t)(addr + first), n - first};
  return 2;
}

/* The readable bytes of the pieces, in order, up to the first that is not:
 * through a pipe of this call's own (empty, so a write of at most 64 bytes
 * never blocks and never mixes with another's). */
static size_t read_through_pipe(const struct iovec *piece, int count, char *out) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
    return 0; /* no descriptor left: the string reads as unreadable */
  size_t moved = 0;
  for (int i = 0; i < count; i++) {
    /* The system call itself, not libc's write: a sanitizer's wrapper of
     * write would check the bytes past the string's NUL, which the kernel
     * checks here instead. */
    ssize_t w = syscall(SYS_write, fds[1], piece[i].iov_base, piece[i].iov_len);
    if (w <= 0)
      break;
    moved += (size_t)w;
    if ((size_t)w < piece[i].iov_len)
      break;
  }
  size_t got = 0;
  while (got < moved) {
    ssize_t r = read(fds[0], out + got, moved - got);
    if (r <= 0)
      break;
    got += (size_t)r;
  }
  close(fds[0]);
  close(fds[1]);
  return got;
}

static size_t read_some(uint64_t addr, char *out, size_t n) {
  struct iovec remote[2];
  int count = pieces(addr, n, remote);
  if (!__atomic_load_n(&use_pipe, __ATOMIC_RELAXED)) {
    struct iovec local = {out, n};
    ssize_t got = process_vm_readv(xr_pid(), &local, 1, remote, (unsigned long)count, 0);
    int why = errno;
    if (got >= 0)
      return (size_t)got;
    if (why != ENOSYS && why != EPERM)
      return 0; /* EFAULT: the first piece is unreadable */
    __atomic_store_n(&use_pipe, 1, __ATOMIC_RELAXED);
    static int said;
    xr_report_once(&said, XR_INFO, "xray_args: process_vm_readv is refused here (%s): "
                   "strings are copied through a pipe instead (5 system calls each)",
                   why == ENOSYS ? "ENOSYS" : "EPERM");
  }
  return read_through_pipe(remote, count, out);
}

/* One byte past the bound is read, so a string of exactly
 * XR_ARG_STRING_MAX bytes is whole (OK), and CUT means a longer one. */
uint8_t xr_args_copy_string(uint64_t addr, char *out, uint8_t *len) {
  *len = 0;
  if (addr == 0)
    return XR_ARGS_NULL;
  char buf[XR_ARG_STRING_MAX + 1];
  int saved = errno; /* the program's errno is not ours to change */
  size_t got = read_some(addr, buf, sizeof buf);
  errno = saved;
  const char *nul = memchr(buf, '\0', got);
  size_t keep = nul != NULL ? (size_t)(nul - buf) : got < sizeof buf ? got : XR_ARG_STRING_MAX;
  memcpy(out, buf, keep);
  *len = (uint8_t)keep;
  return nul != NULL ? XR_ARGS_OK
         : got == sizeof buf ? XR_ARGS_CUT
         : got > 0           ? XR_ARGS_PARTIAL
                             : XR_ARGS_UNREADABLE;
}
