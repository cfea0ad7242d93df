/* The overhead budget's controller: one thread of the runtime's own,
 * "xray-budget", that keeps the tracing cost under the budget by running
 * evaluations (budget_evaluate.c) on a schedule; starting and stopping it
 * (the API, the control socket, XRAY_OPTIONS at the first map, exit).
 *
 * The schedule (budget.h): a first window after 10 ms, then every 10 ms while
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

#include "budget/budget_evaluate.h"
#include "budget/budget_options.h"
#include "budget/budget_table.h"
#include "budget/budget_window.h"
#include "core/base/report.h"
#include "core/modes/budget_hooks.h"
#include "core/options/options.h"
#include "core/thread/thread.h"

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
  struct xr_budget_summary summary;
} ctl;

static uint64_t start_ns; /* the first map */

static uint64_t clock_ns(clockid_t id) { return xr_budget_clock_ns(id); }

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

/* The budget cannot be met: said once per budget. */
static void say_unmet(double percent, double share) {
  pthread_mutex_lock(&control);
  bool said = ctl.unmet_said;
  ctl.unmet_said = true;
  pthread_mutex_unlock(&control);
  if (said)
    return;
  char p[32], s[48] = "more than all";
  xr_budget_percent_text(percent, p, sizeof p);
  if (share < XR_BUDGET_SHARE_MAX) {
    char number[32];
    xr_budget_share_text(share, number, sizeof number);
    snprintf(s, sizeof s, "%s %%", number);
  }
  xr_report(XR_ERROR, "budget %s %%: cannot be met: the functions it may not cull "
            "(chosen by exact name or id, or xray_budget_keep) cost about %s of "
            "the program's CPU time on their own; they stay traced", p, s);
}

/* The budget is off: patch back, ending the thread unless it is turned on
 * again meanwhile. True when the thread ends. */
static bool turn_off(void) {
  struct xr_budget_summary sum;
  pthread_mutex_lock(&control);
  sum = ctl.summary;
  pthread_mutex_unlock(&control);
  for (int tries = 0; !xr_budget_uncull_all(&sum); tries++) {
    if (tries == 5000) { /* 5 s of a patcher busy with the program's calls */
      xr_report(XR_ERROR, "budget: the patcher stayed busy; some functions the "
                "budget culled stay unpatched (patch them with __xray_patch)");
      break;
    }
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  pthread_mutex_lock(&control);
  ctl.summary = sum;
  bool end = ctl.percent == 0 || ctl.exiting;
  if (end) {
    ctl.alive = false;
    pthread_cond_broadcast(&done);
  }
  pthread_mutex_unlock(&control);
  return end;
}

/* Waits (control held) for interval_ns, or less when a call wakes the
 * thread or the program exits; a wake asks for the next window at once
 * and at the shortest interval after it. */
static void wait_interval(uint64_t interval_ns, uint64_t *next_interval_ns) {
  if (!ctl.woken && !ctl.exiting) {
    uint64_t until = clock_ns(CLOCK_MONOTONIC) + interval_ns;
    struct timespec deadline = {(time_t)(until / 1000000000ull), (long)(until % 1000000000ull)};
    while (!ctl.woken && !ctl.exiting &&
           pthread_cond_timedwait(&wake, &control, &deadline) != ETIMEDOUT) {
    }
  }
  if (ctl.woken)
    *next_interval_ns = XR_BUDGET_INTERVAL_MIN_NS;
  ctl.woken = false;
}

static void *budget_main(void *arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "xray-budget");
  xr_budget_evaluation_start();
  uint64_t interval_ns = XR_BUDGET_INTERVAL_MIN_NS;
  static char keep[XR_BUDGET_KEEP_MAX]; /* this thread's copy of ctl.keep */
  uint64_t keep_version = 0;
  pthread_mutex_lock(&control);
  ctl.woken = false; /* the call that started it asked for the first window */
  pthread_mutex_unlock(&control);
  for (;;) {
    /* The first window too comes an interval after the start: the CPU
     * time the program spends in it is what a window's events are weighed
     * against (a window's own CPU time says little: at the first map the
     * program may still be starting, or blocked). */
    pthread_mutex_lock(&control);
    wait_interval(interval_ns, &interval_ns);
    double percent = ctl.percent;
    bool exiting = ctl.exiting;
    if (keep_version != ctl.keep_version) {
      memcpy(keep, ctl.keep, sizeof keep);
      keep_version = ctl.keep_version;
    }
    struct xr_budget_summary sum = ctl.summary;
    pthread_mutex_unlock(&control);
    if (exiting)
      break;
    if (percent == 0) {
      if (turn_off())
        return NULL;
      continue;
    }
    struct xr_budget_plan plan = {percent, interval_ns, keep, keep_version};
    bool changed = xr_budget_evaluate(&plan, &sum);
    if (sum.unmet)
      say_unmet(percent, sum.estimate);
    interval_ns = changed ? XR_BUDGET_INTERVAL_MIN_NS
                : interval_ns >= XR_BUDGET_INTERVAL_MAX_NS / 2 ? XR_BUDGET_INTERVAL_MAX_NS
                                                            : interval_ns * 2;
    pthread_mutex_lock(&control);
    ctl.summary = sum;
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
  const struct xr_budget_summary *s = &ctl.summary;
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
  struct xr_budget_summary s = ctl.summary;
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
  /* the run's estimated cost (start-up included), not the last window's */
  double share = percent > 0 && s.run_cpu_ns > s.run_cost_ns
                     ? s.run_cost_ns / (s.run_cpu_ns - s.run_cost_ns)
                     : s.estimate;
  xr_budget_share_text(share, est, sizeof est);
  xr_report(XR_INFO, "budget %s%s: %s of %s functions traced, %s culled, est. cost %s %%",
            p, percent > 0 ? " %" : "", grouped(s.traced, traced),
            grouped(s.functions, functions), grouped(s.culled, culled), est);
}
