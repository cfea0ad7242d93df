/* Log files: naming, exclusive creation, complete writes, common header. */
#ifndef XR_OUTPUT_H
#define XR_OUTPUT_H

#include "core/base/common.h"
#include "xray/xray_version.h"

/* basename of argv[0] (from the preinit arguments or /proc/self/cmdline),
 * copied once at start (__xray_init): a process title written over argv
 * later does not change it. */
XR_HIDDEN const char *xr_program_name(void);
XR_HIDDEN void xr_set_argv0(const char *argv0);

/* The process's six-letter file suffix (NUL-terminated), the same for
 * every file it writes; a fork child has its own. Async-signal-safe. */
XR_HIDDEN void xr_process_suffix(char out[7]);

/* Creates `<xray_logfile_base><program>.XXXXXX` exclusively (mode 0600),
 * XXXXXX the process suffix; the process's next logs (a new init/flush
 * cycle) are `XXXXXX-2`, `XXXXXX-3`... The base is a prefix: "out/x-" gives
 * "out/x-prog.abc123". Writes the chosen path
 * to path[cap]. Returns an fd, or -1 after reporting why (XR_ERROR: the user
 * asked for a log and cannot have it). At verbosity >= 1 reports the path. */
XR_HIDDEN int xr_open_log_file(char *path, size_t cap);

/* Creates `path` + `suffix` (e.g. ".folded") exclusively; same reporting. */
XR_HIDDEN int xr_open_sibling_file(const char *path, const char *suffix,
                                   char *out, size_t cap);

/* The same for a file the caller renames over its final name when whole
 * (e.g. ".order", ".json.part"): errors reported, the path not announced
 * (the user never sees the temporary name). */
XR_HIDDEN int xr_open_sibling_temp(const char *path, const char *suffix,
                                   char *out, size_t cap);

/* The common 32-byte header of basic and FDR files (LLVM's
 * docs/XRayFDRFormat.rst "Header Section"; compiler-rt's xray_records.h). */
struct xr_file_header {
  uint16_t version;
  uint16_t type;
  uint32_t flags; /* bit 0 constant_tsc, bit 1 nonstop_tsc */
  uint64_t cycle_frequency;
  uint8_t free_form[16];
};
_Static_assert(sizeof(struct xr_file_header) == 32, "file header is 32 bytes");

/* Bytes 24-31 of the header of every basic and FDR file say which runtime
 * wrote it (docs/formats.md "Common header"): "XRRT", then the version's
 * major and minor (a byte each) and patch (u16, little-endian), from the
 * generated <xray/xray_version.h>. llvm-xray keeps bytes 16-31 as free-form
 * data and reads none of them; compiler-rt leaves 24-31 zero. Pure byte
 * stores: async-signal-safe. */
#define XR_FILE_HEADER_STAMP_AT 24
static inline void xr_file_header_stamp(uint8_t out[8]) {
  out[0] = 'X', out[1] = 'R', out[2] = 'R', out[3] = 'T';
  out[4] = (uint8_t)XRAY_RUNTIME_VERSION_MAJOR;
  out[5] = (uint8_t)XRAY_RUNTIME_VERSION_MINOR;
  out[6] = (uint8_t)(XRAY_RUNTIME_VERSION_PATCH & 0xff);
  out[7] = (uint8_t)((XRAY_RUNTIME_VERSION_PATCH >> 8) & 0xff);
}

/* Fills version/type, the TSC bits and frequency from xr_clock; free-form
 * bytes 16-23 zero, 24-31 the runtime's stamp (above). */
XR_HIDDEN void xr_file_header_init(struct xr_file_header *h, uint16_t version,
                                   uint16_t type);

#endif
