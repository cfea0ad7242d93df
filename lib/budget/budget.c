/* The overhead budget's controller: one thread of the runtime's own,
 * "xray-budget", that keeps the tracing cost under the budget.
 *
 * Each evaluation, on that thread only:
 *   1. follow the registry (a slice of functions per loaded object) and the
 *      keep patterns;
 *   2. unpatch the exits of the functions whose entries the last
 *      evaluation culled: calls that were running then have ended in the
 *      logs since (the entries go first, the exits one evaluation later);
 *   3. one sampling window (budget_window.h): per function its calls per
 *      second (exits over the window's wall time) and mean duration, and
 *      what the mode's handler cost per event;
 *   4. each function's state from the patcher (pinned: protected; culled;
 *      patched: traced, or protected when it matches the keep patterns);
 *      culled functions that now match the keep patterns are let back;
 *   5. the policy (budget_policy.h) with the cost model below, then the
 *      culling steps it asks for: XR_CULL_ENTRIES for the functions to
 *      cull, XR_UNCULL for those it lets back. A step the patcher refuses
 *      for now (ONGOING: the program patches) is tried at the next
 *      evaluation.
 *
 * The cost model: an event costs event_ns = (the mode's handler ticks per
 * event in the window, less the calibrated cost of timing it, + the
 * calibrated trampoline ticks) / ticks per ns. A
 * function costs 2 * event_ns * calls_per_s per second (an entry and an
 * exit). The program's CPU per second is the process's CPU time between
 * the last window and this one over that wall time. The windows' own cost
 * counts inside the budget, as a part of each event's: the wrapper's
 * calibrated ticks per event times the windows' duty cycle (a window over
 * the time from one window to the next), so culling a function also
 * removes what the windows spend on its events. This thread's own work (a
 * pass over the functions per evaluation) is not weighed against the
 * functions: culling would not make it smaller.
 *
 * The schedule (budget.h): a window at once, then every 10 ms while
 * evaluations change something, the interval doubling to 200 ms while they
 * do not; a new budget or keep list evaluates at once. While no built-in
 * mode records, windows find no handler and the thread only looks again
 * (a handler of the program's own is not measured: said once).
 *
 * Fork: the child inherits the patches, so the culled set carries over.
 * The thread is started again in the child only when the budget is on: a
 * child goes on running the parent's patched functions (a pre-forked
 * worker does the program's real work), and without its controller their
 * cost would go unmeasured and the functions the parent culled would stay
 * culled for good; a child with the budget off gets no thread, and one
 * that execs at once pays only the thread's creation. */
#define _GNU_SOURCE /* pthread_setname_np */
#include "budget/budget.h"

#include "budget/budget_options.h"
#include "budget/budget_policy.h"
#include "budget/budget_table.h"
#include "budget/budget_window.h"
#include "core/base/report.h"
#include "core/dispatch/hot_tables.h"
#include "core/modes/budget_hooks.h"
#include "core/options/options.h"
#include "core/patch/patch_api.h"
#include "core/thread/thread.h"
#include "xray/xray_interface.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the state the API and the thread share (under `control`) ---------- */

static pthread_mutex_t control = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake, done; /* CLOCK_MONOTONIC; set up by conds_ready() */
static bool conds_made;

struct summary {
  double estimate; /* share of the CPU time, after the last culls */
  uint64_t evaluations, measured, functions, traced, culled, kept;
  bool unmet;
};

static struct {
  double percent;  /* 0: off */
  bool alive;      /* the thread runs (it clears this as it ends) */
  bool unjoined;   /* `thread` ended or ends, not yet joined */
  pthread_t thread;
  bool exiting;    /* the process exits: the thread ends, culls nothing more */
  bool woken;      /* evaluate at once (a new budget or keep list) */
  bool ever_ran;
  bool unmet_said; /* for this budget */
  char keep[XR_BUDGET_KEEP_MAX];
  uint64_t keep_version; /* 1.. once set */
  struct summary summary;
} ctl;

static uint64_t start_ns; /* the first map */

