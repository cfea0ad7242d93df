/* FDR snapshot triggers: the API, a signal, a crash.
 *
 * Every trigger writes the snapshot itself, on the thread that triggered
 * it: the writer (fdr_snapshot.c) is async-signal-safe throughout, so a
 * signal or crash handler needs no helper thread (a thread could not help
 * a crash: the process is about to end). Only the optional trace files of
 * a snapshot, which allocates, is left to one (fdr_snaptrace.c). */
#include "core/base/common.h"
#include "core/base/report.h"
#include "fdr/fdr_sigfront.h"
#include "fdr/fdr_snapshot.h"
#include "fdr/fdr_snapshot_names.h"
#include "fdr/fdr_state.h"
#include "fdr/fdr_triggers.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- the try-lock and deferred signal snapshots -------------------------- */

static int normal_slot_taken; /* atomic flag */
static int deferred;          /* atomic: a signal snapshot is owed (0/1) */
static int deferred_signo;

bool xr_fdr_snapshot_trylock(void) {
  return !__atomic_exchange_n(&normal_slot_taken, 1, __ATOMIC_ACQUIRE);
}
void xr_fdr_snapshot_unlock(void) {
  __atomic_store_n(&normal_slot_taken, 0, __ATOMIC_RELEASE);
}
/* Owed snapshots are coalesced into one, as the kernel coalesces a pending
 * signal: a storm of signals while snapshots take milliseconds must not
 * build an endless backlog. */
void xr_fdr_snapshot_defer_signal(int signo) {
  __atomic_store_n(&deferred_signo, signo, __ATOMIC_RELAXED);
  __atomic_store_n(&deferred, 1, __ATOMIC_SEQ_CST);
}

static bool take_deferred(void) {
  int n = __atomic_load_n(&deferred, __ATOMIC_SEQ_CST);
  while (n > 0)
    if (__atomic_compare_exchange_n(&deferred, &n, n - 1, false,
                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
      return true;
  return false;
}

/* The classic hand-over: whoever holds the lock takes what is owed; after
 * letting go it looks again, because a signal that found the lock taken
 * just before the release is owed and its handler has returned. */
void xr_fdr_snapshot_drain(void) {
  while (__atomic_load_n(&deferred, __ATOMIC_SEQ_CST) > 0 &&
         xr_fdr_snapshot_trylock()) {
    while (take_deferred()) {
      struct xr_fdr_snapshot_why why = {
          XR_SNAP_SIGNAL, __atomic_load_n(&deferred_signo, __ATOMIC_RELAXED),
          0, 0};
      xr_fdr_snapshot_write(&why, XR_SNAP_SLOT_NORMAL, NULL, 0);
    }
    xr_fdr_snapshot_unlock();
  }
}

void xr_fdr_triggers_fork_child(void) {
  __atomic_store_n(&normal_slot_taken, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&deferred, 0, __ATOMIC_RELAXED);
  xr_sigfront_fork_child();
  xr_fdr_snapshot_names_fork_child();
}


XR_API XRaySnapshotStatus __xray_fdr_snapshot(char *path, size_t path_size) {
  if (!xr_fdr_snapshot_trylock()) {
    if (path && path_size)
      path[0] = 0;
    return XRAY_SNAPSHOT_BUSY;
  }
  struct xr_fdr_snapshot_why why = {XR_SNAP_API, 0, 0, 0};
  XRaySnapshotStatus s =
      xr_fdr_snapshot_write(&why, XR_SNAP_SLOT_NORMAL, path, path_size);
  xr_fdr_snapshot_unlock();
  xr_fdr_snapshot_drain();
  return s;
}

/* ---- signal names ---------------------------------------------------------- */

static const struct {
  const char *name;
  int signo;
} signal_names[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},     {"QUIT", SIGQUIT},
    {"USR1", SIGUSR1}, {"USR2", SIGUSR2},   {"PIPE", SIGPIPE},
    {"ALRM", SIGALRM}, {"TERM", SIGTERM},   {"CHLD", SIGCHLD},
    {"CONT", SIGCONT}, {"TSTP", SIGTSTP},   {"TTIN", SIGTTIN},
    {"TTOU", SIGTTOU}, {"URG", SIGURG},     {"XCPU", SIGXCPU},
    {"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF},
    {"WINCH", SIGWINCH}, {"IO", SIGIO},     {"PWR", SIGPWR},
    {"SYS", SIGSYS},   {"KILL", SIGKILL},   {"STOP", SIGSTOP},
    {"SEGV", SIGSEGV}, {"BUS", SIGBUS},     {"ILL", SIGILL},
    {"FPE", SIGFPE},   {"ABRT", SIGABRT},   {"TRAP", SIGTRAP},
};

int xr_fdr_parse_signal(const char *text) {
  const char *s = text;
  if (strncmp(s, "SIG", 3) == 0)
    s += 3;
  int signo = 0;
  if (*s >= '0' && *s <= '9') {
    char *end;
    long v = strtol(s, &end, 10);
    signo = (*end == 0 && v > 0 && v < NSIG) ? (int)v : 0;
  } else if (strncmp(s, "RTMIN+", 6) == 0 || strncmp(s, "RTMAX-", 6) == 0) {
    char *end;
    long v = strtol(s + 6, &end, 10);
    long n = s[3] == 'I' ? SIGRTMIN + v : SIGRTMAX - v;
    signo = (*end == 0 && v >= 0 && n >= SIGRTMIN && n <= SIGRTMAX) ? (int)n
                                                                   : 0;
  } else {
    for (size_t i = 0; i < XR_ARRAY_SIZE(signal_names); i++)
      if (strcmp(s, signal_names[i].name) == 0)
        signo = signal_names[i].signo;
  }
  if (signo == 0) {
    xr_report(XR_ERROR,
              "xray-fdr: snapshot_signal=%s is not a signal (use a name such "
              "as SIGUSR2 or a number)",
              text);
    return 0;
  }
  if (signo == SIGKILL || signo == SIGSTOP) {
    xr_report(XR_ERROR, "xray-fdr: snapshot_signal=%s cannot be caught", text);
    return 0;
  }
  if (signo == SIGSEGV || signo == SIGBUS || signo == SIGILL ||
      signo == SIGFPE || signo == SIGABRT || signo == SIGTRAP) {
    xr_report(XR_ERROR,
              "xray-fdr: snapshot_signal=%s is a crash signal; use "
              "snapshot_on_crash=true",
              text);
    return 0;
  }
  return signo;
}

/* Runs the handler the program had installed before us, if any. */
static void chain(const struct sigaction *old, int signo, siginfo_t *info,
                  void *context) {
  if (old->sa_flags & SA_SIGINFO) {
    if ((void *)old->sa_sigaction != (void *)SIG_DFL &&
        (void *)old->sa_sigaction != (void *)SIG_IGN)
      old->sa_sigaction(signo, info, context);
  } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
    old->sa_handler(signo);
  }
}

/* ---- snapshot_signal ------------------------------------------------------- */

static int snapshot_signo;             /* installed signal, 0 none */
static struct sigaction snapshot_old;  /* what it replaced */

static void on_snapshot_signal(int signo, siginfo_t *info, void *context) {
  int saved_errno = errno;
  xr_fdr_snapshot_defer_signal(signo);
  xr_fdr_snapshot_drain();
  errno = saved_errno;
  chain(&snapshot_old, signo, info, context);
}

/* ---- snapshot_on_crash ----------------------------------------------------- */

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL,
                                    SIGFPE,  SIGABRT, SIGTRAP};
