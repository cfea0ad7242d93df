/* Our crash handler stays in front of the program's own.
 *
 * Servers install their own SIGSEGV/SIGABRT/... handler in main to print a
 * crash report; installed after FDR started, it would replace ours, and the
 * crash snapshot would be lost without a word. So the archive defines
 * sigaction() and signal() (and glibc's __sysv_signal), which the
 * program's calls resolve to (the executable's definition comes first, and
 * the linker exports it, since libc defines the same names, so shared
 * objects' calls come here too), as sanitizer runtimes do:
 * - no signal in front (snapshot_on_crash off, the usual case): every call
 *   goes straight to libc (or to a sanitizer's interceptor when one is
 *   linked), unchanged: one load and a branch;
 * - a signal in front: the kernel keeps our handler; the program's action
 *   is recorded, and a query returns it (the program sees what it
 *   installed). A crash writes the snapshot, then runs that action as the
 *   kernel would have (fdr_triggers.c). SIG_IGN goes to the kernel as is
 *   (a sent signal is then ignored exactly; our handler comes back with the
 *   program's next handler or SIG_DFL).
 * One lock guards the table; it is taken with every signal blocked, and
 * never around a read of the caller's memory, so a crash handler on the
 * same thread never finds it held, and another thread holds it only for a
 * copy and a system call. */
#define _GNU_SOURCE /* sigorset, ucontext_t, ssignal */
#include "core/thread/lock.h"
#include "core/base/report.h"
#include "fdr/fdr_sigfront.h"

#include <errno.h>
#include <string.h>
#include <ucontext.h>

/* A sanitizer runtime linked into the program defines sigaction/signal as
 * weak aliases of these: ours (strong) wins, and must pass calls on to
 * them, or the sanitizer would not see the program's handlers. */
extern int __interceptor_sigaction(int, const struct sigaction *,
                                   struct sigaction *) __attribute__((weak));

#ifdef __GLIBC__
/* glibc's exported names of the same functions, which libc itself never
 * calls through: __sigaction is sigaction; ssignal is signal (BSD
 * semantics, SA_RESTART unless siginterrupt said otherwise). */
extern int __sigaction(int, const struct sigaction *, struct sigaction *);
extern __sighandler_t __interceptor_signal(int, __sighandler_t)
    __attribute__((weak));
#define XR_LIBC_SIGACTION __sigaction
#else
#define XR_LIBC_SIGACTION sigaction /* not interposed: see below */
#endif

int xr_sigfront_next(int signo, const struct sigaction *act,
                     struct sigaction *old) {
  if (__interceptor_sigaction)
    return __interceptor_sigaction(signo, act, old);
  return XR_LIBC_SIGACTION(signo, act, old);
}

/* ---- the table ------------------------------------------------------------ */

enum { MAX_FRONT = 8 };
struct front {
  int signo;             /* 0: free */
  struct sigaction ours;
  struct sigaction prog; /* what the program installed, as it sees it */
  bool ours_in_kernel;
  int told; /* atomic: said once that the program's handler is kept behind */
};
static struct front fronts[MAX_FRONT];
static uint64_t fronted; /* atomic: bit s-1 for each signal s in front */
static xr_lock table_lock;

static bool is_fronted(int signo) {
  return signo > 0 && signo <= 64 &&
         (__atomic_load_n(&fronted, __ATOMIC_ACQUIRE) >> (signo - 1)) & 1;
}

