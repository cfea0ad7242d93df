/* One evaluation of the overhead budget (budget_evaluate.h), on the
 * budget's thread only:
 *   1. follow the registry (a slice of functions per loaded object) and the
 *      keep patterns;
 *   2. unpatch the exits of the functions whose entries an earlier step
 *      culled and whose exits could not be unpatched then (the patcher
 *      was busy);
 *   3. one sampling window (budget_window.h): per function its calls per
 *      second (exits over the window's wall time) and mean duration, and
 *      what the mode's handler cost per event;
 *   4. each function's state from the patcher (pinned: protected; culled;
 *      patched: traced, or protected when it matches the keep patterns);
 *      culled functions that now match the keep patterns are let back;
 *   5. the policy (budget_policy.h) with the cost model below, then the
 *      culling steps it asks for: XR_CULL_ENTRIES for the functions to
 *      cull, XR_CULL_EXITS for them XR_BUDGET_EXITS_GRACE_NS later (the
 *      calls running at the cull end in the logs meanwhile), XR_UNCULL for
 *      those it lets back. A step the patcher refuses
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
 * functions: culling would not make it smaller. */
#include "budget/budget_evaluate.h"

#include "budget/budget_policy.h"
#include "budget/budget_table.h"
#include "budget/budget_window.h"
#include "core/base/report.h"
#include "core/dispatch/hot_tables.h"
#include "core/patch/patch_api.h"
#include "xray/xray_interface.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t xr_budget_clock_ns(int clock_id) {
  struct timespec t;
  clock_gettime((clockid_t)clock_id, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static struct xr_budget_calibration cal;
static bool calibrated;
static bool have_last;             /* the times below are of this thread */
static uint64_t last_end_wall, last_end_cpu;
static double last_event_ns;
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
  uint64_t now = xr_budget_clock_ns(CLOCK_MONOTONIC);
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

/* The functions the last evaluation let back, patched again just before
 * this window: one that is still costly is culled again after 2 ms of it
 * rather than a whole interval. */
static bool let_back_due(void) {
  size_t changed = 0;
  for (size_t id = 0; id < XR_MAX_OBJECTS; id++) {
    struct xr_budget_slice *s = &xr_budget_slices[id];
    bool any = false;
    for (size_t i = 0; i < s->count; i++) {
      s->select[i] = s->notes[i].back_due;
      any |= s->notes[i].back_due;
      s->notes[i].back_due = false;
    }
    if (any)
      step(id, s, XR_UNCULL, 0, &changed);
  }
  return changed > 0;
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
static void tally(struct xr_budget_summary *out) {
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

static double held(double share) {
  return share > 0 ? (share < XR_BUDGET_SHARE_MAX ? share : XR_BUDGET_SHARE_MAX) : 0; /* NaN: 0 */
}

void xr_budget_share_text(double share, char *buf, size_t cap) {
  uint64_t tenths = (uint64_t)(held(share) * 1000 + 0.5);
  snprintf(buf, cap, "%llu.%llu", (unsigned long long)(tenths / 10),
           (unsigned long long)(tenths % 10));
}

static unsigned long long per_mille(double share) {
  return share >= 1e6 ? 1000000000ull : share > 0 ? (unsigned long long)(share * 1000 + 0.5) : 0;
}

/* One evaluation (table lock held). */
static bool evaluate(const struct xr_budget_plan *plan, struct xr_budget_summary *sum) {
  sum->evaluations++;
  bool changed = xr_budget_table_sync();
  xr_budget_table_keep(plan->keep, plan->keep_version);
  changed |= cull_due_exits();
  changed |= let_back_due();
  uint64_t prev_end_cpu = last_end_cpu;
  bool had_last = have_last;
  uint64_t start_wall = xr_budget_clock_ns(CLOCK_MONOTONIC);
  uint64_t start_cpu = xr_budget_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  double cpu_ns_per_s = -1;
  if (have_last && start_wall > last_end_wall)
    cpu_ns_per_s = (double)(start_cpu - last_end_cpu) * 1e9 / (double)(start_wall - last_end_wall);
  clear_inputs();
  struct xr_budget_window w = {0};
  int rc = xr_budget_window_run(XR_BUDGET_WINDOW_NS, each_sample, NULL, &w);
  last_end_wall = xr_budget_clock_ns(CLOCK_MONOTONIC);
  last_end_cpu = xr_budget_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
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
  double duty = (double)XR_BUDGET_WINDOW_NS / (double)(plan->interval_ns + XR_BUDGET_WINDOW_NS);
  double event_ns = last_event_ns + cal.window_ticks / ticks_per_ns * duty;
  size_t let_back = 0;
  size_t n = weigh(&let_back);
  changed |= let_back > 0;
  struct xr_budget_result res = {0};
  bool retry = false;
  if (n > 0 && cpu_ns_per_s > 0) {
    struct xr_budget_inputs in = {
        .budget = plan->percent / 100,
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
    if (apply(cull_keys, res.culled, XR_CULL_ENTRIES, cpu_ns_per_s, &retry) > 0) {
      changed = true;
      struct timespec grace = {0, (long)XR_BUDGET_EXITS_GRACE_NS};
      nanosleep(&grace, NULL);
      cull_due_exits();
    }
    for (size_t k = 0; k < res.readmitted; k++) /* before the next window */
      xr_budget_slices[readmit_keys[k] >> 24].notes[readmit_keys[k] & 0xffffff].back_due = true;
    changed |= res.readmitted > 0;
    /* the run's cost so far: this interval's CPU time at the share found */
    double interval_cpu = (double)(had_last ? last_end_cpu - prev_end_cpu : w.cpu_ns);
    double share = res.share_before > 0 ? held(res.share_before) : 0;
    sum->run_cost_ns += interval_cpu * share / (1 + share);
    sum->run_cpu_ns += interval_cpu;
    xr_report(XR_DEBUG, "budget: evaluation %llu: %zu functions, CPU %llu ns/s, event "
              "%llu ps, estimate %llu -> %llu per mille, %zu culled, %zu let back",
              (unsigned long long)sum->evaluations, n, (unsigned long long)cpu_ns_per_s,
              (unsigned long long)(event_ns * 1000), per_mille(res.share_before),
              per_mille(res.share_after), res.culled, res.readmitted);
    sum->estimate = held(res.share_after);
    sum->unmet = res.unmet;
  }
  tally(sum);
  sum->measured++;
  return changed || retry;
}

bool xr_budget_uncull_all(struct xr_budget_summary *sum) {
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
  tally(sum);
  xr_lock_release(&xr_budget_table_lock);
  sum->estimate = 0;
  sum->unmet = false;
  return !busy;
}

bool xr_budget_evaluate(const struct xr_budget_plan *plan, struct xr_budget_summary *sum) {
  xr_lock_take(&xr_budget_table_lock);
  bool changed = evaluate(plan, sum);
  xr_lock_release(&xr_budget_table_lock);
  return changed;
}

void xr_budget_evaluation_start(void) {
  if (!calibrated) {
    xr_budget_calibrate(&cal);
    calibrated = true;
  }
  /* the CPU time of the first interval is weighed from here */
  last_end_wall = xr_budget_clock_ns(CLOCK_MONOTONIC);
  last_end_cpu = xr_budget_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  have_last = true;
}
