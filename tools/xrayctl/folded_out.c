/* Folded stacks, streamed in, written at close. See folded_out.h. */
#define _GNU_SOURCE
#include "folded_out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct node {
  int32_t fid;
  uint32_t parent, first_child, last_child, next_sibling; /* 0: none (root's 0) */
  uint32_t depth;
  uint64_t self; /* ticks */
};

/* An open call (trace) or a node whose callees are still coming (profile). */
struct frame {
  int32_t fid;
  uint32_t node;
  uint64_t tsc, callees; /* profile: tsc holds the node's ticks */
};

struct thread {
  int32_t pid, tid;
  bool used;
  uint64_t last_tsc;
  struct frame *stack;
  size_t depth, cap;
};

struct folded {
  FILE *out;
  char path[4096];
  uint64_t hz;
  xr_fn_name_fn name;
  void *name_ctx;
  struct node *nodes; /* [0] is the root */
  size_t nnodes, nodes_cap;
  uint32_t *slots; /* (parent, fid) -> node, open addressing */
  size_t slots_cap;
  struct thread *threads;
  size_t nthreads, threads_cap;
  struct thread profile; /* a profile's path, one thread at a time */
  uint64_t profile_tid;
  bool no_memory;
};

static size_t mix(uint64_t v) { return (size_t)((v * 0x9E3779B97F4A7C15ull) >> 20); }
static size_t key_of(uint32_t parent, int32_t fid) {
  return mix((uint64_t)parent << 32 | (uint32_t)fid);
}

static bool grow_slots(struct folded *f) {
  size_t cap = f->slots_cap ? 2 * f->slots_cap : 4096;
  uint32_t *fresh = calloc(cap, sizeof *fresh);
  if (fresh == NULL)
    return false;
  for (size_t i = 1; i < f->nnodes; i++) {
    size_t s = key_of(f->nodes[i].parent, f->nodes[i].fid) & (cap - 1);
    while (fresh[s] != 0)
      s = (s + 1) & (cap - 1);
    fresh[s] = (uint32_t)i;
  }
  free(f->slots);
  f->slots = fresh;
  f->slots_cap = cap;
  return true;
}

/* The child of parent for fid, made (last among its siblings) if new;
 * 0 when out of memory. */
static uint32_t child(struct folded *f, uint32_t parent, int32_t fid) {
  size_t s = key_of(parent, fid) & (f->slots_cap - 1);
  for (; f->slots[s] != 0; s = (s + 1) & (f->slots_cap - 1)) {
    const struct node *n = &f->nodes[f->slots[s]];
    if (n->parent == parent && n->fid == fid)
      return f->slots[s];
  }
  if ((f->nnodes + 1) * 2 > f->slots_cap || f->nnodes == f->nodes_cap) {
    if (f->nnodes == f->nodes_cap) {
      size_t cap = 2 * f->nodes_cap;
      struct node *bigger = cap <= UINT32_MAX ? realloc(f->nodes, cap * sizeof *bigger)
                                              : NULL;
      if (bigger == NULL)
        return 0;
      f->nodes = bigger;
      f->nodes_cap = cap;
    }
    if ((f->nnodes + 1) * 2 > f->slots_cap && !grow_slots(f))
      return 0;
    s = key_of(parent, fid) & (f->slots_cap - 1);
    while (f->slots[s] != 0)
      s = (s + 1) & (f->slots_cap - 1);
  }
  uint32_t id = (uint32_t)f->nnodes++;
  struct node *p = &f->nodes[parent];
  f->nodes[id] = (struct node){.fid = fid, .parent = parent, .depth = p->depth + 1};
  if (p->last_child)
    f->nodes[p->last_child].next_sibling = id;
  else
    p->first_child = id;
  p->last_child = id;
  f->slots[s] = id;
  return id;
}

/* Where a call of fid from folded node at goes: the nearest frame on the
 * path with that function (recursion folded), else at's child. */
static uint32_t fold_target(struct folded *f, uint32_t at, int32_t fid) {
  for (uint32_t a = at; a != 0; a = f->nodes[a].parent)
    if (f->nodes[a].fid == fid)
      return a;
  return child(f, at, fid);
}

