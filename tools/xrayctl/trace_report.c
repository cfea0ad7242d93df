/* xrayctl report: one row per function of a trace or profile file. See
 * trace_report.h.
 *
 * Calls are accounted as llvm-xray account does, so counts and totals
 * equal its: per thread a stack of open calls; an exit that matches the
 * top of its thread's stack ends that call (duration = exit ticks - entry
 * ticks, every call counted, recursive ones too, so a recursive function's
 * total counts nested time again); any other exit is not counted (account
 * -k skips it; without -k it stops). Self time is the duration minus the
 * durations of the calls made directly from it. Memory: one stack per
 * thread, one row and a histogram per function. An FDR log's threads are
 * accounted on up to REPORT_PARTS CPUs, each part on its own, then added
 * together (the trace's threads are independent). Calls with argument
 * values (argument capture) keep them while open, and each function its
 * slowest such calls with them (call_values.h). */
#define _GNU_SOURCE
#include "trace_report.h"
#include "call_values.h"
#include "latency_hist.h"
#include "profile_read.h"
#include "trace_source.h"
#include "core/base/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct row {
  int32_t fid;
  uint64_t calls, min, max, total, self;
  struct ctl_hist hist;
  struct ctl_slowest *slowest; /* its slowest calls with values, or NULL */
};

struct frame {
  int32_t fid;
  uint32_t values; /* the handle of its entry's values (call_values.h), or 0 */
  uint64_t tsc, callees;
};

struct thread {
  int32_t pid, tid;
  bool used;
  struct frame *stack;
  size_t depth, cap;
  struct ctl_open_values open;
};

struct report {
  struct row *rows;
  size_t nrows, rows_cap;
  uint32_t *slots; /* fid -> 1 + row index, open addressing */
  size_t slots_cap;
  uint32_t *direct; /* the same for ids below DIRECT_IDS: one load */
  struct thread *last; /* the thread of the last event: usually the next's */
  struct thread *threads;
  size_t nthreads, threads_cap;
  size_t other_threads, other_open; /* of the parts merged into this one */
  struct ctl_hist_pool pool;
  uint64_t unmatched;
  unsigned keep_values; /* slowest calls with values kept per function */
  /* profiles: the current thread's path, to subtract callees */
  uint64_t prof_tid;
  struct frame *path;
  size_t path_cap;
  uint32_t path_depth;
  bool no_memory;
};

/* Ids of one object (FDR's dense ids, an executable's) are small: a table
 * indexed by id, whose untouched pages cost nothing. */
#define DIRECT_IDS ((uint32_t)1 << 22)
/* Threads that read an FDR log's parts at most (a 2-CPU machine uses 2). */
#define REPORT_PARTS 4

static size_t hash32(uint32_t v) { return (size_t)((v * 0x9E3779B97F4A7C15ull) >> 24); }

static bool grow_slots(struct report *r) {
  size_t cap = r->slots_cap ? 2 * r->slots_cap : 1024;
  uint32_t *fresh = calloc(cap, sizeof *fresh);
  if (fresh == NULL)
    return false;
  for (size_t i = 0; i < r->nrows; i++) {
    size_t s = hash32((uint32_t)r->rows[i].fid) & (cap - 1);
    while (fresh[s] != 0)
      s = (s + 1) & (cap - 1);
    fresh[s] = (uint32_t)i + 1;
  }
  free(r->slots);
  r->slots = fresh;
  r->slots_cap = cap;
  return true;
}

