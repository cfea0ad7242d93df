/* Names of dense ids for a crash handler (see ready_names.h).
 *
 * The name tables (names.c) are built lazily, with locks and allocation,
 * which a crash handler cannot do; their memory is never freed, so a built
 * table can be read from anywhere. Here, on the cold path (a dense mode
 * starts, an object registers or goes), every object's table is built and
 * one immutable record per object is published: its dense id range and its
 * table's entries. The crash handler reads the records with plain atomic
 * loads. A record is never changed or freed once published: an object
 * registered again gets a new one, and a reader that holds the old one still
 * reads valid, consistent names. */
#include "core/names/ready_names.h"

#include "core/names/names.h"
#include "core/objects/objects.h"
#include "core/thread/thread.h"

#include <sys/mman.h>

struct record {
  uint32_t id_base;    /* dense ids id_base + 1 .. id_base + count */
  uint32_t generation; /* of the registration it describes */
  size_t count;
  const struct xr_name_entry *entries;
};

static const struct record *records[XR_MAX_OBJECTS]; /* atomic */
static size_t record_span;       /* atomic: objects with a record, at most */
static bool keeping;             /* atomic: refresh at every change */
static int32_t refresh_owner;    /* atomic: pid of the refreshing process */
static uint32_t refresh_again;   /* atomic: the objects changed meanwhile */
static struct record *pool;      /* refresher only: records not yet used */
static size_t pool_left;

/* Records come from pages of their own, never unmapped (a crash handler may
 * hold any record ever published). */
static struct record *new_record(void) {
  if (pool_left == 0) {
    void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
      return NULL;
    pool = m;
    pool_left = 4096 / sizeof *pool;
  }
  pool_left--;
  return pool++;
}

static void refresh_once(void) {
  size_t count = xr_objects_count();
  if (count > XR_MAX_OBJECTS)
    count = XR_MAX_OBJECTS;
  for (size_t id = 0; id < count; id++) {
    struct xr_object_info info;
    const struct xr_name_table *t;
    const struct record *old = __atomic_load_n(&records[id], __ATOMIC_ACQUIRE);
    if (!xr_object_info((int32_t)id, &info) || info.id_base == XR_NO_ID_BASE ||
        (old != NULL && old->generation == info.generation))
      continue;
    /* Builds the table if needed (a lock, the arena: cold path). */
    if (xr_names_table((int32_t)id, &t) != XR_NAMES_OK)
      continue; /* its ids stay fn<id> in a crash's trace */
    struct record *r = new_record();
    if (r == NULL)
      return;
    *r = (struct record){info.id_base, info.generation, t->count, t->entries};
    __atomic_store_n(&records[id], r, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&record_span, count, __ATOMIC_RELEASE);
}

/* One refresher at a time, as the object map's renderer: a change during a
 * refresh makes the refresher go round once more. */
static bool take_refresh(int32_t me) {
  int32_t owner = __atomic_load_n(&refresh_owner, __ATOMIC_SEQ_CST);
  while (owner != me)
    if (__atomic_compare_exchange_n(&refresh_owner, &owner, me, false,
                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
      return true;
  return false;
}

static void refresh(void) {
  if (!__atomic_load_n(&keeping, __ATOMIC_ACQUIRE))
    return;
  int32_t me = xr_pid();
  __atomic_store_n(&refresh_again, 1, __ATOMIC_SEQ_CST);
  if (!take_refresh(me))
    return;
  do {
    __atomic_store_n(&refresh_again, 0, __ATOMIC_SEQ_CST);
    refresh_once();
    __atomic_store_n(&refresh_owner, 0, __ATOMIC_SEQ_CST);
  } while (__atomic_load_n(&refresh_again, __ATOMIC_SEQ_CST) &&
           take_refresh(me));
}

const struct xr_object_events xr_ready_names_events = {.dense_changed =
                                                           refresh};

void xr_ready_names_keep(bool on) {
  __atomic_store_n(&keeping, on, __ATOMIC_RELEASE);
}

const char *xr_ready_names_dense(int32_t id) {
  if (id <= 0)
    return NULL;
  size_t span = __atomic_load_n(&record_span, __ATOMIC_ACQUIRE);
  for (size_t i = 0; i < span; i++) {
    const struct record *r = __atomic_load_n(&records[i], __ATOMIC_ACQUIRE);
    if (r != NULL && (uint32_t)id > r->id_base &&
        (uint32_t)id - r->id_base <= r->count)
      return r->entries[(uint32_t)id - r->id_base - 1].name;
  }
  return NULL;
}