static void lock(sigset_t *saved) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, saved);
  xr_lock_take(&table_lock); /* another thread, for a copy and a syscall */
}
static void unlock(const sigset_t *saved) {
  xr_lock_release(&table_lock);
  pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static struct front *find(int signo) {
  for (size_t i = 0; i < MAX_FRONT; i++)
    if (fronts[i].signo == signo)
      return &fronts[i];
  return NULL;
}

static void (*handler_of(const struct sigaction *a))(void) {
  return (a->sa_flags & SA_SIGINFO) ? (void (*)(void))a->sa_sigaction
                                    : (void (*)(void))a->sa_handler;
}
bool xr_sigfront_is_function(const struct sigaction *a) {
  return handler_of(a) != (void (*)(void))SIG_IGN &&
         handler_of(a) != (void (*)(void))SIG_DFL;
}
bool xr_sigfront_is_ignore(const struct sigaction *a) {
  return handler_of(a) == (void (*)(void))SIG_IGN;
}

/* Ours into the kernel, restarting interrupted system calls as the
 * program's action asked (a sent signal that its handler returns from). */
static int install_ours(struct front *f) {
  struct sigaction a = f->ours;
  a.sa_flags = (a.sa_flags & ~SA_RESTART) | (f->prog.sa_flags & SA_RESTART);
  int rc = xr_sigfront_next(f->signo, &a, NULL);
  if (rc == 0)
    f->ours_in_kernel = true;
  return rc;
}

int xr_sigfront_take(int signo, const struct sigaction *ours,
                     struct sigaction *prog) {
  sigset_t saved;
  lock(&saved);
  struct front *f = find(signo);
  if (f == NULL)
    f = find(0);
  int rc = -1;
  if (f == NULL) {
    errno = ENOSPC;
  } else if (xr_sigfront_next(signo, NULL, &f->prog) == 0) {
    f->signo = signo;
    f->ours = *ours;
    f->ours_in_kernel = false;
    rc = xr_sigfront_is_ignore(&f->prog) ? 0 : install_ours(f);
    if (rc == 0) {
      *prog = f->prog;
      __atomic_or_fetch(&fronted, 1ull << (signo - 1), __ATOMIC_RELEASE);
    } else {
      f->signo = 0;
    }
  }
  int e = errno;
  unlock(&saved);
  errno = e;
  return rc;
}

void xr_sigfront_release(int signo) {
  bool replaced = false;
  sigset_t saved;
  lock(&saved);
  struct front *f = find(signo);
  if (f != NULL) {
    __atomic_and_fetch(&fronted, ~(1ull << (signo - 1)), __ATOMIC_RELEASE);
    struct sigaction now;
    /* Only when ours is still there: something that went around us keeps
     * what it installed, and the user learns why crashes wrote nothing. */
    if (f->ours_in_kernel && xr_sigfront_next(signo, NULL, &now) == 0) {
      if (handler_of(&now) == handler_of(&f->ours))
        xr_sigfront_next(signo, &f->prog, NULL);
      else
        replaced = true;
    }
    memset(f, 0, sizeof *f);
  }
  unlock(&saved);
  if (replaced)
    xr_report(XR_INFO,
              "xray-fdr: the %s handler was replaced around sigaction() and "
              "signal() (bsd_signal, sigset, a system call, or a C library "
              "other than glibc): crashes since then wrote no snapshot",
              xr_fdr_signal_name(signo));
}

void xr_sigfront_program(int signo, struct sigaction *prog) {
  sigset_t saved;
  lock(&saved);
  struct front *f = find(signo);
  if (f != NULL) {
    *prog = f->prog;
  } else {
    memset(prog, 0, sizeof *prog);
    prog->sa_handler = SIG_DFL;
  }
  unlock(&saved);
}

void xr_sigfront_give_back(int signo) {
  sigset_t saved;
  lock(&saved);
  struct front *f = find(signo);
  if (f != NULL && f->ours_in_kernel &&
      xr_sigfront_next(signo, &f->prog, NULL) == 0)
    f->ours_in_kernel = false;
  unlock(&saved);
}

void xr_sigfront_run(int signo, const struct sigaction *prog, siginfo_t *info,
                     void *context) {
  if (prog->sa_flags & SA_RESETHAND) {
    /* The kernel resets the action as it enters the handler. */
    sigset_t saved;
    lock(&saved);
    struct front *f = find(signo);
    if (f != NULL && handler_of(&f->prog) == handler_of(prog)) {
      memset(&f->prog.sa_mask, 0, sizeof f->prog.sa_mask);
      f->prog.sa_flags = 0;
      f->prog.sa_handler = SIG_DFL;
    }
    unlock(&saved);
  }
  /* The mask the kernel would have given the handler: the interrupted
   * thread's, plus sa_mask, plus the signal itself unless SA_NODEFER. */
  sigset_t mask;
  if (context != NULL)
    mask = ((ucontext_t *)context)->uc_sigmask;
  else
    pthread_sigmask(SIG_SETMASK, NULL, &mask);
  sigorset(&mask, &mask, &prog->sa_mask);
  if (!(prog->sa_flags & SA_NODEFER))
    sigaddset(&mask, signo);
  pthread_sigmask(SIG_SETMASK, &mask, NULL);
  if (prog->sa_flags & SA_SIGINFO)
    prog->sa_sigaction(signo, info, context);
  else
    prog->sa_handler(signo);
  /* Back to ours: everything blocked until our handler returns, where the
   * kernel restores the (maybe changed) context's mask. */
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, NULL);
}