static struct row *row_of(struct report *r, int32_t fid) {
  bool direct = (uint32_t)fid < DIRECT_IDS && r->direct != NULL;
  if (direct && r->direct[fid] != 0)
    return &r->rows[r->direct[fid] - 1];
  if (!direct && r->slots_cap != 0) {
    for (size_t s = hash32((uint32_t)fid) & (r->slots_cap - 1); r->slots[s] != 0;
         s = (s + 1) & (r->slots_cap - 1))
      if (r->rows[r->slots[s] - 1].fid == fid)
        return &r->rows[r->slots[s] - 1];
  }
  if ((r->nrows + 1) * 2 > r->slots_cap && !grow_slots(r))
    return NULL;
  if (r->nrows == r->rows_cap) {
    size_t cap = r->rows_cap ? 2 * r->rows_cap : 256;
    struct row *bigger = realloc(r->rows, cap * sizeof *bigger);
    if (bigger == NULL)
      return NULL;
    r->rows = bigger;
    r->rows_cap = cap;
  }
  struct row *w = &r->rows[r->nrows];
  memset(w, 0, sizeof *w);
  w->fid = fid;
  w->min = UINT64_MAX;
  size_t s = hash32((uint32_t)fid) & (r->slots_cap - 1);
  while (r->slots[s] != 0)
    s = (s + 1) & (r->slots_cap - 1);
  r->slots[s] = (uint32_t)++r->nrows;
  if (direct)
    r->direct[fid] = (uint32_t)r->nrows;
  return w;
}

static size_t thread_slot(size_t cap, int32_t pid, int32_t tid) {
  return hash32((uint32_t)pid * 31u + (uint32_t)tid) & (cap - 1);
}

static struct thread *thread_of(struct report *r, int32_t pid, int32_t tid) {
  if (r->last != NULL && r->last->tid == tid && r->last->pid == pid)
    return r->last;
  if (r->threads_cap != 0) {
    for (size_t s = thread_slot(r->threads_cap, pid, tid); r->threads[s].used;
         s = (s + 1) & (r->threads_cap - 1))
      if (r->threads[s].pid == pid && r->threads[s].tid == tid)
        return r->last = &r->threads[s];
  }
  if ((r->nthreads + 1) * 2 > r->threads_cap) {
    size_t cap = r->threads_cap ? 2 * r->threads_cap : 64;
    struct thread *fresh = calloc(cap, sizeof *fresh);
    if (fresh == NULL)
      return NULL;
    for (size_t i = 0; i < r->threads_cap; i++) {
      if (!r->threads[i].used)
        continue;
      size_t s = thread_slot(cap, r->threads[i].pid, r->threads[i].tid);
      while (fresh[s].used)
        s = (s + 1) & (cap - 1);
      fresh[s] = r->threads[i];
    }
    free(r->threads);
    r->threads = fresh;
    r->threads_cap = cap;
    r->last = NULL;
  }
  size_t s = thread_slot(r->threads_cap, pid, tid);
  while (r->threads[s].used)
    s = (s + 1) & (r->threads_cap - 1);
  struct thread *t = &r->threads[s];
  *t = (struct thread){.pid = pid, .tid = tid, .used = true};
  r->nthreads++;
  return r->last = t;
}

/* One call of the row's function, of that duration and self time. */
static inline void row_add(struct row *w, uint64_t duration, uint64_t self) {
  w->calls++;
  w->total += duration;
  w->self += self;
  if (duration < w->min)
    w->min = duration;
  if (duration > w->max)
    w->max = duration;
}

static XR_NOINLINE void count_call_slow(struct report *r, int32_t fid,
                                        uint64_t duration, uint64_t self) {
  struct row *w = row_of(r, fid);
  if (w == NULL || !ctl_hist_add(&r->pool, &w->hist, duration)) {
    r->no_memory = true;
    return;
  }
  row_add(w, duration, self);
}

static inline void count_call(struct report *r, int32_t fid, uint64_t duration,
                              uint64_t self) {
  uint32_t at = (uint32_t)fid < DIRECT_IDS && r->direct ? r->direct[fid] : 0;
  if (at == 0) { /* a new function, or a large id */
    count_call_slow(r, fid, duration, self);
    return;
  }
  struct row *w = &r->rows[at - 1];
  unsigned b, k = ctl_hist_row(duration, &b);
  if (w->hist.row[k] == 0) {
    count_call_slow(r, fid, duration, self);
    return;
  }
  r->pool.rows[w->hist.row[k] - 1][b]++;
  row_add(w, duration, self);
}

