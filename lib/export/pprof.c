/* pprof profile.proto writer. See pprof.h. Field numbers are those of
 * google/pprof proto/profile.proto. */
#include "export/pprof.h"
#include "export/pb_encode.h"

#include <string.h>
#include <sys/mman.h>

enum { /* Profile */
  PROFILE_SAMPLE_TYPE = 1,
  PROFILE_SAMPLE = 2,
  PROFILE_MAPPING = 3,
  PROFILE_LOCATION = 4,
  PROFILE_FUNCTION = 5,
  PROFILE_STRING_TABLE = 6,
  PROFILE_TIME_NANOS = 9,
  PROFILE_DURATION_NANOS = 10,
  PROFILE_COMMENT = 13,
  PROFILE_DEFAULT_SAMPLE_TYPE = 14,
};
enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2 };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2 };
enum {
  MAPPING_ID = 1,
  MAPPING_MEMORY_START = 2,
  MAPPING_MEMORY_LIMIT = 3,
  MAPPING_FILE_OFFSET = 4,
  MAPPING_FILENAME = 5,
  MAPPING_BUILD_ID = 6,
  MAPPING_HAS_FUNCTIONS = 7,
};
enum {
  LOCATION_ID = 1,
  LOCATION_MAPPING_ID = 2,
  LOCATION_ADDRESS = 3,
  LOCATION_LINE = 4,
};
enum { LINE_FUNCTION_ID = 1 };
enum { FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3 };

/* Fixed strings, emitted first so their indexes are these. */
enum { STR_EMPTY, STR_CALLS, STR_COUNT, STR_TIME, STR_NANOSECONDS, STR_FIXED };
static const char *const fixed_strings[STR_FIXED] = {"", "calls", "count",
                                                     "time", "nanoseconds"};

/* Room for the fixed-size fields of any message but a sample's ids. */
#define MESSAGE_SLACK 256u

static uint64_t put_string(struct xr_pprof *w, const char *s) {
  uint8_t head[2 * XR_PB_VARINT_MAX];
  struct xr_pb_buf b;
  size_t n = strlen(s);
  xr_pb_init(&b, head, sizeof(head));
  xr_pb_len_prefix(&b, PROFILE_STRING_TABLE, n);
  w->put(w->ctx, head, b.len);
  w->put(w->ctx, s, n);
  return w->next_string++;
}

/* Starts a message in the scratch buffer. */
static struct xr_pb_buf message(struct xr_pprof *w) {
  struct xr_pb_buf b;
  xr_pb_init(&b, w->scratch, w->scratch_cap);
  return b;
}

/* Emits the message built in b as field `field` of the Profile. */
static void put_message(struct xr_pprof *w, unsigned field,
                        const struct xr_pb_buf *b) {
  if (b->overflow) {
    w->too_big = true;
    return;
  }
  uint8_t head[2 * XR_PB_VARINT_MAX];
  struct xr_pb_buf h;
  xr_pb_init(&h, head, sizeof(head));
  xr_pb_len_prefix(&h, field, b->len);
  w->put(w->ctx, head, h.len);
  w->put(w->ctx, b->data, b->len);
}

static void put_uint_field(struct xr_pprof *w, unsigned field, uint64_t v) {
  uint8_t tmp[2 * XR_PB_VARINT_MAX];
  struct xr_pb_buf b;
  xr_pb_init(&b, tmp, sizeof(tmp));
  xr_pb_uint(&b, field, v);
  w->put(w->ctx, tmp, b.len);
}

static void put_value_type(struct xr_pprof *w, unsigned field, uint64_t type,
                           uint64_t unit) {
  struct xr_pb_buf b = message(w);
  xr_pb_uint(&b, VALUE_TYPE_TYPE, type);
  xr_pb_uint(&b, VALUE_TYPE_UNIT, unit);
  put_message(w, field, &b);
}