static bool push(struct folded *f, struct thread *t, struct frame fr) {
  if (t->depth == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 64;
    struct frame *bigger = realloc(t->stack, cap * sizeof *bigger);
    if (bigger == NULL) {
      f->no_memory = true;
      return false;
    }
    t->stack = bigger;
    t->cap = cap;
  }
  t->stack[t->depth++] = fr;
  return true;
}

/* ---- a trace ------------------------------------------------------------ */

static size_t thread_slot(size_t cap, int32_t pid, int32_t tid) {
  return mix((uint64_t)(uint32_t)pid << 32 | (uint32_t)tid) & (cap - 1);
}

static struct thread *thread_of(struct folded *f, int32_t pid, int32_t tid) {
  if (f->threads_cap != 0)
    for (size_t s = thread_slot(f->threads_cap, pid, tid); f->threads[s].used;
         s = (s + 1) & (f->threads_cap - 1))
      if (f->threads[s].pid == pid && f->threads[s].tid == tid)
        return &f->threads[s];
  if ((f->nthreads + 1) * 2 > f->threads_cap) {
    size_t cap = f->threads_cap ? 2 * f->threads_cap : 64;
    struct thread *fresh = calloc(cap, sizeof *fresh);
    if (fresh == NULL)
      return NULL;
    for (size_t i = 0; i < f->threads_cap; i++) {
      if (!f->threads[i].used)
        continue;
      size_t s = thread_slot(cap, f->threads[i].pid, f->threads[i].tid);
      while (fresh[s].used)
        s = (s + 1) & (cap - 1);
      fresh[s] = f->threads[i];
    }
    free(f->threads);
    f->threads = fresh;
    f->threads_cap = cap;
  }
  size_t s = thread_slot(f->threads_cap, pid, tid);
  while (f->threads[s].used)
    s = (s + 1) & (f->threads_cap - 1);
  f->threads[s] = (struct thread){.pid = pid, .tid = tid, .used = true};
  f->nthreads++;
  return &f->threads[s];
}

/* Ends t's top call at tsc. */
static void pop_call(struct folded *f, struct thread *t, uint64_t tsc) {
  struct frame *fr = &t->stack[--t->depth];
  uint64_t d = tsc > fr->tsc ? tsc - fr->tsc : 0;
  f->nodes[fr->node].self += d > fr->callees ? d - fr->callees : 0;
  if (t->depth > 0)
    t->stack[t->depth - 1].callees += d;
}

static void on_event(void *w, int32_t pid, int32_t tid, const struct xr_tev *e) {
  struct folded *f = w;
  struct thread *t = thread_of(f, pid, tid);
  if (t == NULL) {
    f->no_memory = true;
    return;
  }
  if (e->tsc > t->last_tsc)
    t->last_tsc = e->tsc;
  if (e->kind == XR_TEV_ENTER) {
    uint32_t at = t->depth ? t->stack[t->depth - 1].node : 0;
    uint32_t node = fold_target(f, at, e->fid);
    if (node == 0)
      f->no_memory = true;
    else
      push(f, t, (struct frame){e->fid, node, e->tsc, 0});
    return;
  }
  if (e->kind != XR_TEV_EXIT && e->kind != XR_TEV_TAIL_EXIT)
    return;
  size_t i = t->depth;
  while (i > 0 && t->stack[i - 1].fid != e->fid)
    i--;
  if (i == 0)
    return; /* its entry is not in the trace */
  while (t->depth >= i)
    pop_call(f, t, e->tsc);
}

/* ---- a profile ---------------------------------------------------------- */

static void end_profile_path(struct folded *f, size_t depth) {
  struct thread *t = &f->profile;
  while (t->depth > depth) {
    struct frame *fr = &t->stack[--t->depth];
    f->nodes[fr->node].self += fr->tsc > fr->callees ? fr->tsc - fr->callees : 0;
  }
}

void ctl_folded_node(void *w, const struct ctl_profile_node *n) {
  struct folded *f = w;
  if (f->profile.used && n->tid != f->profile_tid)
    end_profile_path(f, 0);
  f->profile.used = true;
  f->profile_tid = n->tid;
  end_profile_path(f, n->depth - 1);
  struct thread *t = &f->profile;
  if (t->depth != n->depth - 1)
    return; /* not nested under the node before: not a tree written depth first */
  uint32_t at = t->depth ? t->stack[t->depth - 1].node : 0;
  uint32_t node = fold_target(f, at, n->path[0]);
  if (node == 0) {
    f->no_memory = true;
    return;
  }
  if (t->depth > 0)
    t->stack[t->depth - 1].callees += n->ticks;
  push(f, t, (struct frame){n->path[0], node, n->ticks, 0});
}