static XR_NOINLINE bool grow_stack(struct report *r, struct thread *t) {
  size_t cap = t->cap ? 2 * t->cap : 64;
  struct frame *bigger = realloc(t->stack, cap * sizeof *bigger);
  if (bigger == NULL) {
    r->no_memory = true;
    return false;
  }
  t->stack = bigger;
  t->cap = cap;
  return true;
}

/* A call with values ended after `d` ticks: offered to its function's
 * slowest, with its entry's values and the exit's return value. */
static XR_NOINLINE void note_values(struct report *r, struct thread *t,
                                    const struct frame *f, uint64_t d,
                                    const struct xr_tev *e) {
  const struct xr_arg_call *args = f->values ? ctl_values_end(&t->open, f->values) : NULL;
  const struct xr_arg_call *ret = e->call != NULL && e->call->count ? e->call : NULL;
  if (args == NULL && ret == NULL)
    return;
  struct row *w = row_of(r, f->fid);
  if (w == NULL || !ctl_slowest_offer(&w->slowest, r->keep_values, d, args, ret))
    r->no_memory = true;
}

/* An exit: ends the call on top of its thread's stack when it is that
 * call's (account's rule). Apart from on_event, whose entries then need
 * no saved registers. */
static XR_NOINLINE void end_call(struct report *r, struct thread *t,
                                const struct xr_tev *e) {
  if (e->kind != XR_TEV_EXIT && e->kind != XR_TEV_TAIL_EXIT)
    return; /* custom and typed events: account ignores them too */
  if (t->depth == 0 || t->stack[t->depth - 1].fid != e->fid) {
    r->unmatched++;
    return;
  }
  struct frame *f = &t->stack[--t->depth];
  /* account's difference: the larger minus the smaller */
  uint64_t d = e->tsc >= f->tsc ? e->tsc - f->tsc : f->tsc - e->tsc;
  count_call(r, f->fid, d, d > f->callees ? d - f->callees : 0);
  if (XR_UNLIKELY(f->values != 0 || e->call != NULL))
    note_values(r, t, f, d, e);
  if (t->depth > 0)
    t->stack[t->depth - 1].callees += d;
}

static XR_NOINLINE struct thread *other_thread(struct report *r, int32_t pid,
                                               int32_t tid) {
  struct thread *t = thread_of(r, pid, tid);
  if (t == NULL)
    r->no_memory = true;
  return t;
}

static void on_event(void *ctx, int32_t pid, int32_t tid, const struct xr_tev *e) {
  struct report *r = ctx;
  struct thread *t = r->last;
  if (XR_UNLIKELY(t == NULL || t->tid != tid || t->pid != pid) &&
      (t = other_thread(r, pid, tid)) == NULL)
    return;
  if (e->kind != XR_TEV_ENTER) {
    end_call(r, t, e);
    return;
  }
  if (XR_UNLIKELY(t->depth == t->cap) && !grow_stack(r, t))
    return;
  uint32_t values = 0;
  if (XR_UNLIKELY(e->call != NULL && e->call->count != 0) &&
      (values = ctl_values_keep(&t->open, e->call)) == 0)
    r->no_memory = true;
  t->stack[t->depth++] = (struct frame){e->fid, values, e->tsc, 0};
}

/* A run of plain records of one thread: on_event's work without a call
 * per event, the thread's stack and the report's tables in registers
 * (reloaded after the slow path, which may move them). */
static uint32_t rec_u32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v; /* the files are little-endian, as the hosts xrayctl runs on */
}

/* A run of plain FDR function records (trace_read.h), decoded and
 * accounted in one loop: the report's hot path. */