int xr_pprof_begin(struct xr_pprof *w, xr_put_fn put, void *ctx,
                   size_t max_frames, const struct xr_pprof_info *info) {
  memset(w, 0, sizeof(*w));
  w->put = put;
  w->ctx = ctx;
  if (max_frames > (SIZE_MAX - MESSAGE_SLACK) / XR_PB_VARINT_MAX)
    return -1;
  w->scratch_cap = MESSAGE_SLACK + max_frames * XR_PB_VARINT_MAX;
  void *p = mmap(NULL, w->scratch_cap, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return -1;
  w->scratch = p;
  for (int i = 0; i < STR_FIXED; i++)
    put_string(w, fixed_strings[i]);
  put_value_type(w, PROFILE_SAMPLE_TYPE, STR_CALLS, STR_COUNT);
  put_value_type(w, PROFILE_SAMPLE_TYPE, STR_TIME, STR_NANOSECONDS);
  put_uint_field(w, PROFILE_DEFAULT_SAMPLE_TYPE, STR_TIME);
  put_uint_field(w, PROFILE_TIME_NANOS, info->time_nanos);
  put_uint_field(w, PROFILE_DURATION_NANOS, info->duration_nanos);
  if (info->comment != NULL)
    put_uint_field(w, PROFILE_COMMENT, put_string(w, info->comment));
  return 0;
}

void xr_pprof_mapping(struct xr_pprof *w, const struct xr_pprof_mapping *m) {
  uint64_t file = m->filename != NULL ? put_string(w, m->filename) : 0;
  uint64_t build_id = m->build_id != NULL ? put_string(w, m->build_id) : 0;
  struct xr_pb_buf b = message(w);
  xr_pb_uint(&b, MAPPING_ID, m->id);
  xr_pb_uint(&b, MAPPING_MEMORY_START, m->memory_start);
  xr_pb_uint(&b, MAPPING_MEMORY_LIMIT, m->memory_limit);
  xr_pb_uint(&b, MAPPING_FILE_OFFSET, m->file_offset);
  if (file != 0)
    xr_pb_uint(&b, MAPPING_FILENAME, file);
  if (build_id != 0)
    xr_pb_uint(&b, MAPPING_BUILD_ID, build_id);
  xr_pb_uint(&b, MAPPING_HAS_FUNCTIONS, 1);
  put_message(w, PROFILE_MAPPING, &b);
}

void xr_pprof_function(struct xr_pprof *w, uint64_t id, const char *name,
                       const char *system_name, uint64_t address,
                       uint64_t mapping_id) {
  uint64_t name_index = put_string(w, name);
  uint64_t system_index = name_index;
  if (system_name != NULL && strcmp(system_name, name) != 0)
    system_index = put_string(w, system_name);
  struct xr_pb_buf b = message(w);
  xr_pb_uint(&b, FUNCTION_ID, id);
  xr_pb_uint(&b, FUNCTION_NAME, name_index);
  xr_pb_uint(&b, FUNCTION_SYSTEM_NAME, system_index);
  put_message(w, PROFILE_FUNCTION, &b);

  uint8_t line_bytes[2 * XR_PB_VARINT_MAX];
  struct xr_pb_buf line;
  xr_pb_init(&line, line_bytes, sizeof(line_bytes));
  xr_pb_uint(&line, LINE_FUNCTION_ID, id);
  b = message(w);
  xr_pb_uint(&b, LOCATION_ID, id);
  if (mapping_id != 0)
    xr_pb_uint(&b, LOCATION_MAPPING_ID, mapping_id);
  if (address != 0)
    xr_pb_uint(&b, LOCATION_ADDRESS, address);
  xr_pb_bytes(&b, LOCATION_LINE, line.data, line.len);
  put_message(w, PROFILE_LOCATION, &b);
}

void xr_pprof_sample(struct xr_pprof *w, const uint64_t *location_ids,
                     size_t n, uint64_t calls, uint64_t nanoseconds) {
  uint64_t values[2] = {calls, nanoseconds};
  struct xr_pb_buf b = message(w);
  xr_pb_packed(&b, SAMPLE_LOCATION_ID, location_ids, n);
  xr_pb_packed(&b, SAMPLE_VALUE, values, 2);
  put_message(w, PROFILE_SAMPLE, &b);
}

int xr_pprof_end(struct xr_pprof *w) {
  if (w->scratch != NULL)
    munmap(w->scratch, w->scratch_cap);
  w->scratch = NULL;
  return w->too_big ? -1 : 0;
}
