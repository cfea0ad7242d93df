/* FDR record encoders: the per-record ones are inline in fdr_records.h (the
 * hot path needs them without a call); here are the composite pieces the
 * cold paths write: the file header and the buffer preamble. */
#include "fdr/fdr_records.h"
#include "core/output/output.h"

#include <string.h>

static const char unwound_prefix[] = "xray-unwound ";
#define PREFIX_LEN (sizeof unwound_prefix - 1)

void xr_fdr_file_header(uint8_t out[XR_FDR_FILE_HEADER_SIZE],
                        uint16_t version, bool constant_tsc, bool nonstop_tsc,
                        uint64_t frequency, uint64_t buffer_size) {
  uint32_t flags = (constant_tsc ? 1u : 0u) | (nonstop_tsc ? 2u : 0u);
  /* bytes 0-1 version, 2-3 type 1 (FDR), 4-7 TSC flags */
  xr_fdr_put64(out, (uint64_t)version | (1ull << 16) | ((uint64_t)flags << 32));
  xr_fdr_put64(out + 8, frequency);
  xr_fdr_put64(out + 16, buffer_size);
  xr_file_header_stamp(out + XR_FILE_HEADER_STAMP_AT);
}

uint8_t *xr_fdr_preamble(uint8_t *p, int version, int32_t tid, int32_t pid,
                         int64_t wall_sec, int32_t wall_usec, uint16_t cpu,
                         uint64_t tsc) {
  p = xr_fdr_new_buffer(p, tid);
  p = xr_fdr_walltime(p, wall_sec, wall_usec);
  if (version >= 3)
    p = xr_fdr_pid(p, pid);
  return xr_fdr_new_cpu(p, cpu, tsc);
}

uint64_t xr_fdr_unwound_count(const uint8_t *data, size_t size) {
  if (size <= PREFIX_LEN || size > PREFIX_LEN + 19 ||
      memcmp(data, unwound_prefix, PREFIX_LEN) != 0)
    return 0;
  uint64_t n = 0;
  for (size_t i = PREFIX_LEN; i < size; i++) {
    if (data[i] < '0' || data[i] > '9')
      return 0;
    n = n * 10 + (uint64_t)(data[i] - '0');
  }
  return n;
}