static uint64_t on_calls(void *ctx, int32_t pid, int32_t tid,
                         const uint8_t *recs, size_t n, uint64_t tsc) {
  struct report *r = ctx;
  struct thread *t = r->last;
  if (XR_UNLIKELY(t == NULL || t->tid != tid || t->pid != pid) &&
      (t = other_thread(r, pid, tid)) == NULL) {
    for (size_t i = 0; i < n; i++)
      tsc += rec_u32(recs + 8 * i + 4);
    return tsc;
  }
  struct frame *stack = t->stack;
  size_t depth = t->depth;
  const uint32_t *direct = r->direct;
  struct row *rows = r->rows;
  uint64_t(*buckets)[32] = r->pool.rows;
  uint64_t unmatched = 0;
  const uint8_t *end = recs + 8 * n;
  for (const uint8_t *p = recs; p != end; p += 8) {
    uint32_t word = rec_u32(p);
    int32_t fid = (int32_t)(word >> 4);
    tsc += rec_u32(p + 4);
    if ((word & 0xe) == 0) { /* kind 0: an entry */
      if (XR_UNLIKELY(depth == t->cap)) {
        t->depth = depth;
        if (!grow_stack(r, t)) {
          for (p += 8; p != end; p += 8)
            tsc += rec_u32(p + 4);
          break;
        }
        stack = t->stack;
      }
      stack[depth++] = (struct frame){fid, 0, tsc, 0};
      continue;
    }
    if (depth == 0 || stack[depth - 1].fid != fid) {
      unmatched++;
      continue;
    }
    struct frame *f = &stack[--depth];
    uint64_t d = tsc >= f->tsc ? tsc - f->tsc : f->tsc - tsc;
    uint64_t self = d > f->callees ? d - f->callees : 0;
    if (depth > 0)
      stack[depth - 1].callees += d;
    uint32_t at = (uint32_t)fid < DIRECT_IDS && direct ? direct[fid] : 0;
    unsigned b, k = ctl_hist_row(d, &b);
    uint32_t hrow = at != 0 ? rows[at - 1].hist.row[k] : 0;
    if (XR_UNLIKELY(hrow == 0)) { /* a new function, bucket row or large id */
      count_call_slow(r, fid, d, self);
      rows = r->rows;
      buckets = r->pool.rows;
      continue;
    }
    buckets[hrow - 1][b]++;
    row_add(&rows[at - 1], d, self);
  }
  t->depth = depth;
  r->unmatched += unmatched;
  return tsc;
}

/* ---- profiles ----------------------------------------------------------- */

/* A node ends when a node at its depth or above follows (depth first):
 * its callees' time is known then. */
static void end_path_to(struct report *r, uint32_t depth) {
  while (r->path_depth > depth) {
    struct frame *f = &r->path[--r->path_depth];
    struct row *w = row_of(r, f->fid);
    if (w == NULL) {
      r->no_memory = true;
      continue;
    }
    w->self += f->tsc > f->callees ? f->tsc - f->callees : 0;
  }
}

static void on_node(void *ctx, const struct ctl_profile_node *n) {
  struct report *r = ctx;
  if (r->nthreads == 0 || n->tid != r->prof_tid) {
    end_path_to(r, 0);
    r->nthreads++; /* a thread's blocks follow each other */
  }
  r->prof_tid = n->tid;
  end_path_to(r, n->depth - 1);
  if (r->path_depth != n->depth - 1) {
    r->unmatched++; /* a node without its parent before it: not nested */
    return;
  }
  if (n->depth > r->path_cap) {
    size_t cap = r->path_cap ? 2 * r->path_cap : 64;
    while (cap < n->depth)
      cap *= 2;
    struct frame *bigger = realloc(r->path, cap * sizeof *bigger);
    if (bigger == NULL) {
      r->no_memory = true;
      return;
    }
    r->path = bigger;
    r->path_cap = cap;
  }
  struct row *w = row_of(r, n->path[0]);
  if (w == NULL) {
    r->no_memory = true;
    return;
  }
  w->calls += n->count;
  w->total += n->ticks;
  if (r->path_depth > 0)
    r->path[r->path_depth - 1].callees += n->ticks;
  r->path[r->path_depth++] = (struct frame){n->path[0], 0, n->ticks, 0};
}