static uint64_t clock_ns(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void conds_ready(void) {
  if (conds_made)
    return;
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_cond_init(&wake, &a);
  pthread_cond_init(&done, &a);
  pthread_condattr_destroy(&a);
  conds_made = true;
}

/* Waits on cond (control held) until *flag is false or ns pass. */
static void wait_until_clear(pthread_cond_t *cond, const bool *flag, uint64_t ns) {
  uint64_t until = clock_ns(CLOCK_MONOTONIC) + ns;
  struct timespec deadline = {(time_t)(until / 1000000000ull), (long)(until % 1000000000ull)};
  while (*flag && pthread_cond_timedwait(cond, &control, &deadline) != ETIMEDOUT) {
  }
}

/* ---- the thread's own state ---------------------------------------------- */

static struct xr_budget_calibration cal;
static bool calibrated;
static uint64_t interval_ns;
static bool have_last;             /* the times below are of this thread */
static uint64_t last_end_wall, last_end_cpu;
static double last_event_ns;
static char keep[XR_BUDGET_KEEP_MAX]; /* the thread's copy of ctl.keep */
static uint64_t keep_version;
static struct xr_budget_fn *work;  /* the functions weighed, key: object << 24 | index */
static uint32_t *cull_keys, *readmit_keys;
static size_t work_cap;
static bool told_own_handler;

static bool work_room(size_t n) {
  if (n <= work_cap)
    return true;
  size_t cap = work_cap ? work_cap : 1024;
  while (cap < n)
    cap *= 2;
  struct xr_budget_fn *w = realloc(work, cap * sizeof *w);
  if (w != NULL)
    work = w;
  uint32_t *c = realloc(cull_keys, cap * sizeof *c);
  if (c != NULL)
    cull_keys = c;
  uint32_t *r = realloc(readmit_keys, cap * sizeof *r);
  if (r != NULL)
    readmit_keys = r;
  if (w == NULL || c == NULL || r == NULL)
    return false;
  work_cap = cap;
  return true;
}

static uint32_t key_of(size_t object, size_t index) {
  return (uint32_t)(object << 24 | index);
}

/* The patcher's bits of slice `id`'s functions into its states[] (zero
 * past what it reports). */
static void read_states(size_t id, struct xr_budget_slice *s) {
  long n = xr_patch_function_states((int32_t)id, s->states, s->count);
  if (n < 0)
    n = 0;
  memset(s->states + n, 0, s->count - (size_t)n);
}

/* One culling step over slice id's select[]; SUCCESS, ONGOING or FAILED.
 * The notes follow what the patcher then says. */
static int step(size_t id, struct xr_budget_slice *s, enum xr_cull_step what,
                double cpu_ns_per_s, size_t *changed) {
  size_t n = 0;
  int rc = xr_patch_cull((int32_t)id, s->select, what, &n);
  *changed += n;
  if (rc != SUCCESS)
    return rc;
  uint64_t now = clock_ns(CLOCK_MONOTONIC);
  read_states(id, s);
  for (size_t i = 0; i < s->count; i++) {
    if (!s->select[i])
      continue;
    struct xr_budget_note *note = &s->notes[i];
    bool culled = s->states[i] & XR_FN_CULLED;
    if (what == XR_CULL_ENTRIES && culled) {
      note->culled_at_ns = now;
      note->calls_at_cull = s->fns[i].calls_per_s;
      note->share_at_cull = cpu_ns_per_s > 0 ? s->fns[i].cost_per_s / cpu_ns_per_s : 0;
      note->exits_due = true;
      note->state = XR_BUDGET_CULLED;
    } else if (what == XR_CULL_EXITS) {
      note->exits_due = note->exits_due && culled && (s->states[i] & XR_FN_EXITS_PATCHED);
    } else if (what == XR_UNCULL && !culled) {
      note->culled_at_ns = 0;
      note->exits_due = false;
      note->state = XR_BUDGET_TRACED;
    }
  }
  return rc;
}

/* Step 2: the exits of the functions whose entries were culled last time. */
static bool cull_due_exits(void) {
  size_t changed = 0;
  for (size_t id = 0; id < XR_MAX_OBJECTS; id++) {
    struct xr_budget_slice *s = &xr_budget_slices[id];
    bool any = false;
    for (size_t i = 0; i < s->count; i++)
      any |= s->notes[i].exits_due;
    if (!any)
      continue;
    read_states(id, s);
    for (size_t i = 0; i < s->count; i++) {
      bool due = s->notes[i].exits_due && (s->states[i] & XR_FN_CULLED) &&
                 (s->states[i] & XR_FN_EXITS_PATCHED);
      s->select[i] = due;
      if (!due)
        s->notes[i].exits_due = false; /* the user patched or unpatched it */
    }
    step(id, s, XR_CULL_EXITS, 0, &changed);
  }
  return changed > 0;
}

static void each_sample(const struct xr_budget_fn_sample *sample, void *arg) {
  (void)arg;
  if (sample->object < 0 || sample->object >= XR_MAX_OBJECTS)
    return;
  struct xr_budget_slice *s = &xr_budget_slices[sample->object];
  if (s->generation == 0 || sample->function < 1 || (size_t)sample->function > s->count)
    return;
  struct xr_budget_fn *f = &s->fns[sample->function - 1];
  /* raw for now: exits and ticks, scaled once the window's length is known.
   * One call ending in a window says too little of a rate to act on (main's
   * exit at the end would read as 500 calls a second): weighed from two. */
  f->calls_per_s = sample->exits >= XR_BUDGET_MIN_EXITS ? (double)sample->exits : 0;
  f->mean_ns = sample->timed ? (double)sample->timed_ticks / (double)sample->timed : -1;
}

static void clear_inputs(void) {
  for (size_t id = 0; id < XR_MAX_OBJECTS; id++) {
    struct xr_budget_slice *s = &xr_budget_slices[id];
    for (size_t i = 0; i < s->count; i++) {
      s->fns[i].calls_per_s = 0;
      s->fns[i].mean_ns = -1;
    }
  }
}

static void scale_inputs(uint64_t wall_ns) {
  double seconds = (double)(wall_ns ? wall_ns : 1) / 1e9;
  double ticks_per_ns = cal.ticks_per_ns > 0 ? cal.ticks_per_ns : 1;
  for (size_t id = 0; id < XR_MAX_OBJECTS; id++) {
    struct xr_budget_slice *s = &xr_budget_slices[id];
    for (size_t i = 0; i < s->count; i++) {
      s->fns[i].calls_per_s /= seconds;
      if (s->fns[i].mean_ns >= 0)
        s->fns[i].mean_ns /= ticks_per_ns;
    }
  }
}

/* Step 4: states, the keep patterns' let-backs, and the functions the
 * policy weighs into work[]; returns their number (0 also when no memory). */
static size_t weigh(size_t *let_back) {
  size_t n = 0;
  for (size_t id = 0; id < XR_MAX_OBJECTS; id++)
    n += xr_budget_slices[id].count;
  if (!work_room(n)) {
    static int said;
    xr_report_once(&said, XR_ERROR, "budget: no memory to weigh %zu functions; "
                   "nothing is culled", n);
    return 0;
  }
  n = 0;
  for (size_t id = 0; id < XR_MAX_OBJECTS; id++) {
    struct xr_budget_slice *s = &xr_budget_slices[id];
    if (s->count == 0)
      continue;
    read_states(id, s);
    bool back = false;
    for (size_t i = 0; i < s->count; i++) {
      uint8_t bits = s->states[i];
      struct xr_budget_note *note = &s->notes[i];
      struct xr_budget_fn *f = &s->fns[i];
      s->select[i] = 0;
      if (bits & XR_FN_CULLED) {
        note->state = XR_BUDGET_CULLED;
        f->calls_per_s = 0; /* its exits may still be patched: calls in flight */
        if (note->keep) {
          s->select[i] = 1;
          back = true;
          continue; /* let back below, not weighed */
        }
      } else if (bits & XR_FN_PATCHED) {
        note->state = (bits & XR_FN_PINNED) || note->keep ? XR_BUDGET_PROTECTED
                                                         : XR_BUDGET_TRACED;
        note->culled_at_ns = 0;
        note->exits_due = false;
      } else {
        note->state = XR_BUDGET_UNPATCHED;
        note->culled_at_ns = 0;
        note->exits_due = false;
        continue;
      }
      f->state = note->state;
      work[n] = *f;
      work[n].key = key_of(id, i);
      n++;
    }
    if (back)
      step(id, s, XR_UNCULL, 0, let_back);
  }
  return n;
}

/* Applies a list of keys (object << 24 | index) as one step per object. */
static size_t apply(const uint32_t *keys, size_t n, enum xr_cull_step what,
                    double cpu_ns_per_s, bool *retry) {
  size_t changed = 0;
  bool touched[XR_MAX_OBJECTS] = {false};
  for (size_t k = 0; k < n; k++) {
    size_t id = keys[k] >> 24;
    if (!touched[id])
      memset(xr_budget_slices[id].select, 0, xr_budget_slices[id].count);
    touched[id] = true;
    xr_budget_slices[id].select[keys[k] & 0xffffff] = 1;
  }
  for (size_t id = 0; id < XR_MAX_OBJECTS; id++)
    if (touched[id] &&
        step(id, &xr_budget_slices[id], what, cpu_ns_per_s, &changed) == ONGOING)
      *retry = true;
  return changed;
}

/* The summary of the slices as they are now (table lock held). */
static void tally(struct summary *out) {
  out->functions = out->traced = out->culled = out->kept = 0;
  for (size_t id = 0; id < XR_MAX_OBJECTS; id++) {
    const struct xr_budget_slice *s = &xr_budget_slices[id];
    for (size_t i = 0; i < s->count; i++) {
      uint8_t st = s->notes[i].state;
      if (st == XR_BUDGET_UNPATCHED)
        continue;
      out->functions++;
      out->culled += st == XR_BUDGET_CULLED;
      out->traced += st != XR_BUDGET_CULLED;
      out->kept += st == XR_BUDGET_PROTECTED;
    }
  }
}

/* The largest estimate kept: the policy says +INFINITY when the measured
 * cost is the program's whole CPU time or more (an estimate from 2 ms). */
#define SHARE_MAX 1000.0 /* 100000 % */

static double held(double share) {
  return share > 0 ? (share < SHARE_MAX ? share : SHARE_MAX) : 0; /* NaN: 0 */
}

/* "1.8" for a share of 0.018: tenths of a percent, rounded. */
static void share_text(double share, char *buf, size_t cap) {
  uint64_t tenths = (uint64_t)(held(share) * 1000 + 0.5);
  snprintf(buf, cap, "%llu.%llu", (unsigned long long)(tenths / 10),
           (unsigned long long)(tenths % 10));
}

static void say_unmet(double percent, double share) {
  pthread_mutex_lock(&control);
  bool said = ctl.unmet_said;
  ctl.unmet_said = true;
  pthread_mutex_unlock(&control);
  if (said)
    return;
  char p[32], s[48] = "more than all";
  xr_budget_percent_text(percent, p, sizeof p);
  if (held(share) < SHARE_MAX) {
    char number[32];
    share_text(share, number, sizeof number);
    snprintf(s, sizeof s, "%s %%", number);
  }
  xr_report(XR_ERROR, "budget %s %%: cannot be met: the functions it may not cull "
            "(chosen by exact name or id, or xray_budget_keep) cost about %s of "
            "the program's CPU time on their own; they stay traced", p, s);
}

static unsigned long long per_mille(double share) {
  return share >= 1e6 ? 1000000000ull : share > 0 ? (unsigned long long)(share * 1000 + 0.5) : 0;
}

/* One evaluation (table lock held). True when it changed something, so
 * the next comes soon. */
static bool evaluate(double percent, struct summary *sum) {
  sum->evaluations++;
  bool changed = xr_budget_table_sync();
  xr_budget_table_keep(keep, keep_version);
  changed |= cull_due_exits();
  uint64_t start_wall = clock_ns(CLOCK_MONOTONIC);
  uint64_t start_cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  double cpu_ns_per_s = -1;
  if (have_last && start_wall > last_end_wall)
    cpu_ns_per_s = (double)(start_cpu - last_end_cpu) * 1e9 / (double)(start_wall - last_end_wall);
  clear_inputs();
  struct xr_budget_window w = {0};
  int rc = xr_budget_window_run(XR_BUDGET_WINDOW_NS, each_sample, NULL, &w);
  last_end_wall = clock_ns(CLOCK_MONOTONIC);
  last_end_cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  have_last = true;
  if (rc == XR_BUDGET_WINDOW_NO_HANDLER) {
    if (__atomic_load_n(&xr_handler_full[XR_SLOT_ARG0], __ATOMIC_RELAXED) != NULL &&
        !told_own_handler) {
      told_own_handler = true;
      xr_report(XR_INFO, "budget: the program's own handler is installed; the "
                "budget measures only the built-in modes (basic, FDR, profiling) "
                "and culls nothing meanwhile");
    }
    return changed;
  }
  if (rc != XR_BUDGET_WINDOW_OK)
    return true; /* the handler changed meanwhile: look again soon */
  scale_inputs(w.wall_ns);
  if (cpu_ns_per_s < 0)
    cpu_ns_per_s = w.wall_ns ? (double)w.cpu_ns * 1e9 / (double)w.wall_ns : 0;
  double ticks_per_ns = cal.ticks_per_ns > 0 ? cal.ticks_per_ns : 1;
  if (w.events > 0) { /* the handler as timed, less the timing's own two reads */
    double handler = (double)w.handler_ticks / (double)w.events - cal.timer_ticks;
    last_event_ns = ((handler > 0 ? handler : 0) + cal.trampoline_ticks) / ticks_per_ns;
  }
  else if (last_event_ns <= 0)
    last_event_ns = cal.trampoline_ticks / ticks_per_ns;
  /* the windows' duty cycle, at the interval the schedule runs now */
  double duty = (double)XR_BUDGET_WINDOW_NS / (double)(interval_ns + XR_BUDGET_WINDOW_NS);
  double event_ns = last_event_ns + cal.window_ticks / ticks_per_ns * duty;
  size_t let_back = 0;
  size_t n = weigh(&let_back);
  changed |= let_back > 0;
  struct xr_budget_result res = {0};
  bool retry = false;
  if (n > 0 && cpu_ns_per_s > 0) {
    struct xr_budget_inputs in = {
        .budget = percent / 100,
        .event_ns = event_ns,
        .cpu_ns_per_s = cpu_ns_per_s,
        .overhead_ns_per_s = 0, /* the windows' cost is in event_ns */
        .now_ns = last_end_wall,
    };
    xr_budget_decide(work, n, &in, cull_keys, readmit_keys, &res);
    for (size_t k = 0; k < n; k++) { /* the policy's own fields, kept */
      struct xr_budget_fn *f =
          &xr_budget_slices[work[k].key >> 24].fns[work[k].key & 0xffffff];
      f->cost_per_s = work[k].cost_per_s;
      f->retry_at_ns = work[k].retry_at_ns;
      f->culls = work[k].culls;
    }
    changed |= apply(cull_keys, res.culled, XR_CULL_ENTRIES, cpu_ns_per_s, &retry) > 0;
    changed |= apply(readmit_keys, res.readmitted, XR_UNCULL, cpu_ns_per_s, &retry) > 0;
    xr_report(XR_DEBUG, "budget: evaluation %llu: %zu functions, CPU %llu ns/s, event "
              "%llu ps, estimate %llu -> %llu per mille, %zu culled, %zu let back",
              (unsigned long long)sum->evaluations, n, (unsigned long long)cpu_ns_per_s,
              (unsigned long long)(event_ns * 1000), per_mille(res.share_before),
              per_mille(res.share_after), res.culled, res.readmitted);
    sum->estimate = held(res.share_after);
    sum->unmet = res.unmet;
    if (res.unmet)
      say_unmet(percent, res.share_after);
  }
  tally(sum);
  sum->measured++;
  return changed || retry;
}

/* Patches again every function the budget culled (the budget is off).
 * False while the patcher is busy with a user's call. */
static bool uncull_all(void) {
  bool busy = false;
  xr_lock_take(&xr_budget_table_lock);
  xr_budget_table_sync();
  for (size_t id = 0; id < XR_MAX_OBJECTS; id++) {
    struct xr_budget_slice *s = &xr_budget_slices[id];
    if (s->count == 0)
      continue;
    read_states(id, s);
    bool any = false;
    for (size_t i = 0; i < s->count; i++) {
      s->select[i] = (s->states[i] & XR_FN_CULLED) != 0;
      any |= s->select[i];
    }
    size_t changed = 0;
    if (any && step(id, s, XR_UNCULL, 0, &changed) == ONGOING)
      busy = true;
  }
  struct summary sum;
  tally(&sum);
  xr_lock_release(&xr_budget_table_lock);
  pthread_mutex_lock(&control);
  ctl.summary.functions = sum.functions;
  ctl.summary.traced = sum.traced;
  ctl.summary.culled = sum.culled;
  ctl.summary.kept = sum.kept;
  ctl.summary.estimate = 0;
  ctl.summary.unmet = false;
  pthread_mutex_unlock(&control);
  return !busy;
}

/* The budget is off: patch back, ending the thread unless it is turned on
 * again meanwhile. True when the thread ends. */
static bool turn_off(void) {
  for (int tries = 0; !uncull_all(); tries++) {
    if (tries == 5000) { /* 5 s of a patcher busy with the program's calls */
      xr_report(XR_ERROR, "budget: the patcher stayed busy; some functions the "
                "budget culled stay unpatched (patch them with __xray_patch)");
      break;
    }
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  pthread_mutex_lock(&control);
  bool end = ctl.percent == 0 || ctl.exiting;
  if (end) {
    ctl.alive = false;
    pthread_cond_broadcast(&done);
  }
  pthread_mutex_unlock(&control);
  return end;
}

static void *budget_main(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "xray-budget");
  if (!calibrated) {
    xr_budget_calibrate(&cal);
    calibrated = true;
  }
  have_last = false;
  interval_ns = XR_BUDGET_INTERVAL_MIN_NS;
  pthread_mutex_lock(&control);
  ctl.woken = false; /* the call that started it asked for the first window */
  pthread_mutex_unlock(&control);
  for (;;) {
    pthread_mutex_lock(&control);
    double percent = ctl.percent;
    bool exiting = ctl.exiting;
    if (keep_version != ctl.keep_version) {
      memcpy(keep, ctl.keep, sizeof keep);
      keep_version = ctl.keep_version;
    }
    struct summary sum = ctl.summary;
    pthread_mutex_unlock(&control);
    if (exiting)
      break;
    if (percent == 0) {
      if (turn_off())
        return NULL;
      continue;
    }
    xr_lock_take(&xr_budget_table_lock);
    bool changed = evaluate(percent, &sum);
    xr_lock_release(&xr_budget_table_lock);
    interval_ns = changed ? XR_BUDGET_INTERVAL_MIN_NS
                : interval_ns >= XR_BUDGET_INTERVAL_MAX_NS / 2 ? XR_BUDGET_INTERVAL_MAX_NS
                                                            : interval_ns * 2;
    pthread_mutex_lock(&control);
    ctl.summary = sum;
    if (!ctl.woken && !ctl.exiting && ctl.percent == percent) {
      uint64_t until = clock_ns(CLOCK_MONOTONIC) + interval_ns;
      struct timespec deadline = {(time_t)(until / 1000000000ull),
                                  (long)(until % 1000000000ull)};
      while (!ctl.woken && !ctl.exiting &&
             pthread_cond_timedwait(&wake, &control, &deadline) != ETIMEDOUT) {
      }
    }
    if (ctl.woken)
      interval_ns = XR_BUDGET_INTERVAL_MIN_NS;
    ctl.woken = false;
    pthread_mutex_unlock(&control);
  }
  pthread_mutex_lock(&control);
  ctl.alive = false;
  pthread_cond_broadcast(&done);
  pthread_mutex_unlock(&control);
  return NULL;
}

static void after_fork_child(void);

/* Starts the thread (control held). XRAY_BUDGET_OK or NO_THREAD. */
static int start_locked(void) {
  static bool set_up;
  if (!set_up) {
    set_up = true;
    if (start_ns == 0)
      start_ns = clock_ns(CLOCK_MONOTONIC);
    if (xr_budget_window_setup() != 0 || xr_thread_on_fork_child(after_fork_child) != 0)
      xr_report(XR_ERROR, "budget: no fork hook left; a fork child's budget "
                "does not run");
  }
  conds_ready();
  if (ctl.unjoined) /* the last one ended (alive is false): at once */
    pthread_join(ctl.thread, NULL);
  ctl.unjoined = false;
  int rc = xr_thread_start_own(budget_main, NULL, &ctl.thread);
  if (rc != 0) {
    xr_report(XR_ERROR, "budget: no thread (%s); the budget is off", strerror(rc));
    ctl.percent = 0;
    return XRAY_BUDGET_NO_THREAD;
  }
  ctl.alive = true;
  ctl.unjoined = true;
  __atomic_store_n(&ctl.ever_ran, true, __ATOMIC_RELEASE);
  return XRAY_BUDGET_OK;
}

/* In a fork child: only the forking thread lives on. */
static void after_fork_child(void) {
  pthread_mutex_init(&control, NULL);
  conds_made = false;
  conds_ready();
  if (xr_lock_is_held(&xr_budget_table_lock))
    xr_budget_table_forget(); /* the parent's thread was changing them */
  ctl.alive = false;
  ctl.unjoined = false; /* the parent's thread, not this process's */
  ctl.woken = false;
  if (ctl.percent > 0 && !ctl.exiting)
    start_locked();
}

int xr_budget_set(double percent) {
  int rc = XRAY_BUDGET_OK;
  pthread_mutex_lock(&control);
  if (ctl.percent != percent)
    ctl.unmet_said = false;
  ctl.percent = percent;
  ctl.woken = true;
  if (percent > 0 && !ctl.alive && !ctl.exiting)
    rc = start_locked();
  if (conds_made) {
    pthread_cond_broadcast(&wake);
    if (percent == 0) { /* the thread patches back, then ends */
      wait_until_clear(&done, &ctl.alive, 10ull * 1000000000ull);
      if (!ctl.alive && ctl.unjoined) { /* it needs `control` no more */
        pthread_join(ctl.thread, NULL);
        ctl.unjoined = false;
      }
    }
  }
  pthread_mutex_unlock(&control);
  return rc;
}

void xr_budget_set_keep(const char *patterns) {
  pthread_mutex_lock(&control);
  snprintf(ctl.keep, sizeof ctl.keep, "%s", patterns);
  ctl.keep_version++;
  ctl.woken = true;
  if (conds_made)
    pthread_cond_broadcast(&wake);
  pthread_mutex_unlock(&control);
}

void xr_budget_get_status(struct XRayBudgetStatus *out) {
  pthread_mutex_lock(&control);
  const struct summary *s = &ctl.summary;
  *out = (struct XRayBudgetStatus){
      .percent = ctl.percent,
      .estimated_percent = s->estimate * 100,
      .evaluations = s->evaluations,
      .functions = s->functions,
      .traced = s->traced,
      .culled = s->culled,
      .kept = s->kept,
      .unmet = s->unmet,
      .running = ctl.alive,
  };
  pthread_mutex_unlock(&control);
}

/* Without a lock: set once, before the thread starts; a program without a
 * budget takes no lock of the budget's at exit or at a flush. */
bool xr_budget_ever_ran(void) { return __atomic_load_n(&ctl.ever_ran, __ATOMIC_ACQUIRE); }

double xr_budget_seconds_since_start(uint64_t monotonic_ns) {
  return monotonic_ns > start_ns ? (double)(monotonic_ns - start_ns) / 1e9 : 0;
}

/* ---- core's hooks (core/modes/budget_hooks.h) ------------------------------ */

void xr_budget_first_map(void) {
  static bool read;
  if (read)
    return;
  read = true;
  start_ns = clock_ns(CLOCK_MONOTONIC);
  if (xr_flags.xray_budget_keep[0] != '\0')
    xr_budget_set_keep(xr_flags.xray_budget_keep);
  double percent = xr_budget_option_percent();
  if (percent > 0)
    xr_budget_set(percent);
}

/* "1,204": thousands apart, as the summary line writes counts. */
static const char *grouped(uint64_t v, char buf[32]) {
  char digits[24];
  size_t d = 0, n = 0;
  do {
    digits[d++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (d > 0) {
    buf[n++] = digits[--d];
    if (d > 0 && d % 3 == 0)
      buf[n++] = ',';
  }
  buf[n] = '\0';
  return buf;
}

void xr_budget_at_exit(void) {
  if (!xr_budget_ever_ran())
    return;
  pthread_mutex_lock(&control);
  ctl.exiting = true;
  if (conds_made) {
    pthread_cond_broadcast(&wake);
    /* The thread ends its evaluation (a window is 2 ms); one stuck behind a
     * lock the exiting thread holds is not waited for long. */
    wait_until_clear(&done, &ctl.alive, 500ull * 1000000ull);
  }
  struct summary s = ctl.summary;
  double percent = ctl.percent;
  bool join = !ctl.alive && ctl.unjoined; /* it needs `control` no more */
  ctl.unjoined = ctl.unjoined && !join;
  pthread_t thread = ctl.thread;
  pthread_mutex_unlock(&control);
  if (join)
    pthread_join(thread, NULL);
  char p[32], traced[32], functions[32], culled[32], est[32];
  if (percent > 0)
    xr_budget_percent_text(percent, p, sizeof p);
  else
    snprintf(p, sizeof p, "off");
  if (s.measured == 0) {
    xr_report(XR_INFO, "budget %s%s: nothing measured (no built-in mode recorded "
              "while it ran)", p, percent > 0 ? " %" : "");
    return;
  }
  share_text(s.estimate, est, sizeof est);
  xr_report(XR_INFO, "budget %s%s: %s of %s functions traced, %s culled, est. cost %s %%",
            p, percent > 0 ? " %" : "", grouped(s.traced, traced),
            grouped(s.functions, functions), grouped(s.culled, culled), est);
}
