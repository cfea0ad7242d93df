/* The fault-safe copy of a /s value's string (args_copy.c): the kernel
 * reads the program's memory and says what it could not, so a NULL,
 * unmapped, PROT_NONE or freed pointer, or a string that runs into such a
 * page, costs a system call and never a signal. No signal handler of ours
 * is involved. */
#ifndef XR_ARGS_COPY_H
#define XR_ARGS_COPY_H

#include "core/base/common.h"

/* Copies the string at addr into out (room for XR_ARG_STRING_MAX bytes,
 * no NUL written), *len bytes kept. Returns its enum
 * xr_arg_string_status: OK (*len <= XR_ARG_STRING_MAX bytes, then a NUL),
 * NULL (addr 0: nothing read), UNREADABLE (not one byte could be read),
 * CUT (more than XR_ARG_STRING_MAX bytes before any NUL: the first
 * XR_ARG_STRING_MAX kept), PARTIAL (*len bytes, then memory that cannot
 * be read, no NUL among them).
 *
 * How: process_vm_readv on this very process, the range split where a
 * 4 KiB page ends (the kernel moves whole pieces, so the readable part of
 * a string that runs into an unreadable page is kept): one system call.
 * Where it is refused (ENOSYS under qemu-user, EPERM under a seccomp
 * filter: said once at verbosity 1), from then on each piece is written
 * into a pipe of the call's own and read back (pipe2, up to two writes, a
 * read, two closes), which the kernel checks the same way. Thread-safe and
 * async-signal-safe; no allocation. */
XR_HIDDEN uint8_t xr_args_copy_string(uint64_t addr, char *out, uint8_t *len);

#endif