/* ---- parts ---------------------------------------------------------------- */

/* Adds part b (other threads of the same trace) into a. */
static void merge_into(struct report *a, const struct report *b) {
  for (size_t i = 0; i < b->nrows; i++) {
    const struct row *x = &b->rows[i];
    struct row *w = row_of(a, x->fid);
    if (w == NULL) {
      a->no_memory = true;
      return;
    }
    w->calls += x->calls;
    w->total += x->total;
    w->self += x->self;
    w->min = x->min < w->min ? x->min : w->min;
    w->max = x->max > w->max ? x->max : w->max;
    for (unsigned k = 0; k < CTL_HIST_ROWS; k++) {
      if (x->hist.row[k] == 0)
        continue;
      if (w->hist.row[k] == 0 && !ctl_hist_new_row(&a->pool, &w->hist, k)) {
        a->no_memory = true;
        return;
      }
      for (unsigned c = 0; c < 32; c++)
        a->pool.rows[w->hist.row[k] - 1][c] += b->pool.rows[x->hist.row[k] - 1][c];
    }
    if (!ctl_slowest_merge(&w->slowest, x->slowest, a->keep_values)) {
      a->no_memory = true;
      return;
    }
  }
  a->unmatched += b->unmatched;
  a->no_memory |= b->no_memory;
  a->other_threads += b->nthreads + b->other_threads;
  a->other_open += b->other_open;
  for (size_t i = 0; i < b->threads_cap; i++)
    a->other_open += b->threads[i].used ? b->threads[i].depth : 0;
}

/* ---- output ------------------------------------------------------------- */

enum sort_key { SORT_SUM, SORT_COUNT, SORT_SELF, SORT_MAX, SORT_NAME };

struct print {
  const struct ctl_source *src;
  struct report *r;
  enum sort_key key;
};

static struct print *sorting;

static int by_key(const void *a, const void *b) {
  const struct row *x = a, *y = b;
  uint64_t u = 0, v = 0;
  switch (sorting->key) {
  case SORT_SUM: u = x->total, v = y->total; break;
  case SORT_COUNT: u = x->calls, v = y->calls; break;
  case SORT_SELF: u = x->self, v = y->self; break;
  case SORT_MAX: u = x->max, v = y->max; break;
  case SORT_NAME: {
    const struct ctl_source *s = sorting->src;
    /* one name at a time: the callback may reuse its buffer */
    char *nx = strdup(s->name(s->name_ctx, x->fid));
    int c = nx ? strcmp(nx, s->name(s->name_ctx, y->fid)) : 0;
    free(nx);
    if (c != 0)
      return c;
    break;
  }
  }
  if (u != v)
    return u < v ? 1 : -1;
  return x->fid < y->fid ? -1 : x->fid > y->fid;
}

static uint64_t to_ns(uint64_t ticks, uint64_t hz) {
  return (uint64_t)((unsigned __int128)ticks * 1000000000u / hz);
}

/* A CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_name(const char *s) {
  if (strpbrk(s, ",\"\r\n") == NULL) {
    fputs(s, stdout);
    return;
  }
  putchar('"');
  for (; *s; s++) {
    if (*s == '"')
      putchar('"');
    putchar(*s);
  }
  putchar('"');
}

/* The slowest calls with argument values of the functions shown, in the
 * table's order. */
static void print_values(const struct print *pr, size_t shown) {
  const struct report *r = pr->r;
  const struct ctl_source *s = pr->src;
  bool header = false;
  for (size_t i = 0; i < shown; i++) {
    const struct row *w = &r->rows[i];
    if (w->slowest == NULL)
      continue;
    if (!header)
      printf("# slowest calls with argument values (at most %u a function): ns, "
             "values\n", r->keep_values);
    header = true;
    printf("%s\n", s->name(s->name_ctx, w->fid));
    ctl_slowest_print(stdout, w->slowest, s->info.frequency_hz);
  }
}

