/* The input of xrayctl's file commands: a trace file read through one
 * fixed buffer with pread, never mapped whole (mapped file pages count in
 * the resident set), so memory does not grow with the file. The first
 * error sticks, with the byte offset it was found at; readers stop there.
 * Works on any file that pread accepts: a regular file or a memfd (the
 * fuzz target's). */
#ifndef XRAYCTL_TRACE_INPUT_H
#define XRAYCTL_TRACE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes read at a time; a record larger than this (an event's payload)
 * gets a buffer of its own, up to CTL_IN_RECORD_MAX. */
#define CTL_IN_CHUNK ((size_t)1 << 20)
#define CTL_IN_RECORD_MAX ((size_t)16 << 20)

struct ctl_in {
  int fd;
  const char *path; /* for messages */
  uint64_t size;    /* of the file, at open */
  uint8_t *buf;
  size_t cap, len;  /* buf holds len bytes from file offset at */
  uint64_t at;
  bool failed;
  uint64_t err_offset;
  char err[256];
};

/* Reads fd (its size now) as `path`. 0, or -1 with the error set. */
int ctl_in_open(struct ctl_in *in, int fd, const char *path);
void ctl_in_close(struct ctl_in *in);

/* The n bytes at offset off, valid until the next call; NULL when they are
 * not all in the file (no error set: the caller says what was cut) or
 * cannot be read (error set). */
const uint8_t *ctl_in_at(struct ctl_in *in, uint64_t off, size_t n);

/* Up to `want` bytes from off (at least 1 when off < size): what the
 * buffer holds there after at most one read; *got says how many. */
const uint8_t *ctl_in_window(struct ctl_in *in, uint64_t off, size_t want,
                             size_t *got);

/* Sets the error (the first one sticks): "byte OFFSET: message". -1. */
int ctl_in_fail(struct ctl_in *in, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