static bool crash_installed;
static int crash_slot_taken; /* atomic: one crash snapshot at a time */
static XR_TLS int in_crash;  /* a fault inside our own crash path */
/* The crash this thread last took a snapshot of (signal, fault address). */
static XR_TLS int crash_seen_signo;
static XR_TLS uintptr_t crash_seen_addr;

enum { ALT_STACK_SIZE = 64 * 1024 };
static XR_TLS void *alt_stack; /* the one we gave this thread */

/* One snapshot per crash. What follows a crash on the same thread is the
 * same crash going on, not a new one: the program's handler re-raising the
 * signal or calling abort() (a sent signal), or returning to the faulting
 * instruction (the same fault again). Only a fault at another address, on
 * a thread whose handler recovered (longjmp), is a new crash. */
static bool new_crash(int signo, const siginfo_t *info) {
  bool fault = info != NULL && info->si_code > 0;
  uintptr_t addr = fault ? (uintptr_t)info->si_addr : 0;
  if (crash_seen_signo != 0 &&
      (!fault || (signo == crash_seen_signo && addr == crash_seen_addr)))
    return false;
  crash_seen_signo = signo;
  crash_seen_addr = addr;
  return true;
}

static void on_crash(int signo, siginfo_t *info, void *context) {
  int saved_errno = errno;
  bool sent = info == NULL || info->si_code <= 0;
  struct sigaction prog;
  xr_sigfront_program(signo, &prog);
  bool ignored = xr_sigfront_is_ignore(&prog);
  if (ignored && sent) {
    errno = saved_errno;
    return; /* what the kernel would have done: nothing */
  }
  if (!in_crash && new_crash(signo, info)) {
    in_crash = 1;
    if (!__atomic_exchange_n(&crash_slot_taken, 1, __ATOMIC_ACQUIRE)) {
      struct xr_fdr_snapshot_why why = {XR_SNAP_CRASH, signo, 0, 0};
      xr_fdr_snapshot_write(&why, XR_SNAP_SLOT_CRASH, NULL, 0);
      __atomic_store_n(&crash_slot_taken, 0, __ATOMIC_RELEASE);
    }
    in_crash = 0;
  }
  if (xr_sigfront_is_function(&prog)) {
    /* The program's handler, as the kernel would have run it. Whatever it
     * does next (return, _exit, abort, restore SIG_DFL and re-raise, a
     * longjmp) happens as without us: the snapshot is already written. */
    errno = saved_errno;
    xr_sigfront_run(signo, &prog, info, context);
    return;
  }
  /* SIG_DFL (or a fault while ignored, which the kernel kills with the
   * default action): the program's disposition goes back to the kernel,
   * and the signal happens as it would have without us. A fault (si_code
   * > 0) repeats by itself when this handler returns: the same
   * instruction faults again, with the same siginfo. A signal that was
   * sent (kill, raise, abort: si_code <= 0) or a trap (the instruction
   * after int3 does not trap again) is sent again, with its own siginfo;
   * it stays pending while this handler runs and arrives as it returns. */
  if (ignored)
    prog.sa_handler = SIG_DFL;
  xr_sigfront_give_back(signo);
  if (ignored)
    xr_sigfront_next(signo, &prog, NULL);
  if (sent || signo == SIGTRAP) {
    if (info == NULL ||
        syscall(SYS_rt_tgsigqueueinfo, getpid(), syscall(SYS_gettid), signo,
                info) != 0)
      raise(signo);
  }
  errno = saved_errno;
}