static void print_rows(const struct print *pr, size_t top, bool csv) {
  const struct report *r = pr->r;
  const struct ctl_source *s = pr->src;
  uint64_t hz = s->info.frequency_hz;
  bool timed = s->info.kind != CTL_TRACE_PROFILE; /* per-call durations known */
  static const char *const kinds[] = {"basic log", "FDR log", "profile"};
  if (csv) {
    puts("id,calls,min_ns,median_ns,p90_ns,p99_ns,max_ns,total_ns,self_ns,function");
  } else {
    printf("# %s: %s", s->path, kinds[s->info.kind]);
    if (s->info.kind != CTL_TRACE_PROFILE)
      printf(" version %d", s->info.version);
    printf(", %zu thread(s), %zu function(s), clock %llu Hz\n",
           r->nthreads + r->other_threads,
           r->nrows, (unsigned long long)hz);
    printf("# times in ns: total includes callees (every call, recursive ones "
           "too), self excludes them;%s\n",
           timed ? " median/p90/p99 within 1.6 %" : " a profile has no per-call times");
    printf("%12s %12s %12s %12s %12s %12s %15s %15s %8s  %s\n", "calls", "min",
           "median", "p90", "p99", "max", "total", "self", "id", "function");
  }
  size_t shown = top && top < r->nrows ? top : r->nrows;
  for (size_t i = 0; i < shown; i++) {
    const struct row *w = &r->rows[i];
    uint64_t v[5] = {0};
    if (timed && w->calls) {
      v[0] = w->min;
      v[4] = w->max;
      static const unsigned pct[3] = {50, 90, 99};
      for (int k = 0; k < 3; k++) {
        uint64_t at = ctl_hist_at(&r->pool, &w->hist, w->calls * pct[k] / 100);
        v[k + 1] = at < w->min ? w->min : at > w->max ? w->max : at;
      }
    }
    const char *name = s->name(s->name_ctx, w->fid);
    if (csv) {
      printf("%d,%llu", (int)w->fid, (unsigned long long)w->calls);
      for (int k = 0; k < 5; k++)
        if (timed)
          printf(",%llu", (unsigned long long)to_ns(v[k], hz));
        else
          fputs(",", stdout);
      printf(",%llu,%llu,", (unsigned long long)to_ns(w->total, hz),
             (unsigned long long)to_ns(w->self, hz));
      csv_name(name);
      putchar('\n');
    } else {
      printf("%12llu", (unsigned long long)w->calls);
      for (int k = 0; k < 5; k++)
        if (timed)
          printf(" %12llu", (unsigned long long)to_ns(v[k], hz));
        else
          printf(" %12s", "-");
      printf(" %15llu %15llu %8d  %s\n", (unsigned long long)to_ns(w->total, hz),
             (unsigned long long)to_ns(w->self, hz), (int)w->fid, name);
    }
  }
  if (!csv) {
    if (shown < r->nrows)
      printf("# %zu more function(s) not shown\n", r->nrows - shown);
    size_t open = r->other_open;
    for (size_t i = 0; i < r->threads_cap; i++)
      open += r->threads[i].used ? r->threads[i].depth : 0;
    printf("# not counted: %llu exit(s) not matching the top of their thread's "
           "stack, %zu call(s) still open at the end\n",
           (unsigned long long)r->unmatched, open);
    print_values(pr, shown);
  }
}

static void report_free(struct report *r) {
  for (size_t i = 0; i < r->threads_cap; i++) {
    free(r->threads[i].stack);
    ctl_values_free(&r->threads[i].open);
  }
  for (size_t i = 0; i < r->nrows; i++)
    ctl_slowest_free(r->rows[i].slowest);
  free(r->threads);
  free(r->rows);
  free(r->slots);
  free(r->direct);
  free(r->path);
  ctl_hist_pool_free(&r->pool);
}

static const char usage_report[] =
    "usage: xrayctl report TRACE [-m BINARY] [--top N] "
    "[--sort count|sum|self|max|name] [--csv] [--frequency HZ] [--values N]\n";