/* ---- the file ----------------------------------------------------------- */

static void *folded_open(int fd, const char *path, const struct xr_trace_context *c) {
  struct folded *f = calloc(1, sizeof *f);
  FILE *out = f ? fdopen(fd, "w") : NULL;
  if (f != NULL) {
    f->out = out;
    f->nodes_cap = 4096;
    f->nodes = calloc(f->nodes_cap, sizeof *f->nodes);
  }
  if (out == NULL || f->nodes == NULL || !grow_slots(f)) {
    fprintf(stderr, "xrayctl: %s: out of memory\n", path);
    if (out != NULL)
      fclose(out);
    else
      close(fd);
    if (f != NULL)
      free(f->nodes);
    free(f);
    return NULL;
  }
  setvbuf(f->out, NULL, _IOFBF, 1 << 20);
  snprintf(f->path, sizeof f->path, "%s", path);
  f->nnodes = 1;
  f->hz = c->frequency_hz ? c->frequency_hz : 1000000000u;
  f->name = c->name;
  f->name_ctx = c->name_ctx;
  return f;
}

/* Depth first; each line is its parent's line (kept in `line` by depth)
 * and its own name. */
static int write_lines(struct folded *f) {
  size_t cap = 4096;
  char *line = malloc(cap);
  size_t *len_at = calloc(f->nnodes + 1, sizeof *len_at); /* depth -> prefix length */
  if (line == NULL || len_at == NULL) {
    free(line);
    free(len_at);
    return -1;
  }
  uint32_t n = f->nodes[0].first_child;
  while (n != 0) {
    const struct node *x = &f->nodes[n];
    const char *name = f->name(f->name_ctx, x->fid);
    size_t keep = x->depth > 1 ? len_at[x->depth - 1] : 0, add = strlen(name) + 1;
    if (keep + add + 1 > cap) {
      cap = 2 * (keep + add + 1);
      char *bigger = realloc(line, cap);
      if (bigger == NULL) {
        free(line);
        free(len_at);
        return -1;
      }
      line = bigger;
    }
    size_t at = keep;
    if (x->depth > 1)
      line[at++] = ';';
    for (const char *s = name; *s; s++) {
      char c = *s;
      if (c == ';' || c == ' ' || c == '\n' || c == '\t')
        c = '_'; /* the format's separators, as the runtime's view writes */
      line[at++] = c;
    }
    len_at[x->depth] = at;
    fwrite(line, 1, at, f->out);
    fprintf(f->out, " %llu\n",
            (unsigned long long)((unsigned __int128)x->self * 1000000000u / f->hz));
    /* next in pre-order */
    if (x->first_child) {
      n = x->first_child;
      continue;
    }
    while (n != 0 && f->nodes[n].next_sibling == 0)
      n = f->nodes[n].parent;
    n = n ? f->nodes[n].next_sibling : 0;
  }
  free(line);
  free(len_at);
  return 0;
}

static int folded_close(void *w) {
  struct folded *f = w;
  for (size_t i = 0; i < f->threads_cap; i++) {
    struct thread *t = &f->threads[i];
    while (t->used && t->depth > 0)
      pop_call(f, t, t->last_tsc); /* still open: ends at the thread's last event */
    free(t->stack);
  }
  end_profile_path(f, 0);
  free(f->profile.stack);
  int rc = f->no_memory ? -1 : write_lines(f);
  if (f->no_memory)
    fprintf(stderr, "xrayctl: %s: out of memory\n", f->path);
  if (fclose(f->out) != 0 || rc != 0) {
    if (!f->no_memory)
      fprintf(stderr, "xrayctl: writing '%s' failed: %s\n", f->path, strerror(errno));
    rc = -1;
  }
  free(f->threads);
  free(f->nodes);
  free(f->slots);
  free(f);
  return rc;
}

const struct xr_trace_format ctl_folded_format = {".folded", folded_open, on_event,
                                                  folded_close, false};