void xr_sigfront_fork_child(void) {
  xr_lock_after_fork(&table_lock);
}

/* ---- the program's calls -------------------------------------------------- */

/* sigaction() on a signal in front. The caller's struct is copied before
 * the lock (a bad pointer faults here, as the program's own bug, not with
 * the lock held). */
static XR_NOINLINE int front_sigaction(int signo, const struct sigaction *act,
                                       struct sigaction *old) {
  struct sigaction want;
  if (act != NULL)
    want = *act;
  struct sigaction was;
  sigset_t saved;
  lock(&saved);
  struct front *f = find(signo);
  if (f == NULL) { /* released meanwhile */
    unlock(&saved);
    return xr_sigfront_next(signo, act ? &want : NULL, old);
  }
  was = f->prog;
  int rc = 0;
  if (act != NULL) {
    if (xr_sigfront_is_ignore(&want)) {
      rc = xr_sigfront_next(signo, &want, NULL);
      if (rc == 0) {
        f->ours_in_kernel = false;
        f->prog = want;
      }
    } else {
      f->prog = want;
      if (!f->ours_in_kernel ||
          ((want.sa_flags ^ was.sa_flags) & SA_RESTART))
        rc = install_ours(f);
      if (rc != 0)
        f->prog = was;
    }
  }
  int e = errno;
  bool tell = rc == 0 && act != NULL && xr_sigfront_is_function(&want) &&
              !__atomic_exchange_n(&f->told, 1, __ATOMIC_RELAXED);
  unlock(&saved);
  if (tell)
    xr_report(XR_INFO,
              "xray-fdr: the program installs its own %s handler; kept "
              "behind the crash snapshot (a crash writes the snapshot, then "
              "runs the program's handler)",
              xr_fdr_signal_name(signo));
  if (rc == 0 && old != NULL)
    *old = was;
  errno = e;
  return rc;
}

#ifdef __GLIBC__
XR_API int sigaction(int signo, const struct sigaction *restrict act,
                     struct sigaction *restrict old) {
  if (XR_LIKELY(!is_fronted(signo)))
    return xr_sigfront_next(signo, act, old);
  return front_sigaction(signo, act, old);
}

/* signal() and its variants as sigaction() with their flags. */
static __sighandler_t signal_as(int signo, __sighandler_t handler, int flags,
                                bool mask_self) {
  if (handler == SIG_ERR) {
    errno = EINVAL;
    return SIG_ERR;
  }
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  if (mask_self)
    sigaddset(&sa.sa_mask, signo);
  if (sigaction(signo, &sa, &old) != 0)
    return SIG_ERR;
  return old.sa_handler;
}

XR_API __sighandler_t signal(int signo, __sighandler_t handler) {
  if (XR_LIKELY(!is_fronted(signo)))
    return __interceptor_signal ? __interceptor_signal(signo, handler)
                                : ssignal(signo, handler);
  return signal_as(signo, handler, SA_RESTART, true); /* BSD semantics */
}

/* What signal() is in a program built with -std=c11 (no _DEFAULT_SOURCE):
 * System V semantics, the same flags as glibc's (so passing through is
 * exact; calling libc's would pull in its definition of this name, which
 * a static link refuses twice). */
XR_API __sighandler_t __sysv_signal(int signo, __sighandler_t handler) {
  return signal_as(signo, handler, SA_RESETHAND | SA_NODEFER, false);
}
#endif
/* Other C libraries: no interposer (their own functions may call
 * sigaction internally through the public name); a handler the program
 * installs later replaces ours, and xr_sigfront_release says so. */

const char *xr_fdr_signal_name(int signo) {
  switch (signo) {
  case SIGSEGV: return "SIGSEGV";
  case SIGBUS: return "SIGBUS";
  case SIGILL: return "SIGILL";
  case SIGFPE: return "SIGFPE";
  case SIGABRT: return "SIGABRT";
  case SIGTRAP: return "SIGTRAP";
  default: return "signal";
  }
}