int ctl_cmd_report(int argc, char **argv) {
  const char *path = NULL, *binary = NULL;
  size_t top = 0;
  bool csv = false;
  unsigned long long hz = 0, keep_values = 3;
  enum sort_key key = SORT_SUM;
  for (int i = 0; i < argc && argv[i] != NULL; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    char *end = NULL;
    if (strcmp(a, "--csv") == 0) {
      csv = true;
    } else if (strcmp(a, "-m") == 0 && v) {
      binary = argv[++i];
    } else if (strcmp(a, "--top") == 0 && v) {
      top = strtoull(argv[++i], &end, 10);
      if (*end || top == 0)
        return fputs("xrayctl: --top must be a positive number\n", stderr), 2;
    } else if (strcmp(a, "--frequency") == 0 && v) {
      hz = strtoull(argv[++i], &end, 10);
      if (*end || hz == 0)
        return fputs("xrayctl: --frequency must be a positive number of Hz\n", stderr), 2;
    } else if (strcmp(a, "--values") == 0 && v) {
      keep_values = strtoull(argv[++i], &end, 10);
      if (*end || v[0] == '-' || keep_values > 1000)
        return fputs("xrayctl: --values takes a number of calls, 0 to 1000\n", stderr), 2;
    } else if (strcmp(a, "--sort") == 0 && v) {
      static const char *const keys[] = {"sum", "count", "self", "max", "name"};
      size_t k = 0;
      while (k < 5 && strcmp(v, keys[k]) != 0)
        k++;
      if (k == 5)
        return fputs("xrayctl: --sort takes count, sum, self, max or name\n", stderr), 2;
      key = (enum sort_key)k;
      i++;
    } else if (a[0] != '-' && path == NULL) {
      path = a;
    } else {
      fputs(usage_report, stderr);
      return 2;
    }
  }
  if (path == NULL) {
    fputs(usage_report, stderr);
    return 2;
  }
  struct ctl_source src;
  int rc = ctl_source_open(&src, path, binary, hz);
  if (rc != 0) {
    ctl_source_close(&src);
    return rc;
  }
  /* An FDR log's threads are shared out between the CPUs (a part each,
   * merged at the end); a basic log and a profile are read in one pass. */
  struct report part[CTL_TRACE_PARTS_MAX];
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned parts = src.info.kind == CTL_TRACE_FDR && cpus > 1
                       ? (unsigned)(cpus < REPORT_PARTS ? cpus : REPORT_PARTS)
                       : 1;
  void *ctxs[CTL_TRACE_PARTS_MAX];
  for (unsigned k = 0; k < parts; k++) {
    part[k] = (struct report){.keep_values = (unsigned)keep_values};
    part[k].direct = calloc(DIRECT_IDS, sizeof *part[k].direct); /* NULL: hashed */
    ctxs[k] = &part[k];
  }
  struct report *r = &part[0];
  if (src.info.kind == CTL_TRACE_PROFILE) {
    rc = ctl_profile_nodes(&src.in, on_node, r);
    end_path_to(r, 0);
  } else {
    rc = ctl_trace_events_split(&src.in, &src.info, parts, on_event, on_calls, ctxs);
  }
  for (unsigned k = 1; k < parts; k++) {
    if (rc == 0)
      merge_into(r, &part[k]);
    report_free(&part[k]);
  }
  if (rc != 0) {
    rc = ctl_source_failed(&src);
  } else if (r->no_memory) {
    fprintf(stderr, "xrayctl: %s: out of memory\n", path);
    rc = 1;
  } else {
    struct print pr = {&src, r, key};
    sorting = &pr;
    qsort(r->rows, r->nrows, sizeof *r->rows, by_key);
    print_rows(&pr, top, csv);
    if (fflush(stdout) != 0) {
      perror("xrayctl: writing the report");
      rc = 1;
    }
  }
  report_free(r);
  ctl_source_close(&src);
  return rc;
}