void xr_fdr_triggers_thread_start(void) {
  if (!__atomic_load_n(&crash_installed, __ATOMIC_RELAXED) || alt_stack)
    return;
  stack_t current;
  if (sigaltstack(NULL, &current) == 0 && !(current.ss_flags & SS_DISABLE))
    return; /* the program gave this thread one: use it */
  void *m = mmap(NULL, ALT_STACK_SIZE, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return; /* a stack overflow on this thread will not be caught */
  stack_t ss = {.ss_sp = m, .ss_flags = 0, .ss_size = ALT_STACK_SIZE};
  if (sigaltstack(&ss, NULL) == 0)
    alt_stack = m;
  else
    munmap(m, ALT_STACK_SIZE);
}

void xr_fdr_triggers_thread_exit(void) {
  if (!alt_stack)
    return;
  stack_t current;
  if (sigaltstack(NULL, &current) == 0 && current.ss_sp == alt_stack &&
      !(current.ss_flags & SS_ONSTACK)) {
    stack_t off = {.ss_sp = NULL, .ss_flags = SS_DISABLE, .ss_size = 0};
    if (sigaltstack(&off, NULL) == 0)
      munmap(alt_stack, ALT_STACK_SIZE);
  }
  alt_stack = NULL;
}

/* ---- install / remove ------------------------------------------------------ */

static bool ours(int signo, void (*handler)(int, siginfo_t *, void *)) {
  struct sigaction now;
  return xr_sigfront_next(signo, NULL, &now) == 0 &&
         (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == handler;
}

void xr_fdr_triggers_install(const struct fdr_trigger_options *o) {
  if (o->signo && !snapshot_signo) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_snapshot_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (xr_sigfront_next(o->signo, &sa, &snapshot_old) == 0) {
      snapshot_signo = o->signo;
      xr_report(XR_INFO,
                "xray-fdr: signal %d takes a snapshot%s", o->signo,
                xr_sigfront_is_function(&snapshot_old)
                    ? ", then runs the program's own handler"
                    : "");
    } else {
      xr_report(XR_ERROR, "xray-fdr: cannot handle signal %d: %s", o->signo,
                strerror(errno));
    }
  }
  if (o->on_crash && !crash_installed) {
    for (size_t i = 0; i < XR_ARRAY_SIZE(crash_signals); i++) {
      struct sigaction sa, prog;
      memset(&sa, 0, sizeof sa);
      sa.sa_sigaction = on_crash;
      /* On the alternate stack (a stack overflow leaves no room on the
       * thread's own); everything blocked, so nothing runs between our
       * snapshot and the program's disposition. */
      sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
      sigfillset(&sa.sa_mask);
      if (xr_sigfront_take(crash_signals[i], &sa, &prog) != 0)
        xr_report(XR_ERROR, "xray-fdr: cannot handle %s: %s; no snapshot "
                  "on that crash", xr_fdr_signal_name(crash_signals[i]),
                  strerror(errno));
      else if (xr_sigfront_is_function(&prog))
        xr_report(XR_INFO,
                  "xray-fdr: %s has the program's own handler; kept behind "
                  "the crash snapshot (a crash writes the snapshot, then runs "
                  "the program's handler)",
                  xr_fdr_signal_name(crash_signals[i]));
    }
    __atomic_store_n(&crash_installed, true, __ATOMIC_RELEASE);
    xr_fdr_triggers_thread_start();
  }
}

void xr_fdr_triggers_remove(void) {
  if (snapshot_signo) {
    if (ours(snapshot_signo, on_snapshot_signal))
      xr_sigfront_next(snapshot_signo, &snapshot_old, NULL);
    snapshot_signo = 0;
  }
  if (crash_installed) {
    for (size_t i = 0; i < XR_ARRAY_SIZE(crash_signals); i++)
      xr_sigfront_release(crash_signals[i]);
    __atomic_store_n(&crash_installed, false, __ATOMIC_RELEASE);
  }
}
